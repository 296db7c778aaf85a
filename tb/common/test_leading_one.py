"""cocotb testbench: rtl.common.leading_one.LeadingOneDetector vs the golden model.

Parametrised over width and priority direction (``msb_first``). ``run_directed`` sweeps
the corner cases (all zero, all ones, every single bit, every pair of bits = ties,
prefix/suffix runs, alternating patterns, the G-Scalar Fig. 7a mask); ``run_random``
drives seeded, biased random vectors. Every response (``onehot``, ``valid``) is scored
against :class:`golden.structures.leading_one.LeadingOneDetector`.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import cocotb
import pytest
from cocotb.triggers import Timer

from golden.structures.leading_one import LeadingOneDetector as GoldenLeadingOne
from rtl.common.leading_one import LeadingOneDetector
from tb.runner import Scoreboard, biased_vector, class_goals, run_cocotb, tb_params, tb_seed
from tb.stepper import check_coverage

RANDOM_TRANSACTIONS = 10_000
#: Active mask of G-Scalar Fig. 7a (paper-facts §6.4 B); MSB-first picks lane 14.
FIG7A_MASK = 0b0100000011111010


def directed_vectors(width: int) -> list[int]:
    """Corner-case input vectors for a *width*-bit detector (duplicates removed)."""
    full = (1 << width) - 1
    vectors = [0, full]
    vectors += [1 << i for i in range(width)]
    vectors += [(1 << i) | (1 << j) for i, j in itertools.combinations(range(width), 2)]
    vectors += [full >> i for i in range(width)]
    vectors += [(full << i) & full for i in range(width)]
    alternating = int("01" * width, 2) & full
    vectors += [alternating, full ^ alternating, FIG7A_MASK & full]
    return list(dict.fromkeys(vectors))


def _name(params: dict) -> str:
    return f"leading_one[{params['width']}, msb_first={params['msb_first']}]"


async def _drive(dut, golden: GoldenLeadingOne, board: Scoreboard, bits: int, kind: str) -> int | None:
    dut.bits.value = bits
    await Timer(1, unit="ns")
    got = (int(dut.onehot.value), bool(int(dut.valid.value)))
    want = tuple(golden.detect(bits))
    board.check(f"{kind} bits={bits:#x}", want, got)
    return want[0].bit_length() - 1 if want[1] else None


@cocotb.test()
async def run_directed(dut):
    """Corner cases: zero, full, single bits, ties (pairs), runs, Fig. 7a mask."""
    params = tb_params()
    golden = GoldenLeadingOne(params["width"], msb_first=params["msb_first"])
    board = Scoreboard(f"{_name(params)} directed", log=dut._log)
    for bits in directed_vectors(params["width"]):
        await _drive(dut, golden, board, bits, "directed")
    board.finish()


@cocotb.test()
async def run_random(dut):
    """Seeded random vectors biased towards zero, full, single-bit, sparse and dense."""
    params = tb_params()
    seed = tb_seed()
    dut._log.info("%s random: seed %d, %d transactions", _name(params), seed, RANDOM_TRANSACTIONS)
    rng = random.Random(seed)
    golden = GoldenLeadingOne(params["width"], msb_first=params["msb_first"])
    board = Scoreboard(f"{_name(params)} random", log=dut._log)
    cov: Counter = Counter()
    for _ in range(RANDOM_TRANSACTIONS):
        kind, bits = biased_vector(rng, params["width"])
        lane = await _drive(dut, golden, board, bits, kind)
        cov[f"class_{kind}"] += 1
        cov["none" if lane is None else f"lane_{lane}"] += 1
    board.finish()
    dut._log.info("%s coverage: %s", _name(params), dict(cov))
    check_coverage(cov, {**class_goals(RANDOM_TRANSACTIONS), "none": 100,
                         **{f"lane_{i}": 10 for i in range(params["width"])}})


@pytest.mark.parametrize("msb_first", [False, True])
@pytest.mark.parametrize("width", [8, 32])
def test_leading_one_cocotb(width, msb_first):
    run_cocotb(LeadingOneDetector, {"width": width, "msb_first": msb_first}, test_module=__name__)
