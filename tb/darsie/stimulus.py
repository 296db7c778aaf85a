"""Stimulus and coverage for the DARSIE structures (plain Python, no simulator needed).

For each structure: ``directed_<name>(params)`` returns named corner-case scenarios (each
from reset), ``random_<name>(params, rng, count)`` returns seeded constrained-random
cycles (a shadow golden instance follows the sequence so that operands can be drawn
from the current contents: probes that hit, arrivals on live entries, frees of
allocated registers...), and ``cover_<name>(params)`` returns a coverage counter function
``(outputs, ops, cov)`` with the goals of a random run in ``<NAME>_GOALS``.

The cocotb testbenches (``tb/darsie/test_*.py``) and the Amaranth unit tests
(``tests/rtl/test_darsie_*.py``) replay the same sequences.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from golden.structures.darsie.coalescer import CoalescerOps, CoalescerOutputs, CoalescerParams
from golden.structures.darsie.phys_freelist import (PhysFreeListOps, PhysFreeListOutputs,
                                                    PhysFreeListParams, PhysRegFreeList)
from golden.structures.darsie.rename_table import (RenameOp, RenameTable, RenameTableOps,
                                                   RenameTableOutputs, RenameTableParams)
from golden.structures.darsie.skip_table import (SkipOp, SkipTable, SkipTableOps,
                                                 SkipTableOutputs, SkipTableParams)
from golden.structures.darsie.version_table import (VersionTable, VersionTableOps,
                                                    VersionTableOutputs, VersionTableParams)

Scenario = tuple[str, list]
Counter_fn = Callable[[object, object, Counter], None]


def _phase(rng: random.Random, phases: dict, state: dict, lo: int, hi: int) -> dict:
    """Pick a new phase every ``lo..hi`` cycles; return its probabilities."""
    if state.get("left", 0) == 0:
        state["name"], state["left"] = rng.choice(list(phases)), rng.randint(lo, hi)
    state["left"] -= 1
    return phases[state["name"]]


# =========================================================================== skip table
def _pc_pool(params: SkipTableParams, rng: random.Random, size: int) -> list[int]:
    top = (1 << params.pc_width) - 1
    pool = {0, top & ~7}
    while len(pool) < size:
        pool.add(rng.randint(0, top) & ~7 if params.pc_width > 3 else rng.randint(0, top))
    return sorted(pool)


def random_skip_table(params: SkipTableParams, rng: random.Random, count: int) -> list[SkipTableOps]:
    """Seeded random cycles: leaders allocate (often into full banks), followers probe and
    arrive on live entries, leaders write back, stores/atomics remove loads, majority masks
    shrink and reset. Few TBs are used at a time so banks fill up."""
    shadow = SkipTable(params)
    pool = _pc_pool(params, rng, 3 * params.entries)
    full_warps = (1 << params.warps) - 1
    tb_top = (1 << params.tb_width) - 1
    hot_tbs = list(range(min(params.tbs, 2)))
    phases = {
        "fill":   dict(alloc=0.5, arrive=0.2, wb=0.1, inv=0.02, flush=0.0, store=0.01, maj=0.02),
        "follow": dict(alloc=0.15, arrive=0.5, wb=0.2, inv=0.02, flush=0.0, store=0.02, maj=0.05),
        "loads":  dict(alloc=0.4, arrive=0.2, wb=0.1, inv=0.0, flush=0.0, store=0.1, maj=0.02),
        "mixed":  dict(alloc=0.3, arrive=0.3, wb=0.1, inv=0.05, flush=0.01, store=0.03, maj=0.05),
    }
    state: dict = {}
    ops_list = []

    def pick_tb() -> int:
        r = rng.random()
        if r < 0.8:
            return rng.choice(hot_tbs)
        if r < 0.95:
            return rng.randrange(params.tbs)
        return rng.randint(0, tb_top)          # may not name a bank (non-power-of-two tbs)

    def live(tb: int) -> dict:
        return shadow.entries_of(tb) if tb < params.tbs else {}

    def probe_pc(tb: int) -> int:
        entries = live(tb)
        if entries and rng.random() < 0.7:
            return rng.choice(list(entries.values())).pc
        return rng.choice(pool)

    for _ in range(count):
        p = _phase(rng, phases, state, 8, 6 * params.entries + 8)
        if rng.random() < 0.02:
            hot_tbs = rng.sample(range(params.tbs), min(params.tbs, 2))
        f = {}
        for k in (0, 1):
            tb = pick_tb()
            f.update({f"rd{k}_en": int(rng.random() < 0.7), f"rd{k}_tb": tb, f"rd{k}_pc": probe_pc(tb)})
        if rng.random() < 0.15:                 # both ports on the same PC of the same TB
            f["rd1_tb"], f["rd1_pc"] = f["rd0_tb"], f["rd0_pc"]
        tb = pick_tb()
        entries = live(tb)
        r = rng.random()
        op = SkipOp.NONE
        index = rng.randrange(1 << params.index_width)
        for name, key in ((SkipOp.ALLOC, "alloc"), (SkipOp.ARRIVE, "arrive"),
                          (SkipOp.LEADER_WB, "wb"), (SkipOp.INVALIDATE, "inv"),
                          (SkipOp.FLUSH_TB, "flush")):
            if r < p[key]:
                op = name
                break
            r -= p[key]
        else:
            if rng.random() < 0.03:
                op = rng.choice((6, 7))         # undefined op codes do nothing
        if op in (SkipOp.ARRIVE, SkipOp.LEADER_WB, SkipOp.INVALIDATE) and entries and rng.random() < 0.85:
            index = rng.choice(list(entries))
        warp = rng.randrange(params.warps)
        if op == SkipOp.ARRIVE and index in entries and rng.random() < 0.6:
            missing = [w for w in range(params.warps) if not entries[index].mask >> w & 1
                       and shadow.majority(tb) >> w & 1]
            if missing:
                warp = rng.choice(missing)
        wr_pc = rng.choice(pool)
        if op == SkipOp.ALLOC and entries and rng.random() < 0.1:
            wr_pc = rng.choice(list(entries.values())).pc   # alloc of a present PC
        maj_mask = full_warps
        rm = rng.random()
        if rm < 0.4 and params.tbs:
            cur = shadow.majority(min(tb, params.tbs - 1))
            maj_mask = cur & ~(1 << rng.randrange(params.warps))
        elif rm < 0.7:
            if params.warps <= 8:
                maj_mask = rng.getrandbits(params.warps)
            else:   # wide TBs (paper: 32 warps): small majorities, so entries complete
                maj_mask = sum(1 << w for w in rng.sample(range(params.warps), rng.randint(1, 4)))
        ops = SkipTableOps(
            wr_op=int(op), wr_tb=tb, wr_index=index, wr_pc=wr_pc, wr_warp=warp,
            wr_is_load=int(rng.random() < 0.4), wr_sync=int(rng.random() < 0.25),
            store_en=int(rng.random() < p["store"]), store_tb=pick_tb(),
            atomic_en=int(rng.random() < p["store"] / 5),
            maj_en=int(rng.random() < p["maj"]), maj_tb=pick_tb(), maj_mask=maj_mask,
            **f)
        shadow.step(ops)
        ops_list.append(ops)
    return ops_list


def directed_skip_table(params: SkipTableParams) -> list[Scenario]:
    """Corner cases: Fig. 5 leader/follower flow, full bank and LRU eviction, store and
    atomic load removal, majority shrink, flush, same-cycle combinations, both ports."""
    n, nw = params.entries, params.warps
    tb1 = 1 % params.tbs
    pcs = [8 * (i + 1) & ((1 << params.pc_width) - 1) for i in range(2 * n + 2)]
    O = SkipTableOps
    A, R, W = SkipOp.ALLOC, SkipOp.ARRIVE, SkipOp.LEADER_WB
    seqs: list[Scenario] = []
    # Fig. 5 walk-through: W0 leads PC0; W1 probes before and after LeaderWB and skips;
    # the last warp's arrival frees the entry.
    flow = [O(rd0_en=1, rd0_pc=pcs[0]), O(wr_op=A, wr_pc=pcs[0], wr_warp=0),
            O(rd0_en=1, rd0_pc=pcs[0]), O(wr_op=W, wr_index=0),
            O(rd0_en=1, rd0_pc=pcs[0], rd1_en=1, rd1_pc=pcs[1])]
    for w in range(1, nw):
        flow += [O(rd0_en=1, rd0_pc=pcs[0]), O(wr_op=R, wr_index=0, wr_warp=w)]
    flow += [O(rd0_en=1, rd0_pc=pcs[0])]
    seqs.append(("fig5_leader_followers", flow))
    # Sync entry: flagged, arrivals accumulate, release when the majority mask is covered.
    seqs.append(("sync_point", [O(wr_op=A, wr_pc=pcs[1], wr_warp=nw - 1, wr_sync=1)]
                 + [O(wr_op=R, wr_index=0, wr_warp=w, rd0_en=1, rd0_pc=pcs[1]) for w in range(nw)]
                 + [O(rd0_en=1, rd0_pc=pcs[1])]))
    # Full bank, reads touch, then allocations evict in LRU order.
    fill = [O(wr_op=A, wr_pc=pcs[i], wr_warp=i % nw, wr_is_load=i % 2) for i in range(n)]
    look = [O(rd0_en=1, rd0_pc=pcs[i], rd1_en=1, rd1_pc=pcs[i + 1]) for i in range(0, 2 * n, 2)]
    seqs.append(("full_evict_lru", fill + [O(rd0_en=1, rd0_pc=pcs[0]), O(rd1_en=1, rd1_pc=pcs[2])]
                 + [O(wr_op=A, wr_pc=pcs[n + k], wr_warp=0) for k in range(n + 1)] + look))
    # Alloc of a present PC: no change, touched.
    seqs.append(("alloc_present", fill + [O(wr_op=A, wr_pc=pcs[0], wr_warp=1, wr_is_load=1),
                                          O(wr_op=A, wr_pc=pcs[n], wr_warp=0)] + look))
    # Store removes the loads of its TB only; atomic removes every load.
    other = [O(wr_op=A, wr_tb=tb1, wr_pc=pcs[i], wr_is_load=1) for i in range(2)]
    seqs.append(("store_and_atomic", fill + other + [
        O(store_en=1, store_tb=0), *look,
        O(rd0_en=1, rd0_tb=tb1, rd0_pc=pcs[0], rd1_en=1, rd1_tb=tb1, rd1_pc=pcs[1]),
        O(wr_op=A, wr_pc=pcs[n + 1], wr_is_load=1, store_en=1, store_tb=0),  # same-cycle alloc
        O(atomic_en=1), *look,
        O(rd0_en=1, rd0_tb=tb1, rd0_pc=pcs[0], rd1_en=1, rd1_tb=tb1, rd1_pc=pcs[1])]))
    # Majority shrink: the entry completes as soon as the remaining majority warps arrived.
    half = sum(1 << w for w in range(0, nw, 2))
    seqs.append(("majority_shrink", [O(wr_op=A, wr_pc=pcs[2], wr_warp=0), O(maj_en=1, maj_mask=half)]
                 + [O(wr_op=R, wr_index=0, wr_warp=w) for w in range(0, nw, 2)]
                 + [O(rd0_en=1, rd0_pc=pcs[2]), O(maj_en=1, maj_mask=0),
                    O(wr_op=A, wr_pc=pcs[3], wr_warp=0), O(wr_op=R, wr_index=0, wr_warp=0)]))
    # Flush of one TB: entries gone, majority back to all ones; the other TB untouched;
    # a majority write in the same cycle wins over the flush.
    seqs.append(("flush_tb", fill + other + [
        O(maj_en=1, maj_mask=1), O(wr_op=SkipOp.FLUSH_TB), *look,
        O(rd0_en=1, rd0_tb=tb1, rd0_pc=pcs[0]),
        O(wr_op=SkipOp.FLUSH_TB, wr_tb=tb1, maj_en=1, maj_tb=tb1, maj_mask=2), O(wr_tb=tb1)]))
    # Invalidate, then arrive/leader_wb on the invalid entry do nothing.
    seqs.append(("invalid_entry_ops", fill + [
        O(wr_op=SkipOp.INVALIDATE, wr_index=1), O(wr_op=R, wr_index=1, wr_warp=0),
        O(wr_op=W, wr_index=1), O(wr_op=A, wr_pc=pcs[n], wr_warp=0), *look,
        O(wr_op=6, wr_index=0), O(wr_op=7, wr_pc=pcs[0])] + look))
    return seqs


def cover_skip_table(params: SkipTableParams) -> Counter_fn:
    def count(out: SkipTableOutputs, ops: SkipTableOps, cov: Counter) -> None:
        cov["rd0_hit"] += out.rd0_hit
        cov["rd1_hit"] += out.rd1_hit
        cov["rd_miss"] += int(ops.rd0_en and not out.rd0_hit)
        cov["both_hit"] += out.rd0_hit & out.rd1_hit
        cov["rd_sync"] += out.rd0_sync | out.rd1_sync
        cov["rd_leader_wb"] += out.rd0_leader_wb | out.rd1_leader_wb
        alloc = ops.wr_op == SkipOp.ALLOC and ops.wr_tb < params.tbs
        cov["alloc_new"] += int(alloc and not out.alloc_hit and not out.alloc_evict)
        cov["alloc_hit"] += out.alloc_hit
        cov["alloc_evict"] += out.alloc_evict
        cov["arrive"] += int(out.arrive_mask != 0)
        cov["arrive_done"] += out.arrive_done
        cov["store"] += ops.store_en
        cov["atomic"] += ops.atomic_en
        cov["majority_write"] += ops.maj_en
        cov["full"] += out.full
        cov["flush_tb"] += int(ops.wr_op == SkipOp.FLUSH_TB)
    return count


SKIP_TABLE_GOALS = {"rd0_hit": 300, "rd1_hit": 300, "rd_miss": 200, "both_hit": 50, "rd_sync": 50,
                    "rd_leader_wb": 100, "alloc_new": 200, "alloc_hit": 20, "alloc_evict": 30,
                    "arrive": 200, "arrive_done": 10, "store": 20, "atomic": 3,
                    "majority_write": 30, "full": 50, "flush_tb": 3}


# =========================================================================== coalescer
def _pack(values: list[int], width: int) -> int:
    return sum(v << (i * width) for i, v in enumerate(values))


def random_coalescer(params: CoalescerParams, rng: random.Random, count: int) -> list[CoalescerOps]:
    """Random request sets: few distinct keys (so slots share keys), sometimes all equal,
    all distinct, empty or full; idle slots carry random keys that must be ignored."""
    s, tw, pw = params.slots, params.tb_width, params.pc_width
    ops_list = []
    for _ in range(count):
        distinct = rng.choice((1, 1, 2, 2, 3, 4, s))
        keys = [(rng.randrange(1 << tw), rng.getrandbits(pw)) for _ in range(distinct)]
        if rng.random() < 0.3 and distinct > 1:      # same PC, different TBs
            keys[1] = (keys[1][0] ^ 1 if tw >= 1 else keys[1][0], keys[0][1])
        chosen = [rng.choice(keys) for _ in range(s)]
        r = rng.random()
        valid = 0 if r < 0.05 else (1 << s) - 1 if r < 0.3 else rng.getrandbits(s)
        ops_list.append(CoalescerOps(req_valid=valid, req_tb=_pack([k[0] for k in chosen], tw),
                                     req_pc=_pack([k[1] for k in chosen], pw)))
    return ops_list


def directed_coalescer(params: CoalescerParams) -> list[Scenario]:
    s, tw, pw = params.slots, params.tb_width, params.pc_width
    top = (1 << pw) - 1

    def req(valid, keys):
        return CoalescerOps(req_valid=valid, req_tb=_pack([k[0] for k in keys], tw),
                            req_pc=_pack([k[1] for k in keys], pw))

    same = [(0, 8)] * s
    distinct = [(i % (1 << tw), (8 * i) & top) for i in range(s)]
    alt = [(0, 8) if i % 2 else (0, 16) for i in range(s)]
    tb_only = [(i % 2 % (1 << tw), 8) for i in range(s)]
    return [("coalescer_corners", [
        req(0, same), req((1 << s) - 1, same), req(1 << (s - 1), same),
        req((1 << s) - 1, distinct), req((1 << s) - 1, alt), req((1 << s) - 1, tb_only),
        req((1 << s) - 2 if s > 1 else 1, alt), req((1 << s) - 1, [(0, top)] * s),
        req(0, distinct)])]


def cover_coalescer(params: CoalescerParams) -> Counter_fn:
    def count(out: CoalescerOutputs, ops: CoalescerOps, cov: Counter) -> None:
        cov["idle"] += int(ops.req_valid == 0)
        cov["one_port"] += out.port0_valid & (1 - out.port1_valid)
        cov["all_ports"] += out.port(params.ports - 1)[0]     # every read port in use
        cov["merged"] += int(bin(out.port0_slots).count("1") > 1)
        cov["leftover"] += int(out.leftover != 0)
        cov["all_one_key"] += int(ops.req_valid != 0 and out.port0_slots == ops.req_valid)
    return count


COALESCER_GOALS = {"idle": 20, "one_port": 100, "all_ports": 300, "merged": 300, "leftover": 100,
                   "all_one_key": 50}


# =========================================================================== rename table
def random_rename_table(params: RenameTableParams, rng: random.Random, count: int) -> list[RenameTableOps]:
    """Random cycles over a small register pool (so the table fills), versions handed out
    per register as leaders would, followers moving to the newest version, drops,
    warps leaving the majority path and rare flushes."""
    shadow = RenameTable(params)
    pool = rng.sample(range(1 << params.reg_width), min(1 << params.reg_width, params.entries + 2))
    latest = {r: 0 for r in pool}
    vtop = (1 << params.version_width) - 1
    wtop = (1 << params.warp_width) - 1
    phases = {"fill": (0.7, 0.05, 0.01), "drain": (0.1, 0.5, 0.1), "steady": (0.5, 0.2, 0.03)}
    state: dict = {}
    ops_list = []
    for _ in range(count):
        p_set, p_drop, p_clr = _phase(rng, phases, state, 4, 3 * params.entries)
        reg = rng.choice(pool)
        warp = rng.randrange(params.warps) if rng.random() < 0.97 else rng.randint(0, wtop)
        r = rng.random()
        if r < p_set:
            op = RenameOp.SET
            if rng.random() < 0.3:
                latest[reg] = (latest[reg] + 1) & vtop
            version = latest[reg] if rng.random() < 0.9 else rng.randint(0, vtop)
        elif r < p_set + p_drop:
            op, version = RenameOp.DROP, rng.randint(0, vtop)
            owned = shadow.mapping(min(warp, params.warps - 1))
            if owned and rng.random() < 0.8:
                reg = rng.choice(list(owned))
        elif r < p_set + p_drop + 0.02:
            op, version = 3, rng.randint(0, vtop)
        else:
            op, version = RenameOp.NONE, rng.randint(0, vtop)
        rd_reg = rng.choice(pool)
        mapped = shadow.mapping(min(warp, params.warps - 1))
        if mapped and rng.random() < 0.6:
            rd_reg = rng.choice(list(mapped))
        ops = RenameTableOps(rd_warp=min(warp, params.warps - 1) if rng.random() < 0.9 else warp,
                             rd_reg=rd_reg, wr_op=int(op), wr_warp=warp, wr_reg=reg,
                             wr_version=version, clr_en=int(rng.random() < p_clr),
                             clr_warp=rng.randrange(params.warps), flush=int(rng.random() < 0.003))
        shadow.step(ops)
        ops_list.append(ops)
    return ops_list


def directed_rename_table(params: RenameTableParams) -> list[Scenario]:
    nw, n = params.warps, params.entries
    O, S, D = RenameTableOps, RenameOp.SET, RenameOp.DROP
    vtop = (1 << params.version_width) - 1
    regs = [(3 * i + 1) & ((1 << params.reg_width) - 1) for i in range(n + 1)]
    seqs: list[Scenario] = []
    # Fig. 5: W0 writes R1 v1, W1 follows; W0 writes v2 (v1 still shared by W1), W1 moves.
    w1 = 1 % nw
    seqs.append(("fig5_versions", [
        O(wr_op=S, wr_warp=0, wr_reg=regs[0], wr_version=1), O(rd_warp=0, rd_reg=regs[0]),
        O(wr_op=S, wr_warp=w1, wr_reg=regs[0], wr_version=1, rd_warp=w1, rd_reg=regs[0]),
        O(wr_op=S, wr_warp=0, wr_reg=regs[0], wr_version=2, rd_warp=w1, rd_reg=regs[0]),
        O(wr_op=S, wr_warp=w1, wr_reg=regs[0], wr_version=2, rd_warp=0, rd_reg=regs[0]),
        O(rd_warp=w1, rd_reg=regs[0])]))
    # Fill every entry, one more register is refused; drop frees an entry for reuse.
    fill = [O(wr_op=S, wr_warp=i % nw, wr_reg=regs[i], wr_version=i & vtop) for i in range(n)]
    seqs.append(("full_then_drop", fill + [
        O(wr_op=S, wr_warp=0, wr_reg=regs[n], wr_version=1),
        O(wr_op=D, wr_warp=(n - 1) % nw, wr_reg=regs[n - 1]),
        O(wr_op=S, wr_warp=0, wr_reg=regs[n], wr_version=3, rd_warp=0, rd_reg=regs[n]),
        O(rd_warp=0, rd_reg=regs[n])]))
    # Clear a warp (leaves the majority path) in the same cycle as its own set; flush.
    seqs.append(("clear_and_flush", [
        O(wr_op=S, wr_warp=0, wr_reg=regs[0], wr_version=1),
        O(wr_op=S, wr_warp=w1, wr_reg=regs[0], wr_version=1),
        O(wr_op=S, wr_warp=0, wr_reg=regs[1], wr_version=2, clr_en=1, clr_warp=0),
        O(rd_warp=0, rd_reg=regs[0]), O(rd_warp=w1, rd_reg=regs[0]),
        O(wr_op=S, wr_warp=w1, wr_reg=regs[1], wr_version=1, flush=1),
        O(rd_warp=w1, rd_reg=regs[1]), O(wr_op=D, wr_warp=0, wr_reg=regs[0])]))
    return seqs


def cover_rename_table(params: RenameTableParams) -> Counter_fn:
    def count(out: RenameTableOutputs, ops: RenameTableOps, cov: Counter) -> None:
        cov["rd_hit"] += out.rd_hit
        cov["rd_miss"] += 1 - out.rd_hit
        cov["set_new_entry"] += int(ops.wr_op == RenameOp.SET and not out.wr_hit and not out.wr_full
                                    and ops.wr_warp < params.warps)
        cov["set_hit"] += int(ops.wr_op == RenameOp.SET and out.wr_hit)
        cov["full"] += out.wr_full
        cov["old_shared"] += out.wr_old_shared
        cov["old_private"] += out.wr_old_valid & (1 - out.wr_old_shared)
        cov["drop"] += int(ops.wr_op == RenameOp.DROP and out.wr_old_valid)
        cov["clear"] += ops.clr_en
        cov["all_used"] += int(out.valid == (1 << params.entries) - 1)
    return count


RENAME_TABLE_GOALS = {"rd_hit": 300, "rd_miss": 300, "set_new_entry": 100, "set_hit": 300,
                      "full": 20, "old_shared": 100, "old_private": 100, "drop": 50, "clear": 30,
                      "all_used": 50}


# =========================================================================== version table
def random_version_table(params: VersionTableParams, rng: random.Random, count: int) -> list[VersionTableOps]:
    """Random inserts/removes/reads over a key pool a bit larger than the table, so that
    it fills, overwrites in place, refuses inserts when full (a mechanism bug, still
    specified) and drains."""
    shadow = VersionTable(params)
    keys = list({(rng.getrandbits(params.reg_width), rng.getrandbits(params.version_width))
                 for _ in range(params.entries + params.entries // 2 + 2)})
    live: list[tuple[int, int]] = []
    ptop = (1 << params.phys_width) - 1
    ops_list = []
    state: dict = {}
    phases = {"fill": (0.7, 0.1), "drain": (0.1, 0.7), "steady": (0.4, 0.4)}
    longest = 2 * params.entries
    if params.entries > 16:     # paper size (32): longer, purer fills so the table gets full
        phases["fill"], longest = (0.9, 0.0), 4 * params.entries
    for _ in range(count):
        p_ins, p_rm = _phase(rng, phases, state, 4, longest)
        rd = rng.choice(live) if live and rng.random() < 0.7 else rng.choice(keys)
        ins = rng.choice(keys)
        rm = rng.choice(live) if live and rng.random() < 0.8 else rng.choice(keys)
        ops = VersionTableOps(rd_reg=rd[0], rd_version=rd[1], ins_en=int(rng.random() < p_ins),
                              ins_reg=ins[0], ins_version=ins[1], ins_phys=rng.randint(0, ptop),
                              rm_en=int(rng.random() < p_rm), rm_reg=rm[0], rm_version=rm[1],
                              flush=int(rng.random() < 0.005))
        shadow.step(ops)
        live = [k for k in keys if k in shadow]
        ops_list.append(ops)
    return ops_list


def directed_version_table(params: VersionTableParams) -> list[Scenario]:
    n = params.entries
    ptop = (1 << params.phys_width) - 1
    O = VersionTableOps
    vtop = (1 << params.version_width) - 1
    rtop = (1 << params.reg_width) - 1
    keys = [((i // 2) & rtop, (i % 2 + i // (2 * (rtop + 1))) & vtop) for i in range(n + 2)]
    fill = [O(ins_en=1, ins_reg=k[0], ins_version=k[1], ins_phys=i & ((1 << params.phys_width) - 1))
            for i, k in enumerate(keys[:n])]
    look = [O(rd_reg=k[0], rd_version=k[1]) for k in keys]
    return [
        ("fill_overwrite_full", fill + look + [
            O(ins_en=1, ins_reg=keys[0][0], ins_version=keys[0][1], ins_phys=7 & ptop),
            O(ins_en=1, ins_reg=keys[n][0], ins_version=keys[n][1], ins_phys=5 & ptop)] + look),
        ("remove_insert_same_cycle", fill[:3] + [
            O(rm_en=1, rm_reg=keys[1][0], rm_version=keys[1][1], rd_reg=keys[1][0],
              rd_version=keys[1][1], ins_en=1, ins_reg=keys[1][0], ins_version=keys[1][1],
              ins_phys=9 & ptop),
            O(rm_en=1, rm_reg=keys[2][0], rm_version=keys[2][1]),
            O(rm_en=1, rm_reg=keys[2][0], rm_version=keys[2][1])] + look),
        ("flush", fill + [O(flush=1, ins_en=1, ins_reg=keys[n + 1][0], ins_version=keys[n + 1][1],
                            ins_phys=3 & ptop)] + look),
    ]


def cover_version_table(params: VersionTableParams) -> Counter_fn:
    def count(out: VersionTableOutputs, ops: VersionTableOps, cov: Counter) -> None:
        cov["rd_hit"] += out.rd_hit
        cov["rd_miss"] += 1 - out.rd_hit
        cov["ins_new"] += ops.ins_en & (1 - out.ins_hit) & (1 - out.ins_full)
        cov["ins_hit"] += out.ins_hit
        cov["ins_full"] += out.ins_full
        cov["rm_hit"] += out.rm_hit
        cov["rm_miss"] += ops.rm_en & (1 - out.rm_hit)
        cov["full"] += int(out.valid == (1 << params.entries) - 1)
        cov["flush"] += ops.flush
    return count


VERSION_TABLE_GOALS = {"rd_hit": 300, "rd_miss": 200, "ins_new": 200, "ins_hit": 50,
                       "ins_full": 20, "rm_hit": 200, "rm_miss": 50, "full": 30, "flush": 3}


# =========================================================================== phys freelist
def random_phys_freelist(params: PhysFreeListParams, rng: random.Random, count: int) -> list[PhysFreeListOps]:
    """Phase-biased alloc/free: drains the list (alloc_last, empty, alloc while empty),
    refills it, with double and out-of-range frees."""
    shadow = PhysRegFreeList(params)
    used: set[int] = set()
    port_top = (1 << params.tag_width) - 1
    phases = {"fill": (0.9, 0.15), "drain": (0.1, 0.9), "steady": (0.6, 0.6)}
    state: dict = {}
    ops_list = []
    for _ in range(count):
        p_alloc, p_free = _phase(rng, phases, state, 4, 2 * params.entries + 8)
        r = rng.random()
        if used and r < 0.85:
            index = rng.choice(sorted(used))
        elif r < 0.93:
            index = rng.randrange(params.entries)
        else:
            index = rng.randint(0, port_top)
        ops = PhysFreeListOps(alloc=rng.random() < p_alloc, free=rng.random() < p_free,
                              free_index=index)
        out = shadow.step(ops)
        if ops.alloc and not out.empty:
            used.add(out.alloc_index)
        if ops.free and not out.error:
            used.discard(index)
        ops_list.append(ops)
    return ops_list


def directed_phys_freelist(params: PhysFreeListParams) -> list[Scenario]:
    n = params.entries
    O = PhysFreeListOps
    drain = [O(alloc=True)] * (n + 2)
    return [("drain_refill", drain + [O(free=True, free_index=i) for i in range(0, n, 2)]
             + [O(free=True, free_index=0), O(alloc=True, free=True, free_index=1),
                O(free=True, free_index=(1 << params.tag_width) - 1)] + drain)]


def cover_phys_freelist(params: PhysFreeListParams) -> Counter_fn:
    def count(out: PhysFreeListOutputs, ops: PhysFreeListOps, cov: Counter) -> None:
        cov["alloc"] += int(bool(ops.alloc) and not out.empty)
        cov["alloc_last"] += int(bool(ops.alloc)) & out.alloc_last
        cov["alloc_empty"] += int(bool(ops.alloc)) & out.empty
        cov["free_ok"] += int(bool(ops.free)) & (1 - out.error)
        cov["error"] += out.error
        cov["same_cycle"] += int(bool(ops.alloc) and bool(ops.free))
    return count


PHYS_FREELIST_GOALS = {"alloc": 300, "alloc_last": 10, "alloc_empty": 20, "free_ok": 300,
                       "error": 30, "same_cycle": 100}
