"""cocotb testbench: rtl.gscalar.compressor.Compressor vs golden Compressor (seed 003 §3.1, §4.2).

Directed vectors (paper example, every code, each lane as the only active lane, empty
mask) then seeded random vectors biased toward similar values and sparse masks, with
coverage goals on the codes produced.
"""

from __future__ import annotations

import random

import cocotb
import numpy as np
import pytest

from golden.structures.gscalar.compressor import Compressor, CompressorOps, CompressorOutputs
from golden.structures.gscalar.params import GScalarParams, pack_lanes
from rtl.gscalar.compressor import Compressor as CompressorRTL
from tb.gscalar.comb import play_comb
from tb.gscalar.stimulus import (
    COMPRESSOR_COVERAGE_GOALS, compressor_coverage, random_compressor_ops,
)
from tb.runner import Scoreboard, run_cocotb, tb_params, tb_seed

RANDOM_VECTORS = 800


def directed_compressor_ops(params: GScalarParams) -> list[CompressorOps]:
    lanes, full = params.lanes, params.full_mask
    ops = [CompressorOps(values=pack_lanes(np.array([0xC04039C0 + 8 * i for i in range(lanes)],
                                                     dtype=np.uint32)), active=full)]
    for k in range(5):              # exactly k common MSB bytes
        low = 8 * (4 - k)
        vals = np.array([0xA5A5A5A5 ^ ((i << (low - 1)) if low else 0) for i in range(lanes)],
                        dtype=np.uint64).astype(np.uint32)
        ops.append(CompressorOps(values=pack_lanes(vals), active=full))
    vals = np.array([(i * 0x01010101) & 0xFFFFFFFF for i in range(lanes)], dtype=np.uint32)
    for lane in range(lanes):       # one active lane: always scalar, base = that lane
        ops.append(CompressorOps(values=pack_lanes(vals), active=1 << lane))
    ops.append(CompressorOps(values=pack_lanes(vals), active=0))
    return ops


@cocotb.test()
async def run_directed(dut):
    params = GScalarParams(lanes=tb_params()["lanes"], registers=1, groups=tb_params()["groups"])
    board = Scoreboard(f"compressor {params} directed", log=dut._log)
    await play_comb(dut, Compressor(params), directed_compressor_ops(params), CompressorOps,
                    CompressorOutputs, board, "directed")


@cocotb.test()
async def run_random(dut):
    params = GScalarParams(lanes=tb_params()["lanes"], registers=1, groups=tb_params()["groups"])
    seed = tb_seed()
    dut._log.info("compressor %s random: seed %d, %d vectors", params, seed, RANDOM_VECTORS)
    ops = random_compressor_ops(params, random.Random(seed), RANDOM_VECTORS)
    board = Scoreboard(f"compressor {params} random", log=dut._log)
    await play_comb(dut, Compressor(params), ops, CompressorOps, CompressorOutputs, board, "random",
                    lambda e, o, cov: compressor_coverage(e, o, params, cov),
                    COMPRESSOR_COVERAGE_GOALS)


@pytest.mark.parametrize(("lanes", "groups"), [(32, 1), (16, 2)])
def test_compressor_cocotb(lanes, groups):
    run_cocotb(CompressorRTL, {"lanes": lanes, "groups": groups}, test_module=__name__,
               toplevel="compressor")
