"""Stimulus for the WarpMan structures (seed 002 ch. 3): directed scenarios, seeded random
traffic and coverage counters for the workload buffer and the dispatch check.

Shared by the amaranth.sim tests (tests/rtl/test_warpman_rtl.py) and the cocotb benches
(tb/warpman/test_*.py). The workload-buffer generator drives a shadow golden model so
that it behaves like the mechanism (load a partial TB when the buffer is empty, issue
while it is valid) and still mixes in the error request the RTL must flag (a load while
valid, also in the cycle that issues the last warp) and issues of an empty buffer. The
dispatch-check generator draws TB shapes and free counts biased to the edges: exactly
fitting and one-short registers and shared memory, zero free resources, full SMs, and
register counts that are exact multiples of a warp's demand.
"""

from __future__ import annotations

import random
from collections import Counter

from golden.structures.warpman import (DispatchCheckOps, DispatchCheckParams, WorkloadBuffer,
                                       WorkloadBufferOps, WorkloadBufferParams)
from tb.runner import biased_vector

__all__ = ["wb_directed", "wb_random_ops", "wb_count_events", "wb_goals",
           "check_directed", "check_random_ops", "check_count_events", "check_goals"]


# =========================================================================== workload buffer

def _load(p_tbid: int, l_tbid: int, start: int, end: int, issue: int = 0) -> WorkloadBufferOps:
    return WorkloadBufferOps(load_en=1, load_p_tbid=p_tbid, load_l_tbid=l_tbid,
                             load_start_wid=start, load_end_wid=end, issue_en=issue)


ISSUE = WorkloadBufferOps(issue_en=1)
IDLE = WorkloadBufferOps()


def wb_goals(p: WorkloadBufferParams) -> dict:
    """Coverage goals of one random workload-buffer run."""
    return {"load_ok": 60, "load_while_valid": 20, "load_in_last_issue_cycle": 3,
            "issue_ok": 300, "issue_last": 50, "issue_empty": 30, "single_warp_tb": 10,
            "end_wid_max": 10, "start_wid_0": 5, "issue_end_wid_max": 5,
            "p_tbid_max": 3, "l_tbid_max": 3, "idle_valid": 20, "load_and_issue_empty": 5}


def wb_directed(p: WorkloadBufferParams) -> list[tuple[str, list[WorkloadBufferOps]]]:
    """The off-by-one scenario (unissued warps 2..7 issue exactly 2..7, then nothing), a
    single-warp partial TB at end_wid = max, a whole TB 0..max, loads while valid (also in
    the last issue's cycle, then accepted the cycle after), extreme field values."""
    last = p.max_warps_per_tb - 1
    slot = p.tb_slots - 1
    l_max = (1 << p.l_tbid_bits) - 1
    s, e = min(2, last), min(7, last)
    off_by_one = [_load(min(1, slot), 5 & l_max, s, e)] + [ISSUE] * (e - s + 2) + [IDLE]
    single = [ISSUE, _load(slot, l_max, last, last), IDLE, ISSUE, ISSUE, IDLE]
    whole = [_load(0, 0, 0, last)] + [ISSUE] * (last + 2)
    busy = [_load(0, 1, s, e), _load(slot, 2 & l_max, 0, 0)] + [ISSUE] * (e - s)
    busy += [_load(slot, 3 & l_max, 0, last, issue=1),    # refused: valid at cycle start
             _load(slot, 3 & l_max, 0, last), IDLE, ISSUE]
    same = [_load(1 % p.tb_slots, 7 & l_max, last, last, issue=1), ISSUE, ISSUE]
    return [("off_by_one", off_by_one), ("single_warp_end_max", single), ("whole_tb", whole),
            ("load_while_valid", busy), ("load_and_issue_empty", same)]


def _wid_pair(p: WorkloadBufferParams, rng: random.Random) -> tuple[int, int]:
    last = p.max_warps_per_tb - 1
    kind = rng.random()
    if kind < 0.2:                                  # single-warp partial TB
        w = last if rng.random() < 0.4 else rng.randint(0, last)
        return w, w
    if kind < 0.4:                                  # up to the TB's last warp
        return rng.randint(0, last), last
    if kind < 0.5:
        return 0, rng.randint(0, last)
    a, b = rng.randint(0, last), rng.randint(0, last)
    return min(a, b), max(a, b)


def _random_load(p: WorkloadBufferParams, rng: random.Random, issue: int = 0) -> WorkloadBufferOps:
    slot = p.tb_slots - 1 if rng.random() < 0.2 else rng.randrange(p.tb_slots)
    l_max = (1 << p.l_tbid_bits) - 1
    l_tbid = l_max if rng.random() < 0.05 else biased_vector(rng, p.l_tbid_bits)[1]
    start, end = _wid_pair(p, rng)
    return _load(slot, l_tbid, start, end, issue)


