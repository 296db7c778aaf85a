"""cocotb testbench: rtl.common.cam.CAM vs the golden model.

Driver, reference model and scoreboard are kept apart:

* stimulus: :func:`directed_cam_sequences` (named corner-case scenarios) and
  :func:`random_cam_ops` (seeded, phase-biased random cycles that fill the CAM, force
  evictions, re-insert and look up present tags, invalidate and flush);
* reference: :class:`golden.structures.cam.Cam`, stepped once per cycle;
* scoreboard: :class:`tb.runner.Scoreboard`, fed every output port every cycle.

The stimulus functions are plain Python (no simulator needed), so the Amaranth unit
test ``tests/rtl/test_common_cam.py`` replays the very same sequences.
"""

from __future__ import annotations

import random
from collections import Counter

import cocotb
import pytest

from golden.structures.cam import Cam, CamOps, CamOutputs, CamParams
from rtl.common.cam import CAM
from tb.runner import Scoreboard, run_cocotb, tb_params, tb_seed
from tb.stepper import StepTB, play_directed, play_random

RANDOM_TRANSACTIONS = 10_000

# Per-phase probabilities: insert, touching lookup, invalidate by index, invalidate by
# tag, flush, and the chance that a tag is drawn from the CAM's current contents.
_PHASES = {
    "fill":  dict(insert=0.8, touch=0.5, inv_index=0.02, inv_tag=0.02, flush=0.0, present=0.3),
    "churn": dict(insert=0.9, touch=0.6, inv_index=0.02, inv_tag=0.05, flush=0.0, present=0.2),
    "hits":  dict(insert=0.4, touch=0.7, inv_index=0.05, inv_tag=0.05, flush=0.0, present=0.8),
    "drain": dict(insert=0.1, touch=0.3, inv_index=0.4, inv_tag=0.4, flush=0.0, present=0.7),
    "mixed": dict(insert=0.5, touch=0.5, inv_index=0.15, inv_tag=0.15, flush=0.02, present=0.5),
}


def _present_tags(cam: Cam) -> list[int]:
    return [t for t in (cam.entry(i) for i in range(cam.params.entries)) if t is not None]


def random_cam_ops(params: CamParams, rng: random.Random, count: int) -> list[CamOps]:
    """Return *count* cycles of seeded random requests, biased by phases.

    A shadow golden CAM follows the sequence so that tags can be drawn from the current
    contents (hits, re-inserts, tag invalidations that hit). Other tags come from a small
    pool (so evicted tags come back) or from the whole tag space, with 0 and the all-ones
    tag favoured. Operands of disabled operations are random too, to check that they
    have no effect.
    """
    shadow = Cam(params)
    top = (1 << params.tag_width) - 1
    pool = [rng.randint(0, top) for _ in range(2 * params.entries)]
    index_top = (1 << params.index_width) - 1
    ops_list: list[CamOps] = []
    phase, left = "fill", 0

    def tag(present_p: float) -> int:
        present = _present_tags(shadow)
        r = rng.random()
        if present and r < present_p:
            return rng.choice(present)
        r = rng.random()
        if r < 0.75:
            return rng.choice(pool)
        if r < 0.85:
            return rng.choice((0, top))
        return rng.randint(0, top)

    for _ in range(count):
        if left == 0:
            phase, left = rng.choice(list(_PHASES)), rng.randint(8, 4 * params.entries + 16)
        left -= 1
        p = _PHASES[phase]
        if phase == "churn" and rng.random() < 0.5:
            insert_tag = rng.randint(0, top)    # mostly new tags: evictions
        else:
            insert_tag = tag(p["present"] * 0.5)
        ops = CamOps(
            lookup_tag=tag(p["present"]),
            lookup_touch=int(rng.random() < p["touch"]),
            insert_en=int(rng.random() < p["insert"]),
            insert_tag=insert_tag,
            inv_index_en=int(rng.random() < p["inv_index"]),
            inv_index=rng.randint(0, index_top),
            inv_tag_en=int(rng.random() < p["inv_tag"]),
            inv_tag=tag(p["present"]),
            flush=int(rng.random() < p["flush"]),
        )
        shadow.step(ops)
        ops_list.append(ops)
    return ops_list


