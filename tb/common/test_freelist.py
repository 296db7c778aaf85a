"""cocotb testbench: rtl.common.freelist.FreeList vs the golden model.

* stimulus: :func:`directed_freelist_sequences` (named corner cases) and
  :func:`random_freelist_ops` (seeded, phase-biased random cycles that drive the list
  empty and back to all-free, with double frees, out-of-range frees, allocations while
  empty and same-cycle alloc + free);
* reference: :class:`golden.structures.freelist.FreeList`, stepped once per cycle;
* scoreboard: :class:`tb.runner.Scoreboard`, fed every output port every cycle.

The stimulus functions are plain Python, so the Amaranth unit test
``tests/rtl/test_common_freelist.py`` replays the same sequences.
"""

from __future__ import annotations

import random
from collections import Counter

import cocotb
import pytest

from golden.structures.freelist import FreeList, FreeListOps, FreeListOutputs, FreeListParams
from rtl.common.freelist import FreeList as FreeListRTL
from tb.runner import Scoreboard, run_cocotb, tb_params, tb_seed
from tb.stepper import StepTB, play_directed, play_random

RANDOM_TRANSACTIONS = 10_000

# Per-phase probabilities of alloc and free requests.
_PHASES = {
    "fill": (0.9, 0.15),    # drives the list empty, then allocs while empty
    "drain": (0.1, 0.9),    # drives the list back to all-free, then double frees
    "steady": (0.6, 0.6),   # many same-cycle alloc + free
    "idle": (0.05, 0.05),
}


def random_freelist_ops(params: FreeListParams, rng: random.Random, count: int) -> list[FreeListOps]:
    """Return *count* cycles of seeded random requests, biased by phases.

    A shadow golden free list follows the sequence. A free names an allocated index
    80% of the time (a legal free), a currently free index 10% (double free; this
    includes the index being allocated in the same cycle) and any value of the port
    10% (out of range when ``index_width`` allows it).
    """
    shadow = FreeList(params)
    port_top = (1 << params.index_width) - 1
    ops_list: list[FreeListOps] = []
    phase, left = "fill", 0
    for _ in range(count):
        if left == 0:
            phase, left = rng.choice(list(_PHASES)), rng.randint(4, 2 * params.entries + 8)
        left -= 1
        p_alloc, p_free = _PHASES[phase]
        allocated = [i for i in range(params.entries) if not shadow.is_free(i)]
        free_now = [i for i in range(params.entries) if shadow.is_free(i)]
        r = rng.random()
        if allocated and r < 0.8:
            index = rng.choice(allocated)
        elif free_now and r < 0.9:
            index = free_now[0] if rng.random() < 0.5 else rng.choice(free_now)
        else:
            index = rng.randint(0, port_top)
        ops = FreeListOps(alloc=int(rng.random() < p_alloc), free=int(rng.random() < p_free),
                          free_index=index)
        shadow.step(ops)
        ops_list.append(ops)
    return ops_list


def directed_freelist_sequences(params: FreeListParams) -> list[tuple[str, list[FreeListOps]]]:
    """Named corner-case scenarios; each starts from the reset state (all free)."""
    n = params.entries
    port_top = (1 << params.index_width) - 1
    alloc_all = [FreeListOps(alloc=1) for _ in range(n)]
    seqs: list[tuple[str, list[FreeListOps]]] = []
    # All free: every free is a double free; alloc gives 0.
    seqs.append(("all_free_double_free", [FreeListOps(free=1, free_index=i) for i in range(n)]
                 + [FreeListOps(alloc=1), FreeListOps(free=1, free_index=0),
                    FreeListOps(free=1, free_index=0)]))
    # Empty: allocs while empty change nothing; a free while empty is accepted and
    # becomes allocatable the next cycle only.
    seqs.append(("empty", alloc_all + [
        FreeListOps(alloc=1), FreeListOps(alloc=1),
        FreeListOps(alloc=1, free=1, free_index=n - 1),   # alloc fails: no bypass
        FreeListOps(alloc=1),                             # now gets n - 1
        FreeListOps(alloc=1),
    ]))
    # Same-cycle alloc + free when not empty: the alloc takes the lowest free index,
    # the freed index is usable next cycle.
    seqs.append(("alloc_and_free_same_cycle", alloc_all[: max(1, n - 2)] + [
        FreeListOps(alloc=1, free=1, free_index=0),
        FreeListOps(alloc=1, free=1, free_index=1 % n),
        FreeListOps(alloc=1), FreeListOps(alloc=1), FreeListOps(alloc=1),
    ]))
    # Freeing the index being allocated in the same cycle is a double free.
    seqs.append(("free_index_being_allocated", [
        FreeListOps(alloc=1, free=1, free_index=0),
        FreeListOps(alloc=1, free=1, free_index=min(1, n - 1)),
        FreeListOps(free=1, free_index=0),
    ]))
    # Out-of-range frees (only possible when the port is wider than the index range).
    if n <= port_top:
        seqs.append(("out_of_range", alloc_all + [
            FreeListOps(free=1, free_index=n), FreeListOps(free=1, free_index=port_top),
            FreeListOps(alloc=1, free=1, free_index=port_top),
        ] + [FreeListOps(free=1, free_index=i) for i in range(n)]))
    # Drain in reverse, refill: the allocation order is lowest index first.
    seqs.append(("reverse_drain_refill", alloc_all
                 + [FreeListOps(free=1, free_index=i) for i in reversed(range(n))]
                 + alloc_all + [FreeListOps(alloc=1)]))
    # Holes: free every odd index, then allocate them back in order.
    seqs.append(("holes", alloc_all
                 + [FreeListOps(free=1, free_index=i) for i in range(1, n, 2)]
                 + alloc_all))
    return seqs


