"""Stimulus for the CAPRI structures (seed 004): directed scenarios, seeded random
traffic and coverage counters for the CAPT and the warp compaction unit (WCU).

Shared by the amaranth.sim tests (tests/rtl/test_capri_rtl.py) and the cocotb benches
(tb/capri/test_*.py).

The CAPT generator behaves like the mechanism: divergent warps look up (and allocate)
branch PCs drawn from a working set somewhat larger than the table, so lookups hit, miss
and evict; the WCU's outcome comes back as an update of a branch looked up a few cycles
earlier (sometimes evicted since), each branch with its own bias towards adequate or
inadequate so the histories move and saturate; the kernel-end flush comes now and then.
It mixes in same-cycle combinations (lookup + update of the same or another branch,
flush + allocation, lookups without allocation) and PCs that differ in one bit, 0 and
all ones.

The WCU generator draws CTAs of 1..warps warps (the rest 0) whose warps are full, empty,
single-lane, half, complementary to a neighbour or random at several densities, and a
UMask that is random, all active warps, none, or the warps that diverged (as the
mechanism builds it); the Fig. 7/8 CTA of paper-facts §7.3 is a directed case.
"""

from __future__ import annotations

import random
from collections import Counter

from golden.structures.capri import CaptOps, CaptParams, Wcu, WcuOps, WcuParams

__all__ = ["capt_directed", "capt_random_ops", "capt_count_events", "capt_goals",
           "wcu_directed", "wcu_random_ops", "wcu_count_events", "wcu_goals", "fig7_ops"]


# =========================================================================== CAPT

def _lk(pc: int, alloc: int = 1, **kw) -> CaptOps:
    return CaptOps(lookup_en=1, lookup_pc=pc, alloc_en=alloc, **kw)


def _up(pc: int, adequate: int, **kw) -> CaptOps:
    return CaptOps(update_en=1, update_pc=pc, update_adequate=adequate, **kw)


FLUSH = CaptOps(flush=1)
IDLE = CaptOps()


def capt_goals(p: CaptParams) -> dict:
    """Coverage goals of one random CAPT run."""
    goals = {"hit": 300, "miss_alloc": 150, "alloc_free": 20, "evict": 60,
             "predict_stall_hit": 100, "update_hit": 200, "update_miss": 10,
             "update_adequate": 100, "update_inadequate": 100, "flush": 3,
             "flush_with_alloc": 1, "lookup_no_alloc_miss": 5, "lookup_and_update": 50,
             "lookup_update_same_pc": 5, "evict_pc_max": 1}
    if p.policy != "1bS":
        goals["predict_bypass"] = 50
    if p.policy == "2bit":
        goals.update(history_3=30, history_0=20, history_1=20)
    return goals


