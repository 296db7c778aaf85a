# amaranth: UnusedElaboratable=no
"""DARSIE PC skip table: golden model on hand-worked cases, RTL vs golden in amaranth.sim.

Long random runs and trace replay are in tb/darsie/test_skip_table.py (cocotb).
"""

from __future__ import annotations

import random

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.darsie.skip_table import SkipOp, SkipTable, SkipTableOps, SkipTableParams
from rtl.darsie.skip_table import SkipTable as SkipTableRTL
from tb.darsie.amaranth_sim import check_against_golden
from tb.darsie.stimulus import directed_skip_table, random_skip_table

SEED = 20240701
SMALL = SkipTableParams(tbs=2, entries=4, warps=4, pc_width=8)
ODD = SkipTableParams(tbs=3, entries=3, warps=3, pc_width=6)


def test_paper_defaults_and_bits():
    p = SkipTableParams()
    assert (p.tbs, p.entries, p.warps, p.pc_width) == (32, 8, 32, 48)
    # 82 paper bits + the Sync bit the RTL needs; 256 entries.
    assert p.bits_per_entry == 83 and p.tbs * p.entries == 256
    assert 82 * 256 == 20992 and 20992 // 8 == 2624


def test_fig5_leader_follower_flow():
    t = SkipTable(SMALL)
    assert not t.probe(0, 0x10).hit                            # no entry: W0 becomes leader
    out = t.alloc(0, 0x10, leader=0, is_load=True)
    assert (out.alloc_index, out.alloc_hit, out.alloc_evict) == (0, 0, 0)
    r = t.probe(0, 0x10)
    assert r.hit and r.mask == 0b0001 and r.is_load and not r.leader_wb and not r.sync
    t.leader_wb(0, 0)
    assert t.probe(0, 0x10).leader_wb
    assert t.arrive(0, 0, 1) == (0b0011, False)
    assert t.arrive(0, 0, 2) == (0b0111, False)
    assert t.arrive(0, 0, 3) == (0b1111, True)                 # last follower frees the entry
    assert not t.probe(0, 0x10).hit and t.entries_of(0) == {}


def test_majority_mask_and_sync():
    t = SkipTable(SMALL)
    assert t.majority(1) == 0b1111
    t.set_majority(1, 0b0101)                                  # warps 1 and 3 left the path
    t.alloc(1, 0x20, leader=0, sync=True)
    assert t.probe(1, 0x20).sync
    assert t.arrive(1, 0, 2) == (0b0101, True)                 # every majority warp arrived
    t.flush_tb(1)
    assert t.majority(1) == 0b1111


def test_full_bank_evicts_lru_and_store_removes_loads():
    t = SkipTable(SMALL)
    for i in range(4):
        t.alloc(0, 8 * (i + 1), leader=0, is_load=bool(i % 2))
    t.alloc(1, 0x40, leader=0, is_load=True)
    assert t.full(0) and not t.full(1)
    t.probe(0, 8)                                              # entry 0 becomes MRU
    out = t.alloc(0, 0x80, leader=1)
    assert out.alloc_evict and out.alloc_evict_pc == 16 and out.alloc_index == 1
    assert out.alloc_evict_mask == 0b0001
    t.store(0)                                                 # loads of TB 0 only
    assert sorted(e.pc for e in t.entries_of(0).values()) == [8, 24, 0x80]
    assert 0 in t.entries_of(1)
    t.global_atomic()
    assert t.entries_of(1) == {}


def test_alloc_of_present_pc_changes_nothing():
    t = SkipTable(SMALL)
    t.alloc(0, 8, leader=0)
    t.arrive(0, 0, 1)
    out = t.alloc(0, 8, leader=2, is_load=True)
    assert out.alloc_hit and t.entries_of(0)[0].mask == 0b0011 and not t.entries_of(0)[0].is_load


def test_recorder_sees_per_event_calls(tmp_path):
    from golden.structures.trace import TraceRecorder, read_trace

    path = tmp_path / "skip.jsonl"
    with TraceRecorder.open(path, "skip_table", SMALL, meta={"test": 1}) as rec:
        t = SkipTable(SMALL, recorder=rec)
        t.alloc(0, 8, leader=0)
        t.probe(0, 8)
        t.store(0)
    trace = read_trace(path)
    assert trace.params == SMALL and trace.meta == {"test": 1} and len(trace.cycles) == 3
    assert trace.cycles[1][0] == SkipTableOps(rd0_en=1, rd0_pc=8) and trace.cycles[1][1].rd0_hit


def test_golden_rejects_bad_arguments():
    with pytest.raises(ConfigError):
        SkipTableParams(entries=1)
    with pytest.raises(ConfigError):
        SkipTableParams(warps=0)
    t = SkipTable(SMALL)
    with pytest.raises(SimtlabError):
        t.probe(0, 1 << 8)
    with pytest.raises(SimtlabError):
        t.step(SkipTableOps(wr_op=SkipOp.ALLOC, wr_warp=4))      # fits the port, no such warp
    with pytest.raises(SimtlabError):
        t.majority(2)


def test_rtl_rejects_bad_parameters():
    with pytest.raises(TypeError):
        SkipTableRTL(entries=4.0)
    with pytest.raises(ValueError):
        SkipTableRTL(entries=1)
    dut = SkipTableRTL(tbs=3, entries=3, warps=3, pc_width=6)
    assert (dut.tbs, dut.entries, dut.warps, dut.pc_width) == (3, 3, 3, 6)
    assert len(dut.rd0_tb) == 2 and len(dut.rd1_mask) == 3 and len(dut.wr_op.as_value()) == 3


@pytest.mark.parametrize("params", [SMALL, ODD], ids=["small", "odd"])
def test_rtl_directed_matches_golden(params):
    # One simulation for all scenarios back to back (the cocotb bench resets between them).
    ops = [op for _, seq in directed_skip_table(params) for op in seq]
    check_against_golden("skip_table", params, ops, "directed scenarios")


def test_rtl_random_matches_golden():
    print(f"seed {SEED}")
    ops = random_skip_table(SMALL, random.Random(SEED), 250)
    check_against_golden("skip_table", SMALL, ops, f"random seed {SEED}")


def test_unchecked_table_skips_range_checks_unless_recording():
    """check=False (the timing mechanism's in-range requests) behaves identically on valid
    transactions; a recorder (trace for RTL replay) turns the checks back on."""
    rng = random.Random(SEED)
    a, b = SkipTable(SMALL), SkipTable(SMALL, check=False)
    for _ in range(300):
        ops = SkipTableOps(rd0_en=1, rd0_tb=rng.randrange(2), rd0_pc=rng.randrange(16),
                           wr_op=rng.choice(list(SkipOp)), wr_tb=rng.randrange(2),
                           wr_pc=rng.randrange(16), wr_index=rng.randrange(4), wr_warp=rng.randrange(4))
        assert a.step(ops) == b.step(ops)
    recorded = SkipTable(SMALL, check=False, recorder=lambda *args, **kw: None)
    with pytest.raises(SimtlabError):
        recorded.probe(0, 1 << 8)
