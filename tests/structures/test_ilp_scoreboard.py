"""Golden many-thread-aware scoreboard (seed 002 §4.4.2): the chapter's two test sequences,
commit order, stores, the full board, and invariants under random traffic."""

import random

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.ilp import Scoreboard, ScoreboardOps, ScoreboardParams

FULL = (1 << 32) - 1


def alloc(sb, warp, reg, mask=FULL, store=0):
    out = sb.step(ScoreboardOps(al_en=1, al_warp=warp, al_reg=reg, al_mask=mask, al_store=store))
    return out.al_idx if out.al_ok else None


def writeback(sb, idx, lanes=FULL, value=0):
    data = 0
    for i in range(32):
        data |= (value + i) << (32 * i)
    return sb.step(ScoreboardOps(wb_en=1, wb_idx=idx, wb_lanes=lanes, wb_data=data))


def lookup(sb, *regs):
    ops = ScoreboardOps(src_en=(1 << len(regs)) - 1, **{f"src{i}": r for i, r in enumerate(regs)})
    return sb.step(ops)


def test_paper_sizes():
    p = ScoreboardParams()
    assert (p.entries, p.reg_width, p.ptr_width) == (8, 9, 3)
    assert p.tag_bits == 10 and p.data_store_bits == 1 + 32 + 32 + 1024 + 3
    assert p.entries * p.data_store_bits // 8 == 1092  # 1,092 B data store


def test_chapter_sequence_stall_on_use():
    """A: load r1 (misses); B: add r2; C: load r3, r2; D: add -, r1 (§4.4.2).

    B issues behind the outstanding load; C reads r2 from the scoreboard once B completes;
    D stalls on r1 (hit, not complete): stall-on-use, not stall-on-miss.
    """
    sb = Scoreboard()
    w, r1, r2, r3 = 0, 1, 2, 3
    a = alloc(sb, w, r1)                      # A issues, its load misses
    out = lookup(sb, r2)                      # B's sources are free of pending writes
    assert out.src_hit == 0
    b = alloc(sb, w, r2)                      # B issues although A is outstanding
    writeback(sb, b, value=100)               # B (8-cycle ALU) completes
    out = lookup(sb, r2)                      # C's source r2
    assert out.src_hit == 1 and out.src_done == 1 and out.src0_idx == b   # read from the board
    c = alloc(sb, w, r3)
    out = sb.step(ScoreboardOps(rd_en=1, rd_idx=b))
    assert sb.step(ScoreboardOps()).rd_data & FULL == 100 and out is not None
    out = lookup(sb, r1)                      # D uses r1: A still outstanding
    assert out.src_hit == 1 and out.src_done == 0 and out.src0_idx == a   # D stalls
    assert sb.entries_of(w) == [a, b, c]
    # B is complete but cannot commit before A (in-order commit)
    assert sb.step(ScoreboardOps(cm_en=1, cm_warp=w)).cm_ok == 0
    writeback(sb, a, value=7)                 # the miss returns
    assert lookup(sb, r1).src_done == 1       # D becomes ready
    first = sb.step(ScoreboardOps(cm_en=1, cm_warp=w))
    second = sb.step(ScoreboardOps(cm_en=1, cm_warp=w))
    assert (first.cm_ok, first.cm_idx, first.cm_reg, first.cm_write) == (1, a, r1, 1)
    assert (second.cm_ok, second.cm_idx, second.cm_reg) == (1, b, r2)
    assert second.cm_data & FULL == 7 and second.cm_lanes == FULL   # A's data, one cycle later
    assert sb.entries_of(w) == [c]


def test_chapter_sequence_waw():
    """A: load r1; B: add r1; C: add -, r1. B clears A's NM bit, so C matches only B."""
    sb = Scoreboard()
    a = alloc(sb, 0, 1)
    out = sb.step(ScoreboardOps(dst=1, dst_mask=FULL))
    assert out.dst_hit == 1 and out.dst_idx == a and out.dst_cover == 1
    b = alloc(sb, 0, 1)
    assert sb.nm[a] == 0 and sb.nm[b] == 1
    out = lookup(sb, 1)
    assert out.src_hit == 1 and out.src0_idx == b and out.src_done == 0
    writeback(sb, b)
    assert lookup(sb, 1).src_done == 1       # C is ready although A is still outstanding


