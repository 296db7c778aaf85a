# amaranth: UnusedElaboratable=no
"""Amaranth-simulator tests of rtl.gscalar (compressor, decompressor, compressed bank)
against golden.structures.gscalar, plus parameter checks. The cocotb testbenches
(tb/gscalar/) run the longer random runs and the workload-trace replays."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import fields

import numpy as np
import pytest

from golden.structures.gscalar import (
    CompressedBank, Compressor, Decompressor, GScalarParams, pack_lanes,
)
from golden.structures.gscalar.params import pack_fields
from golden.structures.gscalar.trace import bank_cycles, record_register_trace
from golden.structures.gscalar.bank import BankOps
from golden.structures.gscalar.compressor import CompressorOps
from golden.structures.registered import Registered
from rtl.gscalar.bank import READ_LATENCY, READ_OUTPUTS
from rtl.gscalar.bank import CompressedBank as BankRTL
from rtl.gscalar.compressor import Compressor as CompressorRTL
from rtl.gscalar.decompressor import Decompressor as DecompressorRTL
from tb.gscalar.stimulus import (
    bank_coverage, random_bank_ops, random_compressor_ops, random_decompressor_ops,
)

from amaranth.sim import Simulator

from stepsim import check_steps_against_golden, simulate_steps, step_types

SEED = 20240612


def check_comb_against_golden(dut, golden, ops_list, label: str) -> None:
    """Like stepsim.check_steps_against_golden, for a combinational component (no clock)."""
    ops_cls, out_cls = step_types(golden)
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
        expected = golden.step(ops)
        assert out == expected, f"{label} vector {i}: {ops}\n expected {expected}\n got      {out}"


def test_rtl_rejects_bad_parameters():
    for cls in (CompressorRTL, DecompressorRTL):
        with pytest.raises(TypeError):
            cls(lanes=32.0)
        with pytest.raises(ValueError):
            cls(lanes=33)
        with pytest.raises(ValueError):
            cls(lanes=15, groups=2)
    with pytest.raises(ValueError):
        BankRTL(lanes=32, registers=0)
    bank = BankRTL(lanes=32, registers=64)
    assert len(bank.rd_arrays) == 8 and len(bank.rd_data) == 1024 and len(bank.rd_reg) == 6
    assert len(BankRTL(lanes=16, registers=8, groups=2).rd_bvr) == 64


def test_paper_example_compressor():
    """§3.1 example: C04039C0, C04039C8, ... C04039F8 -> base C04039xx, enc 1110."""
    params = GScalarParams(lanes=8, registers=1)
    vals = [0xC04039C0 + 8 * i for i in range(8)]
    ops = [CompressorOps(values=pack_lanes(np.array(vals, dtype=np.uint32)), active=0xFF)]
    check_comb_against_golden(CompressorRTL(lanes=8), Compressor(params), ops, "paper example")
    out = Compressor(params).step(ops[0])
    assert out.enc == 0b1110 and out.base >> 8 == 0xC04039


@pytest.mark.parametrize(("lanes", "groups"), [(32, 1), (32, 2), (16, 2), (8, 1)])
def test_compressor_random(lanes, groups):
    params = GScalarParams(lanes=lanes, registers=1, groups=groups)
    ops = random_compressor_ops(params, random.Random(SEED + lanes + groups), 150)
    check_comb_against_golden(CompressorRTL(lanes=lanes, groups=groups), Compressor(params),
                               ops, f"compressor {params}")


@pytest.mark.parametrize(("lanes", "groups"), [(32, 1), (32, 2), (16, 1)])
def test_decompressor_random(lanes, groups):
    params = GScalarParams(lanes=lanes, registers=1, groups=groups)
    ops = random_decompressor_ops(params, random.Random(SEED + 7 * lanes + groups), 150)
    check_comb_against_golden(DecompressorRTL(lanes=lanes, groups=groups), Decompressor(params),
                               ops, f"decompressor {params}")


@pytest.mark.parametrize(("lanes", "registers", "groups"), [(32, 8, 1), (16, 5, 2), (32, 4, 2)])
def test_bank_random(lanes, registers, groups):
    params = GScalarParams(lanes=lanes, registers=registers, groups=groups)
    seed = SEED + lanes * registers + groups
    print(f"seed {seed}")
    ops = random_bank_ops(params, random.Random(seed), 300)
    check_steps_against_golden(BankRTL(lanes=lanes, registers=registers, groups=groups),
                               _registered(CompressedBank(params)), ops + [BankOps()],
                               f"bank {params} seed {seed}")
    cov: Counter = Counter()
    golden = CompressedBank(params)
    for o in ops:
        bank_coverage(golden.step(o), o, params, cov)
    for key in ("rd_d", "rd_scalar", "wr_divergent", "wr_full", "wr_raw", "rd_and_wr"):
        assert cov[key] > 0, (key, dict(cov))


def test_bank_trace_replay_bfs():
    """Register accesses of one BFS warp (divergent writes included), cycle by cycle."""
    params = GScalarParams(lanes=32, registers=64)
    cycles, _ = bank_cycles(record_register_trace("BFS", warps=(0,), max_events=150), params)
    check_steps_against_golden(BankRTL(lanes=32, registers=64), _registered(CompressedBank(params)),
                               [c.ops for c in cycles] + [BankOps()], "BFS trace")


def _registered(golden):
    """The golden bank as the RTL's ports show it: read outputs one cycle late (SRAM)."""
    return Registered(golden, READ_OUTPUTS, READ_LATENCY)


def test_bank_read_data_arrives_one_cycle_after_the_request():
    """A written register read back: nothing in the request cycle, the value the next one."""
    params = GScalarParams(lanes=32, registers=4)
    full = params.full_mask
    value = sum((0x01020304 + l) << (32 * l) for l in range(32))
    ops = [BankOps(wr_en=1, wr_reg=2, wr_data=value, wr_mask=full, wr_raw=1),
           BankOps(rd_en=1, rd_reg=2), BankOps()]
    ops_cls, out_cls = step_types(CompressedBank(params))
    got = simulate_steps(BankRTL(lanes=32, registers=4), ops, ops_cls, out_cls)
    assert got[1].rd_data == 0 and got[1].rd_meta == 0
    assert got[2].rd_data == value and got[2].rd_meta == 1 and got[2].rd_arrays == 0xFF