def capt_directed(p: CaptParams) -> list[tuple[str, list[CaptOps]]]:
    """Fill and LRU eviction order, touch on hit, the policy's history walk (including
    2-bit saturation both ways), flush (then allocation restarts at entry 0), same-cycle
    combinations, and the Fig. 7/8 branch (miss -> stall, inadequate -> bypass)."""
    n = p.entries
    top = (1 << p.pc_bits) - 1
    pcs = [(8 * (i + 1)) & top for i in range(n)]
    fill = [_lk(pc) for pc in pcs]
    # touch every other entry, then allocate n/2 new PCs: the untouched ones go first
    lru = fill + [_lk(pc) for pc in pcs[::2]] + [_lk((0x1000 + 8 * i) & top)
                                                for i in range(n // 2 + 1)]
    lru += [_lk(pc, alloc=0) for pc in pcs]
    b = 0x40 & top
    walk = [_lk(b)] + [_up(b, a) for a in (1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 1)]
    walk = [x for op in walk for x in (op, _lk(b, alloc=0))]
    flush = fill + [FLUSH] + [_lk(pc, alloc=0) for pc in pcs[:2]] + [_lk(top), _lk(0),
                                                                      _up(top, 0), _lk(top)]
    same = [_lk(b), _lk(b, update_en=1, update_pc=b, update_adequate=0), _lk(b, alloc=0),
            _lk(b ^ 8, update_en=1, update_pc=b ^ 8, update_adequate=0),   # miss + absent
            _lk(b ^ 16, flush=1), _lk(b, alloc=0), _lk(b ^ 16, alloc=0),    # flush + alloc
            _up(b ^ 16, 0, lookup_en=1, lookup_pc=b ^ 16), _lk(b ^ 16, alloc=0)]
    # evict the entry being updated in the same cycle (the allocation wins)
    victim = fill + [_lk(0x2000 & top, update_en=1, update_pc=pcs[0], update_adequate=0),
                     _lk(0x2000 & top, alloc=0), _lk(pcs[0], alloc=0)]
    near = [_lk(top), _lk(top ^ 1), _lk(top ^ (1 << (p.pc_bits - 1))), _lk(0), _lk(1),
            _lk(top, alloc=0), _lk(top ^ 1, alloc=0)]
    fig7 = [_lk(b), _lk(b), _up(b, 0), _lk(b), _up(b, 1), _lk(b)]
    return [("fill_and_lru", lru), ("policy_walk", walk), ("flush", flush),
            ("same_cycle", same), ("evict_updated_entry", victim), ("near_tags", near),
            ("fig7_branch", fig7)]


def capt_random_ops(p: CaptParams, rng: random.Random, cycles: int) -> list[CaptOps]:
    """Mechanism-like CAPT traffic (module docstring)."""
    top = (1 << p.pc_bits) - 1
    n_pcs = max(3, p.entries + p.entries // 2 + 1)
    base = [rng.randrange(0, top + 1) & ~7 & top for _ in range(n_pcs)]
    base[-1], base[1] = top, 0                           # all ones is a cold branch
    base[2] = base[0] ^ 8
    pcs = list(dict.fromkeys(base))
    bias = {pc: (0.1, 0.9, 0.5, 0.97)[i % 4] for i, pc in enumerate(pcs)}
    hot = pcs[:max(2, p.entries // 2)]                   # the loop's branches
    pending: list[int] = []
    out = []
    for _ in range(cycles):
        r = rng.random()
        kw: dict = {}
        if r < 0.6:
            pc = rng.choice(hot) if rng.random() < 0.6 else rng.choice(pcs)
            kw.update(lookup_en=1, lookup_pc=pc, alloc_en=int(rng.random() < 0.95))
            pending.append(pc)
        if pending and (r >= 0.6 or rng.random() < 0.2):
            pc = pending.pop(rng.randrange(len(pending))) if rng.random() < 0.9 \
                else rng.choice(pcs)
            kw.update(update_en=1, update_pc=pc, update_adequate=int(rng.random() < bias[pc]))
        if rng.random() < 0.005:
            kw["flush"] = 1
            pending.clear()
            if not kw.get("lookup_en") and rng.random() < 0.7:   # a new kernel's branch
                kw.update(lookup_en=1, lookup_pc=rng.randrange(top + 1), alloc_en=1)
        del pending[:-8]
        out.append(CaptOps(**kw))
    return out


def capt_count_events(p: CaptParams):
    """Per-cycle coverage counter (expected outputs, ops, counter)."""
    top = (1 << p.pc_bits) - 1

    def count(expected, ops: CaptOps, cov: Counter) -> None:
        if ops.lookup_en:
            if expected.hit:
                cov["hit"] += 1
                cov["predict_stall_hit"] += expected.predict_adequate
                cov["predict_bypass"] += not expected.predict_adequate
                cov[f"history_{expected.hit_history}"] += 1
            elif expected.alloc:
                cov["miss_alloc"] += 1
                cov["alloc_free"] += not expected.evict
                cov["evict"] += expected.evict
                cov["evict_pc_max"] += expected.evict and expected.evict_pc == top
                cov["flush_with_alloc"] += ops.flush
            else:
                cov["lookup_no_alloc_miss"] += 1
            if ops.update_en:
                cov["lookup_and_update"] += 1
                cov["lookup_update_same_pc"] += ops.update_pc == ops.lookup_pc
        if ops.update_en:
            cov["update_hit" if expected.update_hit else "update_miss"] += 1
            cov["update_adequate" if ops.update_adequate else "update_inadequate"] += 1
        cov["flush"] += ops.flush

    return count


# =========================================================================== WCU

def fig7_ops(p: WcuParams) -> WcuOps | None:
    """The Fig. 7/8 CTA of paper-facts §7.3 in the first 3 warps x 4 lanes (None if the
    WCU is smaller): W0 = 0123 (UMask 0), W1 = 4xx7, W2 = 89xx (UMask 1)."""
    if p.warps < 3 or p.lanes < 4:
        return None
    return WcuOps(mask=Wcu(p).pack([0b1111, 0b1001, 0b0011]), umask=0b110)


def wcu_goals(p: WcuParams) -> dict:
    """Coverage goals of one random WCU run."""
    goals = {"adequate": 300, "inadequate": 300, "empty_path": 10, "umask_none": 30,
             "umask_all_active": 100, "umask_partial": 200, "n_formed_max": 5,
             "n_formed_1": 50, "max_lane_full": 20, "compaction_saves": 200,
             "compaction_saves_nothing": 200, "bypassed_warp_active": 200,
             "single_warp_cta": 20, "full_cta": 100}
    if p.warps == 1:
        for k in ("adequate", "compaction_saves", "umask_partial"):
            goals.pop(k)
    return goals


def _warp_mask(p: WcuParams, rng: random.Random, prev: int) -> int:
    full = (1 << p.lanes) - 1
    r = rng.random()
    if r < 0.2:
        return full
    if r < 0.3:
        return 0
    if r < 0.4:
        return 1 << rng.randrange(p.lanes)
    if r < 0.5:
        half = (1 << (p.lanes // 2)) - 1 if p.lanes > 1 else 1
        return half if rng.random() < 0.5 else full & ~half
    if r < 0.6:
        return full & ~prev
    density = rng.choice((0.1, 0.3, 0.5, 0.8, 0.95))
    return sum(1 << lane for lane in range(p.lanes) if rng.random() < density)


def wcu_random_ops(p: WcuParams, rng: random.Random, cycles: int) -> list[WcuOps]:
    """Random CTA paths and UMasks (module docstring)."""
    wcu = Wcu(p)
    full = (1 << p.lanes) - 1
    out = []
    for _ in range(cycles):
        dense = rng.random() < 0.1                   # nearly every thread on the path
        n = p.warps if dense or rng.random() < 0.4 else rng.randint(1, p.warps)
        masks, prev = [], 0
        for _ in range(n):
            prev = (full if rng.random() < 0.7 else _warp_mask(p, rng, prev)) if dense \
                else _warp_mask(p, rng, prev)
            masks.append(prev)
        if rng.random() < 0.01:                      # an empty path
            masks = []
        active = sum(1 << w for w, mk in enumerate(masks) if mk)
        r = rng.random()
        if r < 0.3:                          # the warps that diverged stall (CAPT: adequate)
            umask = sum(1 << w for w, mk in enumerate(masks) if mk and mk != full)
        elif r < 0.45:
            umask = active
        elif r < 0.55:
            umask = 0
        elif r < 0.65:
            umask = (1 << p.warps) - 1
        else:
            umask = rng.randrange(1 << p.warps)
        out.append(WcuOps(mask=wcu.pack(masks), umask=umask))
    return out


def wcu_directed(p: WcuParams) -> list[tuple[str, list[WcuOps]]]:
    """Fig. 7/8, a full CTA (nothing to compact), one thread per warp in distinct lanes
    (compacts to one warp), every warp in the same lane, complementary halves, an empty
    path, UMask none / all, and a staircase (warp w active in lanes >= w)."""
    wcu = Wcu(p)
    W, L = p.warps, p.lanes
    full = (1 << L) - 1
    allw = (1 << W) - 1
    pack = wcu.pack
    cases = []
    f7 = fig7_ops(p)
    if f7 is not None:
        cases.append(("fig7_8", [f7, WcuOps(mask=f7.mask, umask=0b111),
                                 WcuOps(mask=f7.mask, umask=0)]))
    cases.append(("full_cta", [WcuOps(mask=pack([full] * W), umask=allw),
                               WcuOps(mask=pack([full] * W), umask=0)]))
    diag = pack([1 << (w % L) for w in range(W)])
    cases.append(("one_thread_per_warp", [WcuOps(mask=diag, umask=allw),
                                          WcuOps(mask=diag, umask=allw & ~1)]))
    cases.append(("same_lane", [WcuOps(mask=pack([1 << (L - 1)] * W), umask=allw)]))
    half = (1 << (L // 2)) - 1 if L > 1 else 1
    comp = pack([half if w % 2 == 0 else full & ~half for w in range(W)])
    cases.append(("complementary_halves", [WcuOps(mask=comp, umask=allw),
                                           WcuOps(mask=comp, umask=0b10 & allw)]))
    cases.append(("empty_path", [WcuOps(), WcuOps(umask=allw)]))
    stair = pack([full & ~((1 << min(w, L)) - 1) for w in range(W)])
    cases.append(("staircase", [WcuOps(mask=stair, umask=allw),
                                WcuOps(mask=stair, umask=allw & 0x5555_5555_5555_5555)]))
    return cases


def wcu_count_events(p: WcuParams):
    """Per-evaluation coverage counter (expected outputs, ops, counter)."""
    lane_mask = (1 << p.lanes) - 1
    allw = (1 << p.warps) - 1

    def count(expected, ops: WcuOps, cov: Counter) -> None:
        rows = [(ops.mask >> (w * p.lanes)) & lane_mask for w in range(p.warps)]
        active = sum(1 << w for w, r in enumerate(rows) if r)
        stalled = (ops.umask & active).bit_count()
        cov["adequate" if expected.adequate else "inadequate"] += 1
        cov["empty_path"] += expected.n_active_warps == 0
        if active:
            cov["umask_none"] += ops.umask & active == 0
            cov["umask_all_active"] += ops.umask & active == active
            cov["umask_partial"] += 0 < stalled < active.bit_count()
            cov["bypassed_warp_active"] += active & ~ops.umask & allw != 0
        cov["n_formed_max"] += expected.n_formed == p.warps
        cov["n_formed_1"] += expected.n_formed == 1
        cov["max_lane_full"] += expected.max_lane_count == p.warps
        if stalled:
            cov["compaction_saves"] += expected.n_formed < stalled
            cov["compaction_saves_nothing"] += expected.n_formed == stalled
        cov["single_warp_cta"] += active.bit_count() == 1
        cov["full_cta"] += active == allw

    return count
