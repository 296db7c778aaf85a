"""Stimulus for the uniform-vector structures (seed 002 ch. 2): directed scenarios, seeded
random traffic and coverage counters for the IRB, the SRF map and the detection logic.

Shared by the amaranth.sim tests (tests/rtl/test_uv_rtl.py) and the cocotb benches
(tb/uv/test_*.py). Every random generator drives a shadow golden model so that it can act
the way the mechanism does (fill the victim on a miss, the hit way on a mismatch; never
release two SRF registers in one cycle) and still mix in raw traffic and same-cycle
corner cases.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

from golden.structures.uv import (IRB, DetectOps, DetectParams, IRBOps, IRBParams, SRFMap,
                                  SRFMapOps, SRFMapParams)
from golden.structures.uv.detect import SrcKind
from tb.runner import biased_vector

__all__ = ["irb_directed", "irb_random_ops", "irb_count_events", "irb_goals",
           "srf_directed", "srf_random_ops", "srf_count_events", "srf_goals",
           "detect_directed", "detect_random_ops", "detect_count_events", "detect_goals"]


# =========================================================================== IRB

def _srcs_kw(prefix: str, srcs) -> dict:
    return {f"{prefix}_src{i}": v for i, v in enumerate(srcs)}


def irb_goals(p: IRBParams) -> dict:
    """Coverage goals of one random IRB run."""
    goals = {"hit_match": 100, "hit_mismatch": 50, "miss": 100, "evict_lru_all_valid": 30,
             "opcode_alias_miss": 10, "same_cycle_lookup_update": 20,
             "update_hit_way_same_cycle": 5, "fill_invalid": p.entries}
    if p.parity:
        goals.update(parity_error=10, fault_injected=20, fault_on_parity_bit=2)
    return goals


def irb_directed(p: IRBParams) -> list[tuple[str, list[IRBOps]]]:
    """Fill every way, hit each, evict in LRU order, opcode aliasing, mismatch, same-cycle
    lookup + update of the hit way, and (parity) a fault on a data bit and on the parity bit."""
    n, vmax = p.entries, (1 << p.value_bits) - 1
    srcs = tuple(vmax - i for i in range(p.sources))
    fill = [IRBOps(up_en=1, up_way=w, up_tag=w, up_opcode=w % (1 << p.opcode_bits),
                   up_dst=w + 100, **_srcs_kw("up", srcs)) for w in range(n)]
    hits = [IRBOps(lk_en=1, lk_tag=w, lk_opcode=w % (1 << p.opcode_bits), **_srcs_kw("lk", srcs))
            for w in reversed(range(n))]
    evict = [IRBOps(up_en=1, up_way=n - 1 - k, up_tag=(n + k) % (1 << p.tag_bits), up_dst=k)
             for k in range(n)] + [IRBOps()]
    alias = fill[:1] + [IRBOps(lk_en=1, lk_tag=0, lk_opcode=1 % (1 << p.opcode_bits))]
    mismatch = fill[:2] + [IRBOps(lk_en=1, lk_tag=1, lk_opcode=1 % (1 << p.opcode_bits),
                                  **_srcs_kw("lk", srcs[:-1]))]
    same = fill + [IRBOps(lk_en=1, lk_tag=n - 1, lk_opcode=(n - 1) % (1 << p.opcode_bits),
                          up_en=1, up_way=n - 1, up_tag=3 % (1 << p.tag_bits), up_dst=vmax),
                   IRBOps(lk_en=1, lk_tag=3 % (1 << p.tag_bits))]
    out = [("fill_and_hit", fill + hits), ("lru_evict", fill + hits + evict),
           ("opcode_alias", alias), ("mismatch", mismatch), ("same_cycle", same)]
    if p.parity:
        look = IRBOps(lk_en=1, lk_tag=1, lk_opcode=1 % (1 << p.opcode_bits), **_srcs_kw("lk", srcs))
        out.append(("fault_data", fill[:2] + [look, IRBOps(fi_en=1, fi_way=1, fi_bit=p.data_bits - 1),
                                              look]))
        out.append(("fault_parity_bit", fill[:2] + [IRBOps(fi_en=1, fi_way=1, fi_bit=p.data_bits),
                                                    look, IRBOps(fi_en=1, fi_way=1, fi_bit=p.data_bits),
                                                    look]))
        out.append(("fault_same_cycle_update", [IRBOps(up_en=1, up_way=0, up_tag=0, fi_en=1,
                                                       fi_way=0, fi_bit=0),
                                                IRBOps(lk_en=1, lk_tag=1)]))
    return out


def irb_random_ops(p: IRBParams, rng: random.Random, cycles: int) -> list[IRBOps]:
    """Mechanism-like traffic: a pool of instructions (more than there are ways, so the LRU
    way is evicted), each with a few source-value sets (reuse or not), partial-PC aliases
    with another opcode, the fill of the victim / hit way a few cycles after a lookup, raw
    updates of random ways, and fault injection with parity."""
    shadow = IRB(p)
    omask, vmask = (1 << p.opcode_bits) - 1, (1 << p.value_bits) - 1
    n_pool = p.entries + max(2, p.entries // 2)
    tags = rng.sample(range(1 << p.tag_bits), min(n_pool, 1 << p.tag_bits))
    pool = []
    for k in range(n_pool):
        tag = tags[k % len(tags)]
        op = rng.randrange(1 << p.opcode_bits)
        values = [tuple(rng.choice((0, vmask, rng.getrandbits(p.value_bits)))
                        for _ in range(p.sources)) for _ in range(rng.randrange(1, 4))]
        pool.append((tag, op, values))
    hot = list(range(min(p.entries, n_pool)))          # the working set, drifts over time
    pending: list = []                                 # (due cycle, way, tag, op, srcs)
    out = []
    for cycle in range(cycles):
        ops: dict = {}
        if rng.random() < 0.05:
            hot[rng.randrange(len(hot))] = rng.randrange(n_pool)
        if rng.random() < 0.7:
            k = rng.choice(hot) if rng.random() < 0.85 else rng.randrange(n_pool)
            tag, op, values = pool[k]
            if rng.random() < 0.05:
                op = (op + 1) & omask                  # aliasing partial PC
            srcs = rng.choice(values)
            ops.update(lk_en=1, lk_tag=tag, lk_opcode=op, **_srcs_kw("lk", srcs))
            probe = IRB(p)                             # what the lookup sees
            probe.valid, probe.words, probe.ages = list(shadow.valid), list(shadow.words), list(shadow.ages)
            res = probe.step(IRBOps(lk_en=1, lk_tag=tag, lk_opcode=op, **_srcs_kw("lk", srcs)))
            if not res.match:
                way = res.hit_way if res.hit else res.victim
                pending.append((cycle + rng.randrange(0, 4), way, tag, op, srcs))
        if pending and pending[0][0] <= cycle and rng.random() < 0.8:
            _, way, tag, op, srcs = pending.pop(0)
            ops.update(up_en=1, up_way=way, up_tag=tag, up_opcode=op,
                       up_dst=rng.getrandbits(p.value_bits), **_srcs_kw("up", srcs))
        elif rng.random() < 0.04:
            ops.update(up_en=1, up_way=rng.randrange(p.entries), up_tag=rng.randrange(1 << p.tag_bits),
                       up_opcode=rng.randrange(1 << p.opcode_bits),
                       up_dst=rng.getrandbits(p.value_bits),
                       **_srcs_kw("up", [rng.getrandbits(p.value_bits) for _ in range(p.sources)]))
        if p.parity and rng.random() < 0.03:
            bit = p.data_bits if rng.random() < 0.1 else rng.randrange(p.word_bits)
            ops.update(fi_en=1, fi_way=rng.randrange(p.entries), fi_bit=bit)
        o = IRBOps(**ops)
        shadow.step(o)
        out.append(o)
    return out


def irb_count_events(p: IRBParams):
    """Per-cycle coverage counter (expected outputs, ops, counter)."""
    shadow = IRB(p)

    def count(expected, ops: IRBOps, cov: Counter) -> None:
        if ops.lk_en:
            if expected.hit:
                cov["hit_match" if expected.match else "hit_mismatch"] += 1
            else:
                cov["miss"] += 1
                if any(v and (w & ((1 << p.tag_bits) - 1)) == ops.lk_tag
                       for v, w in zip(shadow.valid, shadow.words)):
                    cov["opcode_alias_miss"] += 1
            if ops.up_en:
                cov["same_cycle_lookup_update"] += 1
                if expected.hit and ops.up_way == expected.hit_way:
                    cov["update_hit_way_same_cycle"] += 1
        if expected.parity_error:
            cov["parity_error"] += 1
        if ops.up_en:
            if all(shadow.valid) and ops.up_way == expected.victim:
                cov["evict_lru_all_valid"] += 1
            if not shadow.valid[ops.up_way]:
                cov["fill_invalid"] += 1
        if ops.fi_en:
            cov["fault_injected"] += 1
            if ops.fi_bit == p.data_bits:
                cov["fault_on_parity_bit"] += 1
        shadow.step(ops)

    return count


# =========================================================================== SRF map

def srf_goals(p: SRFMapParams) -> dict:
    """Coverage goals of one random SRF-map run."""
    return {"read_mapped": 200, "read_unmapped": 200, "alloc": 2 * p.srf_entries,
            "keep": 20, "exhausted": 10, "reuse_freed_index": p.srf_entries // 2,
            "vector_redefinition_frees": 50, "release_ok": 50, "release_unmapped": 20,
            "alloc_and_release_same_cycle": 10, "read_of_dst_same_cycle": 20,
            "free_list_empty_cycles": 20}


def srf_directed(p: SRFMapParams) -> list[tuple[str, list[SRFMapOps]]]:
    """Exhaust the free list, hit the structural hazard, free on vector redefinition and
    reuse the index, keep on a uniform rewrite, same-cycle read/define/release."""
    n = min(p.srf_entries, p.vregs)
    fill = [SRFMapOps(dst_en=1, dst_vreg=v, dst_uniform=1) for v in range(n)]
    reads = [SRFMapOps(rd_en0=1, rd_vreg0=v, rd_en1=int(p.read_ports > 1), rd_vreg1=(v + 1) % p.vregs,
                       rd_en2=int(p.read_ports > 2), rd_vreg2=p.vregs - 1) for v in range(0, n, max(1, n // 8))]
    out = [("fill_and_read", fill + reads)]
    if p.vregs > p.srf_entries:
        extra = p.srf_entries
        out.append(("exhaust_then_reuse", fill + [
            SRFMapOps(dst_en=1, dst_vreg=extra, dst_uniform=1),           # hazard: dst_ok = 0
            SRFMapOps(dst_en=1, dst_vreg=3 % n, dst_uniform=0),            # vector redefinition frees
            SRFMapOps(dst_en=1, dst_vreg=extra, dst_uniform=1),           # reuses that index
            SRFMapOps(free_en=1, free_vreg=extra, dst_en=1, dst_vreg=0, dst_uniform=1),
            SRFMapOps(rd_en0=1, rd_vreg0=extra, dst_en=1, dst_vreg=extra, dst_uniform=1),
        ]))
    out.append(("same_cycle", [
        SRFMapOps(dst_en=1, dst_vreg=1, dst_uniform=1, rd_en0=1, rd_vreg0=1),
        SRFMapOps(dst_en=1, dst_vreg=1, dst_uniform=1, rd_en0=1, rd_vreg0=1),  # keep
        SRFMapOps(dst_en=1, dst_vreg=0, dst_uniform=1, free_en=1, free_vreg=1),
        SRFMapOps(dst_en=1, dst_vreg=1, dst_uniform=1, free_en=1, free_vreg=0),
        SRFMapOps(rd_en0=1, rd_vreg0=0, dst_en=1, dst_vreg=1, dst_uniform=0),
        SRFMapOps(free_en=1, free_vreg=1), SRFMapOps(dst_en=1, dst_vreg=0, dst_uniform=0),
    ]))
    return out


def srf_random_ops(p: SRFMapParams, rng: random.Random, cycles: int) -> list[SRFMapOps]:
    """Phases that fill the SRF (mostly uniform definitions, so the free list runs empty)
    and drain it (vector redefinitions and releases), over a working set larger than the
    SRF, with source lookups of recently defined registers and same-cycle define +
    release + read. Never two releases in one cycle, never dst and free on one register."""
    shadow = SRFMap(p)
    work = rng.sample(range(p.vregs), min(p.vregs, p.srf_entries + max(8, p.srf_entries // 2)))
    fill, phase_len, left = True, 0, 0
    out = []
    for _ in range(cycles):
        if left == 0:
            fill = not fill
            left = phase_len = rng.randrange(p.srf_entries // 2 + 4, 2 * p.srf_entries + 8)
        left -= 1
        ops: dict = {}
        for i in range(p.read_ports):
            if rng.random() < 0.6:
                ops.update({f"rd_en{i}": 1, f"rd_vreg{i}": rng.choice(work)})
        dst = None
        if rng.random() < 0.8:
            dst = rng.choice(work)
            if fill and rng.random() < 0.8:            # head for exhaustion
                unmapped = [v for v in work if not shadow.valid[v]]
                dst = rng.choice(unmapped) if unmapped else dst
            uniform = int(rng.random() < (0.95 if fill else 0.2))
            ops.update(dst_en=1, dst_vreg=dst, dst_uniform=uniform)
            if rng.random() < 0.1:
                ops["rd_en0"], ops["rd_vreg0"] = 1, dst
        if rng.random() < (0.05 if fill else 0.5):
            v = rng.choice(work)
            two_releases = (dst is not None and not ops["dst_uniform"] and shadow.valid[dst]
                            and shadow.valid[v])
            if v != dst and not two_releases:
                ops.update(free_en=1, free_vreg=v)
        o = SRFMapOps(**ops)
        shadow.step(o)
        out.append(o)
    return out


def srf_count_events(p: SRFMapParams):
    """Per-cycle coverage counter (expected outputs, ops, counter)."""
    shadow = SRFMap(p)
    used: set[int] = set()

    def count(expected, ops: SRFMapOps, cov: Counter) -> None:
        for i in range(p.read_ports):
            if getattr(ops, f"rd_en{i}"):
                cov["read_mapped" if getattr(expected, f"rd_valid{i}") else "read_unmapped"] += 1
                if ops.dst_en and getattr(ops, f"rd_vreg{i}") == ops.dst_vreg:
                    cov["read_of_dst_same_cycle"] += 1
        if expected.empty:
            cov["free_list_empty_cycles"] += 1
        if ops.dst_en and ops.dst_uniform:
            if not shadow.valid[ops.dst_vreg]:
                if expected.dst_ok:
                    cov["alloc"] += 1
                    if expected.dst_sidx in used:
                        cov["reuse_freed_index"] += 1
                    used.add(expected.dst_sidx)
                    if ops.free_en and expected.free_ok:
                        cov["alloc_and_release_same_cycle"] += 1
                else:
                    cov["exhausted"] += 1
            else:
                cov["keep"] += 1
        if expected.dst_freed:
            cov["vector_redefinition_frees"] += 1
        if ops.free_en:
            cov["release_ok" if expected.free_ok else "release_unmapped"] += 1
        shadow.step(ops)

    return count


# =========================================================================== detection

_KINDS = tuple(SrcKind)


def detect_goals(p: DetectParams) -> dict:
    """Coverage goals of one random detection run: every kind combination, both results."""
    goals = {"uniform": 100, "not_uniform": 100, "cow": 30, "full": 200, "divergent": 200,
             "eligible_but_blocked_by_source": 50}
    for combo in itertools.product(range(len(_KINDS)), repeat=p.sources):
        goals["kinds_" + "".join(map(str, combo))] = 3
    return goals


def detect_directed(p: DetectParams) -> list[tuple[str, list[DetectOps]]]:
    """Every kind combination with every source uniform bit, full mask and eligible; then
    the mask, eligibility and destination bits around a uniform instruction."""
    full = (1 << p.warp_size) - 1
    combos = []
    for kinds in itertools.product(range(len(_KINDS)), repeat=p.sources):
        for unis in itertools.product((0, 1), repeat=p.sources):
            kw = {f"src_kind{i}": k for i, k in enumerate(kinds)}
            kw.update({f"src_uniform{i}": u for i, u in enumerate(unis)})
            combos.append(DetectOps(active_mask=full, eligible=1, **kw))
    around = []
    for mask in (full, full ^ 1, 1 << (p.warp_size - 1), 0):
        for eligible, dst_en, dst_uniform in itertools.product((0, 1), repeat=3):
            around.append(DetectOps(src_kind0=3, src_uniform0=1, active_mask=mask,
                                    eligible=eligible, dst_en=dst_en, dst_uniform=dst_uniform))
    return [("kinds", combos), ("mask_and_dst", around)]


def detect_random_ops(p: DetectParams, rng: random.Random, cycles: int) -> list[DetectOps]:
    """Random instructions: kinds and bits uniform, masks biased to full / almost full."""
    full = (1 << p.warp_size) - 1
    out = []
    for _ in range(cycles):
        kw = {}
        for i in range(p.sources):
            kw[f"src_kind{i}"] = rng.randrange(len(_KINDS))
            kw[f"src_uniform{i}"] = int(rng.random() < 0.7)
        r = rng.random()
        mask = full if r < 0.5 else (full ^ (1 << rng.randrange(p.warp_size)) if r < 0.6
                                     else biased_vector(rng, p.warp_size)[1])
        out.append(DetectOps(active_mask=mask, eligible=int(rng.random() < 0.8),
                             dst_en=int(rng.random() < 0.9), dst_uniform=rng.randrange(2), **kw))
    return out


def detect_count_events(p: DetectParams):
    """Per-vector coverage counter (expected outputs, ops, counter)."""

    def count(expected, ops: DetectOps, cov: Counter) -> None:
        cov["uniform" if expected.uniform else "not_uniform"] += 1
        cov["full" if expected.full else "divergent"] += 1
        if expected.cow:
            cov["cow"] += 1
        if ops.eligible and expected.full and not expected.uniform:
            cov["eligible_but_blocked_by_source"] += 1
        cov["kinds_" + "".join(str(getattr(ops, f"src_kind{i}")) for i in range(p.sources))] += 1

    return count
