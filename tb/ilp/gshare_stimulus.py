"""Stimulus for the ILP gshare predictor: directed scenarios, random traffic, coverage.

The random generator drives the way a front end does most of the time -- predict a
branch, later update the index that prediction used with an outcome that follows a
per-branch pattern (loops, biased branches) -- and mixes in raw random updates, and
predictions and updates of the same counter in one cycle. Shared by the amaranth.sim test
(tests/rtl) and the cocotb bench (tb/ilp/test_gshare.py).
"""

from __future__ import annotations

import random
from collections import Counter

from golden.structures.ilp import Gshare, GshareOps, GshareParams

__all__ = ["GOALS", "count_events", "directed", "random_ops"]

#: Coverage goals of one random run (events counted by :func:`count_events`).
GOALS = {"predict_taken": 50, "predict_not_taken": 50, "saturate_high": 10,
         "saturate_low": 10, "same_cycle_same_counter": 3, "history_nonzero": 50,
         "update_without_predict": 20}


def directed(p: GshareParams) -> list[tuple[str, list[GshareOps]]]:
    """Counter saturation both ways, history shifting into the index, and (with several
    histories) one warp's history leaving another's alone."""
    top = p.history_bits
    sat = [GshareOps(up_en=1, up_idx=0, up_taken=1) for _ in range(4)]
    sat += [GshareOps(pr_en=1, pr_pc=0)]
    sat += [GshareOps(up_en=1, up_idx=0, up_taken=0) for _ in range(4)]
    sat += [GshareOps(pr_en=1, pr_pc=(1 << min(p.pc_width, top)) - 1)]
    hist = [GshareOps(up_en=1, up_idx=(3 * i) % p.counters, up_taken=i & 1) for i in range(top + 2)]
    hist += [GshareOps(pr_en=1, pr_pc=i % (1 << p.pc_width)) for i in range(4)]
    # predict and update the same counter in one cycle: the prediction sees the old value
    same = [GshareOps(pr_en=1, pr_pc=1, up_en=1, up_idx=1, up_taken=1),
            GshareOps(pr_en=1, pr_pc=1, up_en=1, up_idx=1 ^ 1, up_taken=1)]
    out = [("saturate", sat), ("history", hist), ("same_cycle", same)]
    if p.histories > 1:
        last = p.histories - 1
        out.append(("per_warp", [GshareOps(up_en=1, up_idx=0, up_taken=1, up_warp=last),
                                 GshareOps(pr_en=1, pr_pc=0, pr_warp=0),
                                 GshareOps(pr_en=1, pr_pc=0, pr_warp=last)]))
    return out


def random_ops(p: GshareParams, rng: random.Random, cycles: int) -> list[GshareOps]:
    """``cycles`` requests: front-end-like predict/update pairs plus raw traffic."""
    shadow = Gshare(p)
    branches = [(rng.randrange(1 << p.pc_width), rng.choice(("loop", "taken", "not", "rand")),
                 rng.randrange(2, 9)) for _ in range(6)]
    trips = [0] * len(branches)
    pending: list = []          # (index, outcome, warp) of predictions awaiting update
    out = []
    for _ in range(cycles):
        ops = {}
        if rng.random() < 0.6:
            b = rng.randrange(len(branches))
            pc, kind, n = branches[b]
            warp = rng.randrange(p.histories)
            ops.update(pr_en=1, pr_pc=pc, pr_warp=warp)
            trips[b] += 1
            taken = {"loop": int(trips[b] % n != 0), "taken": int(rng.random() < 0.9),
                     "not": int(rng.random() < 0.1), "rand": rng.randrange(2)}[kind]
            pending.append((shadow.index(pc, warp), taken, warp))
        if pending and rng.random() < 0.5:
            idx, taken, warp = pending.pop(0)
            ops.update(up_en=1, up_idx=idx, up_taken=taken, up_warp=warp)
        elif rng.random() < 0.1:
            ops.update(up_en=1, up_idx=rng.randrange(p.counters), up_taken=rng.randrange(2),
                       up_warp=rng.randrange(p.histories))
        if rng.random() < 0.05 and ops.get("pr_en"):
            # the update hits the counter this cycle's prediction reads
            ops.update(up_en=1, up_idx=shadow.index(ops["pr_pc"], ops["pr_warp"]),
                       up_taken=rng.randrange(2), up_warp=rng.randrange(p.histories))
        o = GshareOps(**ops)
        shadow.step(o)
        out.append(o)
    return out


def count_events(p: GshareParams):
    """Per-cycle coverage counter for :func:`tb.stepper.play` (expected outputs, ops)."""
    shadow = Gshare(p)

    def count(expected, ops: GshareOps, cov: Counter) -> None:
        if ops.pr_en:
            cov["predict_taken" if expected.pr_taken else "predict_not_taken"] += 1
            if ops.up_en and ops.up_idx == expected.pr_idx:
                cov["same_cycle_same_counter"] += 1
        else:
            if ops.up_en:
                cov["update_without_predict"] += 1
        if expected.ghr:
            cov["history_nonzero"] += 1
        if ops.up_en:
            c = shadow.table[ops.up_idx]
            if (c == 3 and ops.up_taken) or (c == 0 and not ops.up_taken):
                cov["saturate_high" if c == 3 else "saturate_low"] += 1
        shadow.step(ops)

    return count