def test_waw_needs_a_superset_mask():
    sb = Scoreboard()
    alloc(sb, 0, 5, mask=0x0000FFFF)
    assert sb.step(ScoreboardOps(dst=5, dst_mask=0x000000FF)).dst_cover == 0
    assert sb.step(ScoreboardOps(dst=5, dst_mask=0x0000FFFF)).dst_cover == 1
    assert sb.step(ScoreboardOps(dst=5, dst_mask=FULL)).dst_cover == 1
    assert sb.step(ScoreboardOps(dst=6, dst_mask=0)).dst_cover == 1   # no older definition


def test_divergent_completion_counts_active_lanes_only():
    sb = Scoreboard()
    e = alloc(sb, 3, 9, mask=0b1111)
    writeback(sb, e, lanes=0b0011)
    assert lookup(sb, 9).src_done == 0
    writeback(sb, e, lanes=0b1100 | (1 << 20))  # lane 20 is inactive: not in the status mask
    assert lookup(sb, 9).src_done == 1 and sb.status[e] == 0b1111


def test_store_issues_only_as_oldest_and_blocks_until_commit():
    sb = Scoreboard()
    alloc(sb, 1, 4)
    assert alloc(sb, 1, 0, store=1) is None                  # the warp is in-board: refused
    sb.step(ScoreboardOps(wb_en=1, wb_idx=0, wb_lanes=FULL))
    assert sb.step(ScoreboardOps(cm_en=1, cm_warp=1)).cm_ok == 1
    s = alloc(sb, 1, 0, store=1)
    assert s is not None and sb.in_store[1] == 1 and sb.nm[s] == 0
    assert sb.step(ScoreboardOps(q_warp=1)).q_in_store == 1
    e = alloc(sb, 1, 8)                                       # independent ALU may follow
    assert lookup(sb, 0).src_hit == 0                         # a store is never matched
    writeback(sb, s)
    out = sb.step(ScoreboardOps(cm_en=1, cm_warp=1))
    assert (out.cm_ok, out.cm_idx, out.cm_write) == (1, s, 0) and sb.in_store[1] == 0
    assert sb.entries_of(1) == [e]


def test_full_board_refuses_allocation_and_frees_on_commit():
    sb = Scoreboard(ScoreboardParams(entries=4, warps=4))
    got = [alloc(sb, w % 4, 10 + w) for w in range(4)]
    assert got == [0, 1, 2, 3] and sb.step(ScoreboardOps()).full == 1
    assert alloc(sb, 0, 30) is None
    writeback(sb, 2)
    out = sb.step(ScoreboardOps(cm_en=1, cm_warp=2, al_en=1, al_warp=0, al_reg=31, al_mask=FULL))
    assert out.cm_ok == 1 and out.al_ok == 0        # the entry freed this cycle is not reused yet
    assert alloc(sb, 0, 31) == 2


def test_commit_and_append_in_one_cycle_keep_the_list():
    sb = Scoreboard()
    e = alloc(sb, 0, 1)
    writeback(sb, e)
    out = sb.step(ScoreboardOps(cm_en=1, cm_warp=0, al_en=1, al_warp=0, al_reg=2, al_mask=FULL))
    assert out.cm_ok and out.al_ok
    assert sb.in_board[0] == 1 and sb.entries_of(0) == [out.al_idx]


def test_bad_requests_are_clear_errors():
    sb = Scoreboard(ScoreboardParams(entries=4, warps=6))
    with pytest.raises(SimtlabError, match="al_warp 6 out of range"):
        sb.step(ScoreboardOps(al_en=1, al_warp=6))
    with pytest.raises(SimtlabError, match="src0 .* does not fit in 9 bits"):
        sb.step(ScoreboardOps(src0=512))
    with pytest.raises(ConfigError, match="entries"):
        ScoreboardParams(entries=1)


