"""The paper's 21-bit rename/version organisation vs our per-warp rename table (issue 69
item 4; seed 000 §4.3.1, §4.3.5, §6.3, Fig. 5; docs/darsie-state-budget.md)."""

import pytest

from golden.errors import SimtlabError
from golden.structures.darsie.rename_table import RenameTable, RenameTableParams

R1 = 1
W0, W1, W2 = 0, 1, 2


def _tables(warps=3):
    full = RenameTable(RenameTableParams(warps=warps, entries=4))
    paper = RenameTable(RenameTableParams(warps=warps, entries=4, per_warp_versions=False))
    return full, paper


def test_storage_bits_paper_organisation_is_tag_plus_one_version():
    assert RenameTableParams().storage_bits == 32 * (8 + 32 * 6) == 6400
    # + the version table's 8-bit physical tag = the paper's 21 bits x 32 entries
    assert RenameTableParams(per_warp_versions=False).storage_bits == 32 * (8 + 5)


def test_per_warp_versions_must_be_bool():
    with pytest.raises(SimtlabError, match="per_warp_versions"):
        RenameTableParams(per_warp_versions=1)


def test_fig5_warp_pace_is_mis_tracked_by_the_21_bit_organisation():
    """Fig. 5, TB of 3 warps: PC0 LD R1 (redundant), PC1 ADD R2,R1,ty (vector),
    PC2 ADD R1,R1,4 (redundant)."""
    full, paper = _tables()
    for t in (full, paper):
        t.set(W0, R1, 1)          # T1: W0 leads PC0, R1(v1)
        t.set(W1, R1, 1)          # T2: W1 skips PC0
        t.set(W0, R1, 2)          # T3: W0 leads PC2, R1(v2)
    # T4 before W2 skips: W1 must read v1 at PC1; W2 has not reached PC0 (private R1)
    assert full.lookup(W1, R1) == 1 and full.lookup(W2, R1) is None
    assert full.lookup(W0, R1) == 2
    assert paper.lookup(W1, R1) == 2           # wrong: W1 has not executed PC2
    assert paper.lookup(W2, R1) == 2           # wrong: W2 has not executed PC0
    # T4: W2 skips PC0 and reads R1 for PC1
    for t in (full, paper):
        t.set(W2, R1, 1)
    assert full.lookup(W2, R1) == 1 and full.lookup(W0, R1) == 2
    assert paper.lookup(W0, R1) == 1           # wrong: W0's v2 was overwritten
    # T4/T5: W2 then W1 skip PC2; only the full table sees v1 become dead at W1's skip
    assert full.set(W2, R1, 2).old_shared is True      # W1 still reads v1
    last = full.set(W1, R1, 2)
    assert (last.old_valid, last.old_version, last.old_shared) == (True, 1, False)
    paper.set(W2, R1, 2)
    wrong = paper.set(W1, R1, 2)                       # cannot name v1, let alone free it
    assert (wrong.old_version, wrong.old_shared) == (2, True)


def test_lockstep_pace_is_tracked_identically_by_both_organisations():
    """Where every warp reaches each redundant write before any warp reads (a TB
    synchronisation at each write), the 21-bit organisation gives the same answers."""
    full, paper = _tables(warps=4)
    for version in (1, 2, 3):
        for w in range(4):
            full.set(w, R1, version)
            paper.set(w, R1, version)
        for w in range(4):
            assert full.lookup(w, R1) == paper.lookup(w, R1) == version


def test_leaving_the_majority_path_cannot_be_recorded_per_warp():
    full, paper = _tables()
    for t in (full, paper):
        for w in (W0, W1, W2):
            t.set(w, R1, 1)
        t.clear_warp(W2)          # W2 diverged: it must read its private copy again
    assert full.lookup(W2, R1) is None and full.lookup(W0, R1) == 1
    assert paper.lookup(W2, R1) == 1           # no per-warp state to clear




# ---------------------------------------------------------------- skip table, 82 vs 83 bits
from golden.structures.darsie.skip_table import SkipTable, SkipTableParams  # noqa: E402

P = 0x10          # a TB-redundant PC inside a loop body


def _skip_tables():
    small = dict(tbs=1, entries=2, warps=3, pc_width=8)
    return (SkipTable(SkipTableParams(**small)),
            SkipTable(SkipTableParams(**small, sync_bit=False)))


def test_skip_entry_bits_paper_82_vs_ours_83():
    assert SkipTableParams().bits_per_entry == 83
    assert SkipTableParams(sync_bit=False).bits_per_entry == 82
    with pytest.raises(SimtlabError, match="sync_bit"):
        SkipTableParams(sync_bit=0)


def test_loop_pc_next_instance_hits_a_stale_entry_without_the_sync_bit():
    """Iteration i: W0 leads P, W1 and W2 skip it. Ours frees the entry at the last
    arrival, so W0 at P in iteration i+1 misses and leads a new instance; the 82-bit entry
    cannot record the arrivals (its mask must stay empty), so W0 hits the stale entry with
    LeaderWB set and an empty mask: the paper's rule (§4.3.5) lets it skip as a follower
    of iteration i's value."""
    ours, paper = _skip_tables()
    for t in (ours, paper):
        idx = t.alloc(0, P, W0).alloc_index
        t.leader_wb(0, idx)
        t.arrive(0, idx, W1)
    assert ours.arrive(0, 0, W2) == (0b111, True)
    assert paper.arrive(0, 0, W2) == (0, False)          # cannot tell all have skipped
    assert not ours.probe(0, P).hit                        # iteration i+1: new leader
    stale = paper.probe(0, P)
    assert stale.hit and stale.leader_wb and stale.mask == 0   # "skip": stale instance


def test_synchronising_entries_behave_the_same_with_or_without_the_sync_bit():
    ours, paper = _skip_tables()
    for t in (ours, paper):
        idx = t.alloc(0, P, W0, sync=True).alloc_index
        assert t.probe(0, P).sync and t.probe(0, P).mask == 0b001
        assert t.arrive(0, idx, W1) == (0b011, False)
        assert t.arrive(0, idx, W2) == (0b111, True)
        assert not t.probe(0, P).hit
