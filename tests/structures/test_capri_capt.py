"""Golden CAPRI CAPT (seed 004 §3.1, §3.3, §5.4, §5.5): LRU, policies, eviction, reset."""

import io

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.capri import Capt, CaptOps, CaptParams
from golden.structures.trace import TraceRecorder, read_trace


def test_paper_sizes():
    assert CaptParams(entries=8).total_bits == 272          # 8 x (32 + 1 + 1), §5.5
    assert CaptParams().total_bits == 1088                  # default 32 entries, 1bL
    assert CaptParams(policy="1bS").entry_bits == 34
    assert CaptParams(policy="2bit").entry_bits == 35
    assert CaptParams(entries=8).lru_bits == 28
    assert CaptParams(entries=8).state_bits == 300


def test_miss_allocates_adequate_and_stalls():
    c = Capt(CaptParams(entries=4))
    assert c.lookup(0x100) == (False, True)
    assert c.history_of(0x100) == 1 and len(c) == 1
    assert c.lookup(0x100) == (True, True)
    # a lookup without allocation predicts adequate too, and allocates nothing
    assert c.lookup(0x200, allocate=False) == (False, True)
    assert 0x200 not in c and len(c) == 1


def test_fills_lowest_invalid_then_evicts_true_lru():
    c = Capt(CaptParams(entries=4))
    for pc in (10, 20, 30, 40):
        c.lookup(pc)
    assert [c.entry(i)[0] for i in range(4)] == [10, 20, 30, 40]
    c.lookup(10)                              # 10 becomes MRU: order 20, 30, 40, 10
    c.lookup(30)                              # order 20, 40, 10, 30
    assert [c.entry(i)[0] for i in c.lru_order] == [20, 40, 10, 30]
    out = c.step(CaptOps(lookup_en=1, lookup_pc=50, alloc_en=1))
    assert (out.alloc, out.evict, out.evict_pc) == (1, 1, 20)
    assert 20 not in c and c.entry(1) == (50, 1)
    out = c.step(CaptOps(lookup_en=1, lookup_pc=60, alloc_en=1))
    assert out.evict_pc == 40


def test_update_does_not_touch_lru():
    c = Capt(CaptParams(entries=2))
    c.lookup(1)
    c.lookup(2)
    assert c.update(1, True)                  # 1 stays LRU
    out = c.step(CaptOps(lookup_en=1, lookup_pc=3, alloc_en=1))
    assert out.evict_pc == 1


def test_1bl_follows_the_latest_outcome():
    c = Capt(CaptParams(policy="1bL"))
    c.lookup(8)
    c.update(8, False)
    assert c.lookup(8) == (True, False)       # predicted inadequate: the warp bypasses
    c.update(8, False)
    assert c.history_of(8) == 0
    c.update(8, True)
    assert c.lookup(8) == (True, True)


def test_2bit_counter_saturates_both_ways():
    c = Capt(CaptParams(policy="2bit"))
    c.lookup(8)
    assert c.history_of(8) == 0b10            # initial: weakly adequate
    seen = []
    for outcome in (True, True, True, False, False, False, False, False, True, True):
        c.update(8, outcome)
        seen.append(c.history_of(8))
    assert seen == [3, 3, 3, 2, 1, 0, 0, 0, 1, 2]
    c.update(8, False)
    assert c.lookup(8) == (True, False)       # 1: MSB clear
    out = c.step(CaptOps(lookup_en=1, lookup_pc=8))
    assert (out.hit, out.hit_history, out.predict_adequate) == (1, 1, 0)
    c.update(8, True)
    assert c.lookup(8) == (True, True)        # 2: MSB set


def test_1bs_is_sticky_until_reset():
    c = Capt(CaptParams(policy="1bS"))
    c.lookup(8)
    for _ in range(3):
        assert c.update(8, False)             # present, history unchanged
        assert c.lookup(8) == (True, True)
    c.reset()
    assert len(c) == 0 and 8 not in c
    assert c.lookup(8) == (False, True)