def freelist_coverage(outputs: FreeListOutputs, ops: FreeListOps, params: FreeListParams,
                      cov: Counter) -> None:
    """Count the interesting events of one cycle (from the golden outputs and requests)."""
    cov["empty"] += outputs.empty
    cov["all_free"] += int(outputs.free_count == params.entries)
    cov["alloc_granted"] += int(bool(ops.alloc)) & (1 - outputs.empty)
    cov["alloc_when_empty"] += int(bool(ops.alloc)) & outputs.empty
    cov["free_ok"] += int(bool(ops.free)) & (1 - outputs.error)
    cov["error"] += outputs.error
    cov["out_of_range"] += outputs.error & int(ops.free_index >= params.entries)
    cov["alloc_and_free"] += int(bool(ops.alloc) and bool(ops.free) and not outputs.error)
    cov["alloc_and_free_when_empty"] += int(bool(ops.alloc) and bool(ops.free)
                                            and outputs.empty and not outputs.error)


def coverage_goals(params: FreeListParams) -> dict[str, int]:
    """Minimum event counts a random run of :data:`RANDOM_TRANSACTIONS` cycles must reach."""
    goals = {"empty": 200, "all_free": 100, "alloc_granted": 1000, "alloc_when_empty": 100,
             "free_ok": 1000, "error": 300, "alloc_and_free": 300,
             "alloc_and_free_when_empty": 10}
    if params.entries < (1 << params.index_width):
        goals["out_of_range"] = 50
    return goals


def _params() -> FreeListParams:
    return FreeListParams(**tb_params())


@cocotb.test()
async def run_directed(dut):
    """Corner cases: all free, empty, same-cycle alloc + free, double free, out of range."""
    params = _params()
    tb = StepTB(dut, FreeListOps, FreeListOutputs)
    board = Scoreboard(f"freelist{params} directed", log=dut._log)
    tb.start()
    await play_directed(tb, lambda: FreeList(params), directed_freelist_sequences(params), board)
    board.finish()


@cocotb.test()
async def run_random(dut):
    """Seeded, phase-biased random cycles scored every cycle; coverage goals asserted."""
    params = _params()
    seed = tb_seed()
    dut._log.info("freelist %s random: seed %d, %d transactions", params, seed, RANDOM_TRANSACTIONS)
    ops_list = random_freelist_ops(params, random.Random(seed), RANDOM_TRANSACTIONS)
    tb = StepTB(dut, FreeListOps, FreeListOutputs)
    tb.start()
    board = Scoreboard(f"freelist{params} random", log=dut._log)
    await play_random(tb, FreeList(params), ops_list, board,
                      lambda expected, ops, cov: freelist_coverage(expected, ops, params, cov), coverage_goals(params))


@pytest.mark.parametrize(("entries", "index_width"), [(8, 4), (32, 6), (6, None)])
def test_freelist_cocotb(entries, index_width):
    run_cocotb(FreeListRTL, {"entries": entries, "index_width": index_width},
               test_module=__name__, toplevel="freelist")
