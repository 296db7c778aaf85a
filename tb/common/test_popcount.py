"""cocotb testbench: rtl.common.popcount.PopCount vs the golden model.

``run_directed`` sweeps the corner cases (all zero, all ones, every single bit, every
pair of bits, every run of ones from either end, alternating patterns, and a vector
with each possible count 0..width); ``run_random`` drives seeded, biased random vectors.
Every ``count`` is scored against :class:`golden.structures.popcount.PopCount`.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import cocotb
import pytest
from cocotb.triggers import Timer

from golden.structures.popcount import PopCount as GoldenPopCount
from rtl.common.popcount import PopCount
from tb.runner import Scoreboard, biased_vector, class_goals, run_cocotb, tb_params, tb_seed
from tb.stepper import check_coverage

RANDOM_TRANSACTIONS = 10_000


def directed_vectors(width: int, rng: random.Random) -> list[int]:
    """Corner-case input vectors for a *width*-bit popcount (duplicates removed)."""
    full = (1 << width) - 1
    vectors = [0, full]
    vectors += [1 << i for i in range(width)]
    vectors += [(1 << i) | (1 << j) for i, j in itertools.combinations(range(width), 2)]
    vectors += [full >> i for i in range(width + 1)]
    vectors += [(full << i) & full for i in range(width + 1)]
    alternating = int("01" * width, 2) & full
    vectors += [alternating, full ^ alternating]
    # One vector of every population 0..width with the set bits scattered.
    for ones in range(width + 1):
        vectors.append(sum(1 << i for i in rng.sample(range(width), ones)))
    return list(dict.fromkeys(vectors))


async def _drive(dut, golden: GoldenPopCount, board: Scoreboard, bits: int, kind: str) -> int:
    dut.bits.value = bits
    await Timer(1, unit="ns")
    want = golden.count(bits)
    board.check(f"{kind} bits={bits:#x}", want, int(dut.count.value))
    return want


def coverage_goals(width: int) -> dict[str, int]:
    """Random-run goals: every vector class, counts 0 and ``width``, every bit of the count set."""
    goals = class_goals(RANDOM_TRANSACTIONS)
    goals.update({"count_zero": 100, "count_full": 100})
    goals.update({f"count_bit{b}": 20 for b in range(width.bit_length())})
    return goals


@cocotb.test()
async def run_directed(dut):
    """Corner cases: zero, full, single bits, pairs, runs, every population count."""
    width = tb_params()["width"]
    golden = GoldenPopCount(width)
    board = Scoreboard(f"popcount[{width}] directed", log=dut._log)
    for bits in directed_vectors(width, random.Random(tb_seed())):
        await _drive(dut, golden, board, bits, "directed")
    board.finish()


@cocotb.test()
async def run_random(dut):
    """Seeded random vectors biased towards zero, full, single-bit, sparse and dense."""
    width = tb_params()["width"]
    seed = tb_seed()
    dut._log.info("popcount[%d] random: seed %d, %d transactions", width, seed, RANDOM_TRANSACTIONS)
    rng = random.Random(seed)
    golden = GoldenPopCount(width)
    board = Scoreboard(f"popcount[{width}] random", log=dut._log)
    cov: Counter = Counter()
    for _ in range(RANDOM_TRANSACTIONS):
        kind, bits = biased_vector(rng, width)
        count = await _drive(dut, golden, board, bits, kind)
        cov[f"class_{kind}"] += 1
        cov["count_zero"] += count == 0
        cov["count_full"] += count == width
        for b in range(width.bit_length()):
            cov[f"count_bit{b}"] += count >> b & 1
    board.finish()
    dut._log.info("popcount[%d] coverage: %s", width, dict(cov))
    check_coverage(cov, coverage_goals(width))


@pytest.mark.parametrize("width", [8, 24, 32])
def test_popcount_cocotb(width):
    run_cocotb(PopCount, {"width": width}, test_module=__name__)