def wb_random_ops(p: WorkloadBufferParams, rng: random.Random,
                  cycles: int) -> list[WorkloadBufferOps]:
    """Mechanism-like traffic: an empty buffer is loaded (sometimes together with an issue
    that finds it empty), a valid one issues most cycles; about 1 in 12 cycles of a valid
    buffer tries a load (refused), sometimes in the cycle that issues its last warp."""
    shadow = WorkloadBuffer(p)
    out = []
    for _ in range(cycles):
        r = rng.random()
        if not shadow.valid:
            if r < 0.45:
                ops = _random_load(p, rng, issue=int(rng.random() < 0.15))
            elif r < 0.6:
                ops = ISSUE
            else:
                ops = IDLE
        elif r < 0.08:
            ops = _random_load(p, rng, issue=int(rng.random() < 0.5))
        elif shadow.unissued == 1 and r < 0.12:
            ops = _random_load(p, rng, issue=1)     # load in the last issue's cycle
        elif r < 0.75:
            ops = ISSUE
        else:
            ops = IDLE
        shadow.step(ops)
        out.append(ops)
    return out


def wb_count_events(p: WorkloadBufferParams):
    """Per-cycle coverage counter (expected outputs, ops, counter)."""
    last = p.max_warps_per_tb - 1

    def count(expected, ops: WorkloadBufferOps, cov: Counter) -> None:
        if expected.load_ok:
            cov["load_ok"] += 1
            cov["single_warp_tb"] += ops.load_start_wid == ops.load_end_wid
            cov["end_wid_max"] += ops.load_end_wid == last
            cov["start_wid_0"] += ops.load_start_wid == 0
            cov["p_tbid_max"] += ops.load_p_tbid == p.tb_slots - 1
            cov["l_tbid_max"] += ops.load_l_tbid == (1 << p.l_tbid_bits) - 1
            cov["load_and_issue_empty"] += bool(ops.issue_en)
        if expected.load_err:
            cov["load_while_valid"] += 1
            cov["load_in_last_issue_cycle"] += expected.issue_last
        if expected.issue_ok:
            cov["issue_ok"] += 1
        if expected.issue_last:
            cov["issue_last"] += 1
            cov["issue_end_wid_max"] += expected.wid == last
        if ops.issue_en and not expected.issue_ok:
            cov["issue_empty"] += 1
        if expected.valid and not ops.issue_en and not ops.load_en:
            cov["idle_valid"] += 1

    return count


# =========================================================================== dispatch check

def check_goals(p: DispatchCheckParams) -> dict:
    """Coverage goals of one random dispatch-check run."""
    return {"tb_ok": 100, "warp_only": 100, "neither": 100, "regs_exact_tb": 10,
            "regs_one_short_tb": 10, "regs_exact_multiple": 30, "shared_exact": 10,
            "shared_one_short": 10, "zero_free_warps": 10, "zero_free_tbs": 10,
            "zero_free_regs": 10, "limited_by_regs": 50, "limited_by_warps": 30,
            "limited_by_tb_size": 50, "largest_tb": 10, "n_warps_max": 5,
            "regs_per_warp_zero": 3, "single_warp_tb": 10, "sm_empty": 5}


def _mm_example(p: DispatchCheckParams) -> DispatchCheckOps | None:
    """paper-facts §3.3: 5 full MM TBs on a 32k-register, 48 KB SM (None if it does not fit)."""
    need = ((p.registers, 32768), (p.shared_bytes, 10240 + 2048), (p.warp_slots, 48),
            (p.tb_slots, 6), (p.max_warps_per_tb, 8))
    if any(have < want for have, want in need):
        return None
    return DispatchCheckOps(free_warps=p.warp_slots - 40, free_tbs=p.tb_slots - 5,
                            free_regs=p.registers - 30720, free_shared=p.shared_bytes - 10240,
                            warps_per_tb=8, regs_per_warp=768, shared_per_tb=2048)