def test_update_of_an_absent_branch_does_nothing():
    c = Capt(CaptParams(entries=2))
    assert not c.update(0x40, True)
    c.lookup(1)
    c.lookup(2)
    c.lookup(3)                               # evicts 1
    assert not c.update(1, False)
    assert len(c) == 2


def test_reset_invalidates_and_refills_from_entry_0():
    c = Capt(CaptParams(entries=4))
    for pc in (10, 20, 30):
        c.lookup(pc)
    c.reset()
    assert len(c) == 0 and all(c.entry(i) is None for i in range(4))
    assert c.lookup(10) == (False, True)
    assert c.entry(0) == (10, 1)


def test_same_cycle_order():
    c = Capt(CaptParams(entries=2))
    c.lookup(5)
    c.lookup(6)
    # the allocation evicts 5 while 5 is being updated: the allocation wins
    out = c.step(CaptOps(lookup_en=1, lookup_pc=7, alloc_en=1, update_en=1, update_pc=5))
    assert (out.update_hit, out.evict_pc) == (1, 5) and c.entry(0) == (7, 1)
    # lookup and update of the same present branch: lookup sees the old history
    out = c.step(CaptOps(lookup_en=1, lookup_pc=7, update_en=1, update_pc=7))
    assert (out.hit, out.predict_adequate, out.update_hit) == (1, 1, 1)
    assert c.history_of(7) == 0
    # flush with an allocation leaves only the allocated branch, in entry 0
    out = c.step(CaptOps(lookup_en=1, lookup_pc=9, alloc_en=1, flush=1))
    assert (out.alloc, out.evict) == (1, 0)
    assert len(c) == 1 and c.entry(0) == (9, 1)


def test_fig7_branch_miss_stall_then_bypass():
    """Fig. 7/8: the first divergent warp misses and stalls, the second hits the new
    entry and stalls; the WCU finds compaction inadequate and 1bL clears the bit, so the
    next instance's divergent warps bypass."""
    c = Capt()
    assert c.lookup(0x88) == (False, True)
    assert c.lookup(0x88) == (True, True)
    assert c.update(0x88, False)
    assert c.lookup(0x88) == (True, False)


def test_bad_parameters_and_requests():
    for kw in ({"entries": 1}, {"policy": "3bit"}, {"pc_bits": 0}, {"entries": 2.0}):
        with pytest.raises(ConfigError):
            CaptParams(**kw)
    with pytest.raises(SimtlabError):
        Capt(object())
    with pytest.raises(SimtlabError):
        Capt().step(object())
    for ops in (CaptOps(lookup_en=1, lookup_pc=1 << 32), CaptOps(update_en=2),
                CaptOps(update_pc=-1)):
        with pytest.raises(SimtlabError):
            Capt().step(ops)


def test_recorder_sees_every_cycle(tmp_path):
    path = tmp_path / "capt.jsonl"
    p = CaptParams(entries=4, policy="2bit")
    with TraceRecorder.open(path, "capri_capt", p, meta={"t": 1}) as rec:
        c = Capt(p, recorder=rec)
        c.lookup(8)
        c.update(8, False)
        c.lookup(8)
        c.reset()
    trace = read_trace(path)
    assert trace.structure == "capri_capt" and trace.params == p
    assert len(trace.cycles) == 4
    fresh = Capt(p)
    assert [fresh.step(ops) for ops, _ in trace.cycles] == [o for _, o in trace.cycles]


def test_a_recorder_forces_the_checks():
    rec = TraceRecorder(io.StringIO(), "capri_capt", CaptParams())
    Capt(check=False).step(CaptOps(lookup_pc=1 << 40))
    with pytest.raises(SimtlabError):
        Capt(check=False, recorder=rec).step(CaptOps(lookup_pc=1 << 40))