@pytest.mark.parametrize("seed", range(4))
def test_invariants_under_random_traffic(seed):
    """Per-warp lists partition the used entries; at most one matchable entry per register;
    commits come out in allocation order per warp."""
    rng = random.Random(seed)
    p = ScoreboardParams(entries=8, warps=4, lanes=4, reg_width=3)
    sb = Scoreboard(p)
    order = {w: [] for w in range(p.warps)}
    for _ in range(3000):
        ops = ScoreboardOps(
            cm_en=rng.random() < 0.5, cm_warp=rng.randrange(p.warps),
            wb_en=rng.random() < 0.6, wb_idx=rng.randrange(p.entries),
            wb_lanes=rng.randrange(16), wb_data=rng.getrandbits(128),
            al_en=rng.random() < 0.5, al_warp=rng.randrange(p.warps), al_reg=rng.randrange(8),
            al_mask=rng.choice([15, 15, 3, 12, 0]), al_store=int(rng.random() < 0.1))
        ops = ScoreboardOps(**{k: int(v) if isinstance(v, bool) else v for k, v in ops.__dict__.items()})
        out = sb.step(ops)
        if out.cm_ok:
            assert order[ops.cm_warp].pop(0) == out.cm_idx
        if out.al_ok:
            order[ops.al_warp].append(out.al_idx)
        lists = [sb.entries_of(w) for w in range(p.warps)]
        assert lists == [order[w] for w in range(p.warps)]
        used = sorted(i for lst in lists for i in lst)
        assert used == [i for i in range(p.entries) if sb.used[i]]
        live = [sb.reg[i] for i in range(p.entries) if sb.used[i] and sb.nm[i]]
        assert len(live) == len(set(live))


def _cam_scan(sb, reg):
    """match() as the CAM defines it: the valid entry with NM = 1 holding ``reg``."""
    hits = [i for i in range(sb.params.entries) if sb.used[i] and sb.nm[i] and sb.reg[i] == reg]
    assert len(hits) <= 1
    return hits[0] if hits else None


def _state(sb):
    return (sb.used, sb.reg, sb.nm, sb.done, sb.active, sb.status, sb.next, sb.data,
            sb.head, sb.tail, sb.in_board, sb.in_store, sb._rd, sb._cm, len(sb),
            sb.free_entries)


@pytest.mark.parametrize("seed", range(4))
def test_one_request_cycles_equal_step(seed):
    """allocate / writeback / commit (the timing mechanism's path without a trace) change
    the state exactly as step() with that one request, and match() (a tag map) agrees with
    a scan of the CAM after every cycle."""
    rng = random.Random(seed)
    p = ScoreboardParams(entries=8, warps=4, lanes=4, reg_width=3)
    fast, ref = Scoreboard(p, check=False), Scoreboard(p)
    for _ in range(4000):
        kind = rng.choice(["al", "al", "wb", "cm", "rd"])
        if kind == "al":
            w, reg = rng.randrange(p.warps), rng.randrange(8)
            mask, store = rng.choice([15, 15, 3, 12, 0]), int(rng.random() < 0.1)
            out = ref.step(ScoreboardOps(al_en=1, al_warp=w, al_reg=reg, al_mask=mask,
                                         al_store=store))
            assert fast.allocate(w, reg, mask, store) == (out.al_idx if out.al_ok else None)
        elif kind == "wb":
            e, lanes, data = rng.randrange(p.entries), rng.randrange(16), rng.getrandbits(128)
            ref.step(ScoreboardOps(wb_en=1, wb_idx=e, wb_lanes=lanes, wb_data=data))
            fast.writeback(e, lanes, data)
        elif kind == "cm":
            w = rng.randrange(p.warps)
            out = ref.step(ScoreboardOps(cm_en=1, cm_warp=w))
            assert fast.commit(w) == bool(out.cm_ok)
        else:  # a registered read: both structures answer alike next cycle
            e = rng.randrange(p.entries)
            ref.step(ScoreboardOps(rd_en=1, rd_idx=e))
            fast.step(ScoreboardOps(rd_en=1, rd_idx=e))
        assert _state(fast) == _state(ref)
        for reg in range(8):
            assert fast.match(reg) == _cam_scan(fast, reg) == ref.match(reg)


def test_one_request_cycles_keep_the_range_checks():
    """A checked scoreboard runs the one-request cycles through step(), so a bad request is
    the same clear error as there."""
    p = ScoreboardParams(entries=8, warps=4, lanes=4, reg_width=3)
    sb = Scoreboard(p)
    with pytest.raises(SimtlabError, match="al_warp"):
        sb.allocate(p.warps, 0, 15)
    with pytest.raises(SimtlabError, match="wb_idx"):
        sb.writeback(p.entries, 15)
    with pytest.raises(SimtlabError, match="cm_warp"):
        sb.commit(p.warps)
