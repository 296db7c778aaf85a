# amaranth: UnusedElaboratable=no
"""Uniform-vector structures (seed 002 ch. 2): RTL vs golden in amaranth.sim (directed +
random), the IRB, the SRF map and the detection logic."""

from __future__ import annotations

import random
from dataclasses import fields

import pytest
from amaranth.sim import Simulator

from golden.structures.uv import (IRB, DetectParams, IRBParams, SRFMap, SRFMapParams,
                                  UniformDetect)
from rtl.uv.detect import UniformDetect as DetectRTL
from rtl.uv.irb import IRB as IRBRTL
from rtl.uv.srf_map import SRFMap as SRFMapRTL
from stepsim import check_steps_against_golden, step_types
from tb.uv.stimulus import (detect_directed, detect_random_ops, irb_directed, irb_random_ops,
                            srf_directed, srf_random_ops)

SEED = 20260302


def _check(rtl_cls, golden_cls, params, directed, random_ops, label: str) -> None:
    """Each directed scenario, then the random run, each from reset on a fresh DUT/golden."""
    runs = list(directed(params)) + [("random", random_ops(params, random.Random(SEED), 1200))]
    for name, ops in runs:
        check_steps_against_golden(rtl_cls(**params.__dict__), golden_cls(params), ops,
                                   f"{label}{params} {name}")


def test_rtl_rejects_bad_parameters():
    with pytest.raises(ValueError):
        IRBRTL(entries=6)
    with pytest.raises(ValueError):
        IRBRTL(sources=4)
    with pytest.raises(TypeError):
        IRBRTL(parity="yes")
    with pytest.raises(TypeError):
        SRFMapRTL(vregs=1.5)
    with pytest.raises(ValueError):
        SRFMapRTL(read_ports=4)
    with pytest.raises(ValueError):
        DetectRTL(sources=0)
    assert len(IRBRTL().value) == 32 and len(IRBRTL().fi_bit) == 8
    assert len(SRFMapRTL().rd_sidx0) == 7 and len(SRFMapRTL().dst_vreg) == 9


@pytest.mark.parametrize("params", [IRBParams(entries=4, value_bits=8, tag_bits=4, opcode_bits=2),
                                    IRBParams(entries=2, value_bits=16, sources=2, parity=True),
                                    IRBParams(entries=8, value_bits=64, parity=True)],
                         ids=["small", "two_ways_parity", "paper_64bit_parity"])
def test_irb_rtl_matches_golden(params):
    print(f"seed {SEED}")
    _check(IRBRTL, IRB, params, irb_directed, irb_random_ops, "uv_irb")


@pytest.mark.parametrize("params", [SRFMapParams(vregs=24, srf_entries=8),
                                    SRFMapParams(vregs=40, srf_entries=16, read_ports=2)],
                         ids=["small", "two_ports"])
def test_srf_map_rtl_matches_golden(params):
    print(f"seed {SEED}")
    _check(SRFMapRTL, SRFMap, params, srf_directed, srf_random_ops, "uv_srf_map")


@pytest.mark.parametrize("params", [DetectParams(), DetectParams(sources=2, warp_size=8)],
                         ids=["paper", "two_sources"])
def test_detect_rtl_matches_golden(params):
    golden = UniformDetect(params)
    dut = DetectRTL(**params.__dict__)
    ops_cls, out_cls = step_types(golden)
    ops_list = [op for _, seq in detect_directed(params) for op in seq]
    ops_list += detect_random_ops(params, random.Random(SEED), 500)
    got = []

    async def bench(ctx):
        for ops in ops_list:
            for f in fields(ops_cls):
                ctx.set(getattr(dut, f.name), int(getattr(ops, f.name)))
            await ctx.delay(1e-9)
            got.append(out_cls(**{f.name: ctx.get(getattr(dut, f.name)) for f in fields(out_cls)}))

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    for i, (ops, out) in enumerate(zip(ops_list, got)):
        assert out == golden.step(ops), f"vector {i}: {ops}"