def directed_cam_sequences(params: CamParams) -> list[tuple[str, list[CamOps]]]:
    """Named corner-case scenarios; each starts from the reset state.

    Tags used are ``0x10 + i`` (masked to the tag width, then made distinct), the
    all-zero tag and the all-ones tag.
    """
    n = params.entries
    top = (1 << params.tag_width) - 1
    distinct = list(dict.fromkeys([0, top] + [(0x10 + i) & top for i in range(4 * n)]
                                  + list(range(4 * n))))
    if len(distinct) < 2 * n + 2:
        raise ValueError(f"directed CAM scenarios need {2 * n + 2} distinct tags; "
                         f"tag_width {params.tag_width} is too small")
    tags = distinct[: 2 * n + 2]
    fill = [CamOps(insert_en=1, insert_tag=tags[i]) for i in range(n)]
    look_all = [CamOps(lookup_tag=t) for t in tags]
    seqs: list[tuple[str, list[CamOps]]] = []

    # Empty CAM: the reset tags are 0 but invalid, so tag 0 must miss; invalidations of
    # an empty CAM do nothing; the first insert goes to entry 0.
    seqs.append(("empty", [CamOps(lookup_tag=0, lookup_touch=1), CamOps(lookup_tag=top),
                           CamOps(inv_tag_en=1, inv_tag=0), CamOps(inv_index_en=1, inv_index=0),
                           CamOps(flush=1), CamOps(lookup_tag=0),
                           CamOps(insert_en=1, insert_tag=0), CamOps(lookup_tag=0)]))
    # Full CAM then one more insert: evicts entry 0 (oldest), then entry 1, ...
    seqs.append(("full_evict", fill + look_all
                 + [CamOps(insert_en=1, insert_tag=tags[n + k]) for k in range(n + 2)]
                 + look_all))
    # A touching lookup hit moves the victim; a non-touching one does not.
    seqs.append(("touch_moves_victim", fill + [
        CamOps(lookup_tag=tags[0], lookup_touch=0),
        CamOps(lookup_tag=tags[1], lookup_touch=1),
        CamOps(insert_en=1, insert_tag=tags[n]),        # evicts entry 0
        CamOps(insert_en=1, insert_tag=tags[n + 1]),    # evicts entry 2 (1 was touched)
    ] + look_all))
    # Insert of a present tag: reused in place, no eviction, becomes MRU.
    seqs.append(("insert_present", fill + [
        CamOps(insert_en=1, insert_tag=tags[0]),
        CamOps(insert_en=1, insert_tag=tags[n]),        # evicts entry 1, not 0
        CamOps(insert_en=1, insert_tag=tags[n]),
    ] + look_all))
    # A hole made by invalidation is refilled before any LRU eviction; lowest hole first.
    seqs.append(("holes_first", fill + [
        CamOps(inv_index_en=1, inv_index=n - 1),
        CamOps(inv_tag_en=1, inv_tag=tags[n // 2]),
        CamOps(insert_en=1, insert_tag=tags[n]),        # goes to n // 2
        CamOps(insert_en=1, insert_tag=tags[n + 1]),    # goes to n - 1
        CamOps(insert_en=1, insert_tag=tags[n + 2]),    # full again: evicts LRU
    ] + look_all))
    # Same-cycle combinations.
    seqs.append(("flush_with_insert", fill + [
        CamOps(flush=1, insert_en=1, insert_tag=tags[n - 1], lookup_tag=tags[n - 1],
               lookup_touch=1),
    ] + look_all))
    seqs.append(("inv_index_and_tag_same_entry", fill + [
        CamOps(inv_index_en=1, inv_index=1, inv_tag_en=1, inv_tag=tags[1]),
        CamOps(inv_index_en=1, inv_index=2, inv_tag_en=1, inv_tag=tags[0]),
    ] + look_all))
    seqs.append(("invalidate_then_insert_same_tag", fill + [
        CamOps(inv_tag_en=1, inv_tag=tags[n - 1], insert_en=1, insert_tag=tags[n - 1]),
        CamOps(inv_index_en=1, inv_index=0, insert_en=1, insert_tag=tags[n]),
    ] + look_all))
    seqs.append(("lookup_touch_before_victim", fill + [
        CamOps(lookup_tag=tags[0], lookup_touch=1, insert_en=1, insert_tag=tags[n]),
        CamOps(lookup_tag=tags[n], lookup_touch=1, insert_en=1, insert_tag=tags[n]),
    ] + look_all))
    # All-invalid after a flush keeps the recency order; refill then evict follows it.
    seqs.append(("flush_keeps_order", fill + [
        CamOps(lookup_tag=tags[0], lookup_touch=1),
        CamOps(flush=1),
    ] + look_all + fill[::-1] + [
        CamOps(insert_en=1, insert_tag=tags[n + k]) for k in range(n)
    ] + look_all))
    # Ties: every entry touched in turn by lookups (each becomes MRU in turn), then the
    # same entry touched by a lookup and an insert in the same cycle.
    seqs.append(("touch_every_entry", fill + [
        CamOps(lookup_tag=tags[i], lookup_touch=1) for i in reversed(range(n))
    ] + [
        CamOps(lookup_tag=tags[n - 1], lookup_touch=1, insert_en=1, insert_tag=tags[n - 1]),
        CamOps(insert_en=1, insert_tag=tags[n]),
        CamOps(insert_en=1, insert_tag=tags[n + 1]),
    ] + look_all))
    # Invalidate by an index that does not name an entry (non-power-of-two sizes only).
    if n < (1 << params.index_width):
        seqs.append(("inv_index_out_of_range", fill + [
            CamOps(inv_index_en=1, inv_index=(1 << params.index_width) - 1)] + look_all))
    return seqs


def cam_coverage(outputs: CamOutputs, ops: CamOps, params: CamParams, cov: Counter) -> None:
    """Count the interesting events of one cycle (from the golden outputs)."""
    full = (1 << params.entries) - 1
    cov["hit"] += outputs.hit
    cov["miss"] += 1 - outputs.hit
    cov["touch_hit"] += outputs.hit & int(bool(ops.lookup_touch))
    cov["insert_fill"] += int(bool(ops.insert_en)) & (1 - outputs.insert_hit) & (1 - outputs.insert_evict)
    cov["insert_hit"] += outputs.insert_hit
    cov["evict"] += outputs.insert_evict
    cov["inv_tag_hit"] += outputs.inv_tag_hit
    cov["inv_index"] += int(bool(ops.inv_index_en))
    cov["flush"] += int(bool(ops.flush))
    cov["full"] += int(outputs.valid == full)
    cov["empty"] += int(outputs.valid == 0)


#: Minimum event counts a random run of :data:`RANDOM_TRANSACTIONS` cycles must reach.
RANDOM_COVERAGE_GOALS = {"hit": 500, "miss": 500, "touch_hit": 200, "insert_fill": 300,
                         "insert_hit": 200, "evict": 300, "inv_tag_hit": 100,
                         "inv_index": 100, "flush": 10, "full": 500, "empty": 20}


@cocotb.test()
async def run_directed(dut):
    """Corner cases: empty, full, all-invalid, LRU order and ties, same-cycle combinations."""
    params = CamParams(**tb_params())
    tb = StepTB(dut, CamOps, CamOutputs)
    board = Scoreboard(f"cam{params} directed", log=dut._log)
    tb.start()
    await play_directed(tb, lambda: Cam(params), directed_cam_sequences(params), board)
    board.finish()


@cocotb.test()
async def run_random(dut):
    """Seeded, phase-biased random cycles scored every cycle; coverage goals asserted."""
    params = CamParams(**tb_params())
    seed = tb_seed()
    dut._log.info("cam %s random: seed %d, %d transactions", params, seed, RANDOM_TRANSACTIONS)
    ops_list = random_cam_ops(params, random.Random(seed), RANDOM_TRANSACTIONS)
    tb = StepTB(dut, CamOps, CamOutputs)
    tb.start()
    board = Scoreboard(f"cam{params} random", log=dut._log)
    await play_random(tb, Cam(params), ops_list, board,
                      lambda expected, ops, cov: cam_coverage(expected, ops, params, cov),
                      RANDOM_COVERAGE_GOALS)


@pytest.mark.parametrize(("entries", "tag_width"), [(4, 8), (8, 8), (8, 16), (6, 10)])
def test_cam_cocotb(entries, tag_width):
    run_cocotb(CAM, {"entries": entries, "tag_width": tag_width}, test_module=__name__,
               toplevel="cam")
