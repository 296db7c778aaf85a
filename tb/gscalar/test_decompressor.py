"""cocotb testbench: rtl.gscalar.decompressor.Decompressor vs golden Decompressor (seed 003 §3.1).

Directed vectors (every legal code with and without D, per group) then seeded random
vectors (stored bytes biased toward similar values, legal codes favoured but every 4-bit
code possible, random BVRs, D 20% of the time).
"""

from __future__ import annotations

import random

import cocotb
import numpy as np
import pytest

from golden.structures.gscalar.decompressor import Decompressor, DecompressorOps, DecompressorOutputs
from golden.structures.gscalar.encoding import ENC_CODES
from golden.structures.gscalar.params import GScalarParams, pack_fields, pack_lanes, unpack_fields
from rtl.gscalar.decompressor import Decompressor as DecompressorRTL
from tb.gscalar.comb import play_comb
from tb.gscalar.stimulus import random_decompressor_ops
from tb.runner import Scoreboard, run_cocotb, tb_params, tb_seed

RANDOM_VECTORS = 600


def directed_decompressor_ops(params: GScalarParams) -> list[DecompressorOps]:
    stored = pack_lanes(np.arange(params.lanes, dtype=np.uint32) * np.uint32(0x01020304))
    bases = pack_fields([0xDEADBEEF, 0x12345678][: params.groups], 32)
    ops = []
    for d in (0, 1):
        for code in ENC_CODES:
            for g in range(params.groups):
                encs = [code if h == g else 0 for h in range(params.groups)]
                ops.append(DecompressorOps(stored=stored, enc_groups=pack_fields(encs, 4),
                                           base_groups=bases, d=d))
    return ops


@cocotb.test()
async def run_directed(dut):
    params = GScalarParams(lanes=tb_params()["lanes"], registers=1, groups=tb_params()["groups"])
    board = Scoreboard(f"decompressor {params} directed", log=dut._log)
    await play_comb(dut, Decompressor(params), directed_decompressor_ops(params), DecompressorOps,
                    DecompressorOutputs, board, "directed")


@cocotb.test()
async def run_random(dut):
    params = GScalarParams(lanes=tb_params()["lanes"], registers=1, groups=tb_params()["groups"])
    seed = tb_seed()
    dut._log.info("decompressor %s random: seed %d, %d vectors", params, seed, RANDOM_VECTORS)
    ops = random_decompressor_ops(params, random.Random(seed), RANDOM_VECTORS)
    board = Scoreboard(f"decompressor {params} random", log=dut._log)
    await play_comb(dut, Decompressor(params), ops, DecompressorOps, DecompressorOutputs, board,
                    "random", count_events=lambda e, o, cov: decompressor_coverage(o, params, cov),
                    goals=decompressor_goals(params))


def decompressor_coverage(ops: DecompressorOps, params: GScalarParams, cov) -> None:
    """Count the code of every group (legal codes by name, the rest as illegal) and D."""
    for g, code in enumerate(unpack_fields(ops.enc_groups, 4, params.groups)):
        cov[f"g{g}_enc_{code:04b}" if code in ENC_CODES else f"g{g}_enc_illegal"] += 1
    cov["d"] += ops.d


def decompressor_goals(params: GScalarParams) -> dict[str, int]:
    """Every legal code in every group, some illegal codes, and D-set vectors."""
    goals = {f"g{g}_enc_{c:04b}": 10 for g in range(params.groups) for c in ENC_CODES}
    goals.update({f"g{g}_enc_illegal": 5 for g in range(params.groups)})
    goals["d"] = 50
    return goals


@pytest.mark.parametrize(("lanes", "groups"), [(32, 1), (16, 2)])
def test_decompressor_cocotb(lanes, groups):
    run_cocotb(DecompressorRTL, {"lanes": lanes, "groups": groups}, test_module=__name__,
               toplevel="decompressor")