def check_directed(p: DispatchCheckParams) -> list[tuple[str, list[DispatchCheckOps]]]:
    """The MM example, an empty SM and a full one, registers exactly k x regs_per_warp and
    one short for every k, shared memory exact and one short, and regs_per_warp = 0."""
    m = p.max_warps_per_tb
    rpw = max(1, min(p.registers // (m + 1), 768))
    shared = min(p.shared_bytes, 2048)
    base = dict(free_warps=p.warp_slots, free_tbs=p.tb_slots, free_shared=p.shared_bytes,
                warps_per_tb=m, regs_per_warp=rpw, shared_per_tb=shared)
    exact = []
    for k in range(0, m + 1):
        for delta in (0, -1, 1):
            regs = k * rpw + delta
            if 0 <= regs <= p.registers:
                exact.append(DispatchCheckOps(**{**base, "free_regs": regs}))
    sm = [DispatchCheckOps(**{**base, "free_regs": p.registers}),
          DispatchCheckOps(warps_per_tb=1, regs_per_warp=rpw, shared_per_tb=shared),
          DispatchCheckOps(**{**base, "free_regs": p.registers, "free_tbs": 0}),
          DispatchCheckOps(**{**base, "free_regs": p.registers, "free_warps": 0}),
          DispatchCheckOps(**{**base, "free_regs": p.registers, "free_warps": m - 1}),
          DispatchCheckOps(**{**base, "free_regs": p.registers, "regs_per_warp": p.registers}),
          DispatchCheckOps(**{**base, "free_regs": 0, "regs_per_warp": 0})]
    sh = [DispatchCheckOps(**{**base, "free_regs": p.registers, "free_shared": shared + d})
          for d in (-1, 0) if shared + d >= 0]
    mm = _mm_example(p)
    out = [("exact_multiples", exact), ("sm_empty_and_full", sm), ("shared_edges", sh)]
    return ([("mm_example", [mm])] if mm else []) + out


def _demands(p: DispatchCheckParams, rng: random.Random) -> tuple[int, int, int]:
    m = p.max_warps_per_tb
    r = rng.random()
    w = m if r < 0.15 else 1 if r < 0.3 else rng.randint(1, m)
    r = rng.random()
    if r < 0.03:
        rpw = 0
    elif r < 0.06:
        rpw = p.registers
    elif r < 0.6:                                    # a real kernel: 32 lanes x regs/thread
        rpw = min(p.registers, 32 * rng.randint(1, 63))
    else:
        rpw = rng.randint(1, max(1, p.registers // max(1, w)))
    r = rng.random()
    shared = 0 if r < 0.4 else p.shared_bytes if r < 0.45 else rng.randint(0, p.shared_bytes)
    return w, rpw, shared


def check_random_ops(p: DispatchCheckParams, rng: random.Random,
                     cycles: int) -> list[DispatchCheckOps]:
    """Random TB shapes on SMs in random states, biased to the edges of every check."""
    out = []
    for _ in range(cycles):
        w, rpw, shared = _demands(p, rng)
        r = rng.random()
        if r < 0.3:                                  # registers near a multiple of rpw
            k = w if rng.random() < 0.4 else rng.randint(0, p.max_warps_per_tb)
            regs = k * rpw + rng.choice((0, 0, -1, 1))
        elif r < 0.4:
            regs = rng.choice((0, p.registers))
        else:
            regs = rng.randint(0, p.registers)
        regs = min(max(regs, 0), p.registers)
        r = rng.random()
        if r < 0.25:
            fw = w + rng.choice((0, -1, 1))
        elif r < 0.35:
            fw = rng.choice((0, 1, p.warp_slots))
        else:
            fw = rng.randint(0, p.warp_slots)
        fw = min(max(fw, 0), p.warp_slots)
        r = rng.random()
        ft = 0 if r < 0.08 else p.tb_slots if r < 0.2 else rng.randint(1, p.tb_slots)
        r = rng.random()
        if r < 0.3:
            fs = shared + rng.choice((0, -1, 1))
        elif r < 0.4:
            fs = rng.choice((0, p.shared_bytes))
        else:
            fs = rng.randint(0, p.shared_bytes)
        fs = min(max(fs, 0), p.shared_bytes)
        if rng.random() < 0.01:                      # an empty SM (kernel launch)
            fw, ft, regs, fs = p.warp_slots, p.tb_slots, p.registers, p.shared_bytes
        out.append(DispatchCheckOps(free_warps=fw, free_tbs=ft, free_regs=regs, free_shared=fs,
                                    warps_per_tb=w, regs_per_warp=rpw, shared_per_tb=shared))
    return out


def check_count_events(p: DispatchCheckParams):
    """Per-check coverage counter (expected outputs, ops, counter)."""

    def count(expected, ops: DispatchCheckOps, cov: Counter) -> None:
        w, rpw = ops.warps_per_tb, ops.regs_per_warp
        if expected.tb_ok:
            cov["tb_ok"] += 1
        elif expected.warp_ok:
            cov["warp_only"] += 1
        else:
            cov["neither"] += 1
        cov["regs_exact_tb"] += ops.free_regs == w * rpw and rpw > 0
        cov["regs_one_short_tb"] += ops.free_regs == w * rpw - 1
        cov["regs_exact_multiple"] += rpw > 0 and ops.free_regs % rpw == 0 and ops.free_regs > 0
        cov["shared_exact"] += ops.free_shared == ops.shared_per_tb
        cov["shared_one_short"] += ops.free_shared == ops.shared_per_tb - 1
        cov["zero_free_warps"] += ops.free_warps == 0
        cov["zero_free_tbs"] += ops.free_tbs == 0
        cov["zero_free_regs"] += ops.free_regs == 0
        by_regs = ops.free_regs // rpw if rpw else w
        n = expected.n_warps
        cov["limited_by_regs"] += n == by_regs < min(w, ops.free_warps)
        cov["limited_by_warps"] += n == ops.free_warps < min(w, by_regs)
        cov["limited_by_tb_size"] += n == w < min(ops.free_warps, by_regs)
        cov["largest_tb"] += w == p.max_warps_per_tb
        cov["n_warps_max"] += n == p.max_warps_per_tb
        cov["regs_per_warp_zero"] += rpw == 0
        cov["single_warp_tb"] += w == 1
        cov["sm_empty"] += (ops.free_warps, ops.free_tbs, ops.free_regs, ops.free_shared) == \
            (p.warp_slots, p.tb_slots, p.registers, p.shared_bytes)

    return count
