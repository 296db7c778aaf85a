"""cocotb testbench: rtl.common.priority_encoder.PriorityEncoder vs the golden model.

``run_directed`` sweeps the corner cases (no request, all requests, every single
request, every pair of requests = ties, every prefix/suffix run, alternating patterns);
``run_random`` drives seeded, biased random request vectors. Every response
(``index``, ``valid``) is scored against
:class:`golden.structures.priority_encoder.PriorityEncoder`.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import cocotb
import pytest
from cocotb.triggers import Timer

from golden.structures.priority_encoder import PriorityEncoder as GoldenPriorityEncoder
from rtl.common.priority_encoder import PriorityEncoder
from tb.runner import Scoreboard, biased_vector, class_goals, run_cocotb, tb_params, tb_seed
from tb.stepper import check_coverage

RANDOM_TRANSACTIONS = 10_000


def directed_vectors(width: int) -> list[int]:
    """Corner-case request vectors for a *width*-input encoder (duplicates removed)."""
    full = (1 << width) - 1
    vectors = [0, full]
    vectors += [1 << i for i in range(width)]
    vectors += [(1 << i) | (1 << j) for i, j in itertools.combinations(range(width), 2)]
    vectors += [full >> i for i in range(width)]            # runs starting at bit 0
    vectors += [(full << i) & full for i in range(width)]   # runs ending at the top bit
    alternating = int("01" * width, 2) & full
    vectors += [alternating, full ^ alternating]
    return list(dict.fromkeys(vectors))


async def _drive(dut, golden: GoldenPriorityEncoder, board: Scoreboard, requests: int, kind: str) -> int | None:
    dut.requests.value = requests
    await Timer(1, unit="ns")
    got = (int(dut.index.value), bool(int(dut.valid.value)))
    want = tuple(golden.encode(requests))
    board.check(f"{kind} requests={requests:#x}", want, got)
    return want[0] if want[1] else None


@cocotb.test()
async def run_directed(dut):
    """Corner cases: empty, full, single, ties (pairs), runs, alternating patterns."""
    width = tb_params()["width"]
    golden = GoldenPriorityEncoder(width)
    board = Scoreboard(f"priority_encoder[{width}] directed", log=dut._log)
    for requests in directed_vectors(width):
        await _drive(dut, golden, board, requests, "directed")
    board.finish()


@cocotb.test()
async def run_random(dut):
    """Seeded random requests biased towards zero, full, single-bit, sparse and dense."""
    width = tb_params()["width"]
    seed = tb_seed()
    dut._log.info("priority_encoder[%d] random: seed %d, %d transactions", width, seed, RANDOM_TRANSACTIONS)
    rng = random.Random(seed)
    golden = GoldenPriorityEncoder(width)
    board = Scoreboard(f"priority_encoder[{width}] random", log=dut._log)
    cov: Counter = Counter()
    for _ in range(RANDOM_TRANSACTIONS):
        kind, requests = biased_vector(rng, width)
        winner = await _drive(dut, golden, board, requests, kind)
        cov[f"class_{kind}"] += 1
        cov["none" if winner is None else f"win_{winner}"] += 1
    board.finish()
    dut._log.info("priority_encoder[%d] coverage: %s", width, dict(cov))
    check_coverage(cov, {**class_goals(RANDOM_TRANSACTIONS), "none": 100,
                         **{f"win_{i}": 10 for i in range(width)}})


@pytest.mark.parametrize("width", [5, 8, 32])
def test_priority_encoder_cocotb(width):
    run_cocotb(PriorityEncoder, {"width": width}, test_module=__name__)
