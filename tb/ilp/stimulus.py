"""Stimulus for the ILP scoreboard: directed scenarios, state-aware random traffic, coverage.

The random generator steps a shadow golden :class:`~golden.structures.ilp.Scoreboard`
while it draws, so it can aim most requests at live state (writebacks to used entries,
commits of in-board warps, lookups of registers that are on the board) and still mix in
requests a correct SM would not send (writebacks to free entries, commits of empty warps,
stores while in-board), which the structure must handle as its docstring says. Shared by
the amaranth.sim test (tests/rtl) and the cocotb bench (tb/ilp).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

from golden.structures.ilp import Scoreboard, ScoreboardOps, ScoreboardParams

__all__ = ["GOALS", "count_events", "directed", "random_ops"]

#: Coverage goals of one random run (events counted by :func:`count_events`).
GOALS = {"alloc": 50, "alloc_full": 5, "store_refused": 3, "store_alloc": 5, "waw_clear": 10,
         "src_wait": 20, "src_ready": 20, "commit": 40, "commit_store": 3, "dst_not_cover": 3,
         "commit_and_alloc_same_warp": 2, "rd_lanes": 20, "partial_mask": 10}


def _full(p: ScoreboardParams) -> int:
    return (1 << p.lanes) - 1


def directed(p: ScoreboardParams) -> list[tuple[str, list[ScoreboardOps]]]:
    """The chapter's two sequences (§4.4.2) and the store / full-board corner cases."""
    full = _full(p)
    w1 = min(1, p.warps - 1)
    val = (1 << p.data_width) - 1
    seq_stall = [  # A: load r1 (miss); B: add r2; C: load r3, r2; D: add -, r1
        ScoreboardOps(al_en=1, al_warp=0, al_reg=1, al_mask=full),
        ScoreboardOps(src_en=1, src0=2, al_en=1, al_warp=0, al_reg=2, al_mask=full),
        ScoreboardOps(wb_en=1, wb_idx=1, wb_lanes=full, wb_data=0x1234 % (val + 1)),
        ScoreboardOps(src_en=1, src0=2, rd_en=1, rd_idx=1, al_en=1, al_warp=0, al_reg=3, al_mask=full),
        ScoreboardOps(src_en=1, src0=1, cm_en=1, cm_warp=0),
        ScoreboardOps(wb_en=1, wb_idx=0, wb_lanes=full, wb_data=val),
        ScoreboardOps(src_en=1, src0=1, cm_en=1, cm_warp=0),
        ScoreboardOps(cm_en=1, cm_warp=0),
        ScoreboardOps(),
    ]
    seq_waw = [  # A: load r1; B: add r1; C: add -, r1
        ScoreboardOps(al_en=1, al_warp=0, al_reg=1, al_mask=full),
        ScoreboardOps(dst=1, dst_mask=full, al_en=1, al_warp=0, al_reg=1, al_mask=full),
        ScoreboardOps(src_en=1, src0=1, dst=1, dst_mask=full >> 1),
        ScoreboardOps(wb_en=1, wb_idx=1, wb_lanes=full, wb_data=7),
        ScoreboardOps(src_en=0b111, src0=1, src1=1, src2=3),
    ]
    seq_store = [
        ScoreboardOps(al_en=1, al_warp=w1, al_reg=4, al_mask=full),
        ScoreboardOps(al_en=1, al_warp=w1, al_store=1, al_mask=full, q_warp=w1),
        ScoreboardOps(wb_en=1, wb_idx=0, wb_lanes=full, wb_data=3),
        ScoreboardOps(cm_en=1, cm_warp=w1, al_en=1, al_warp=w1, al_store=1, al_mask=full),
        ScoreboardOps(cm_en=1, cm_warp=w1, al_en=1, al_warp=w1, al_reg=5, al_mask=full, q_warp=w1),
        ScoreboardOps(al_en=1, al_warp=w1, al_store=1, al_mask=full, q_warp=w1),
        ScoreboardOps(wb_en=1, wb_idx=0, wb_lanes=full),
        ScoreboardOps(cm_en=1, cm_warp=w1, q_warp=w1),
        ScoreboardOps(q_warp=w1),
    ]
    seq_full = [ScoreboardOps(al_en=1, al_warp=i % p.warps, al_reg=i % (1 << p.reg_width), al_mask=full)
                for i in range(p.entries + 2)]
    seq_full += [ScoreboardOps(wb_en=1, wb_idx=p.entries - 1, wb_lanes=full, wb_data=val),
                 ScoreboardOps(cm_en=1, cm_warp=(p.entries - 1) % p.warps, al_en=1, al_warp=0,
                               al_reg=0, al_mask=0),
                 ScoreboardOps(al_en=1, al_warp=0, al_reg=0, al_mask=0),
                 ScoreboardOps(src_en=1, src0=0)]
    return [("stall_on_use", seq_stall), ("waw", seq_waw), ("store", seq_store),
            ("full", seq_full)]


def random_ops(p: ScoreboardParams, rng: random.Random, cycles: int) -> list[ScoreboardOps]:
    """``cycles`` requests drawn against a shadow golden model (see module docstring)."""
    shadow = Scoreboard(p)
    full = _full(p)
    nreg = 1 << p.reg_width
    regs = list(range(min(nreg, 3 * p.entries)))   # a small register pool makes WAW common
    out = []
    for _ in range(cycles):
        used = [i for i in range(p.entries) if shadow.used[i]]
        live = [shadow.reg[i] for i in used] or regs
        boarded = [w for w in range(p.warps) if shadow.in_board[w]]

        def reg_pick():
            return rng.choice(live) if rng.random() < 0.7 else rng.choice(regs)

        mask = full if rng.random() < 0.7 else rng.getrandbits(p.lanes)
        ops = ScoreboardOps(
            src_en=rng.getrandbits(3), src0=reg_pick(), src1=reg_pick(), src2=reg_pick(),
            dst=reg_pick(), dst_mask=full if rng.random() < 0.6 else rng.getrandbits(p.lanes),
            q_warp=rng.randrange(p.warps),
            cm_en=int(rng.random() < 0.45),
            cm_warp=rng.choice(boarded) if boarded and rng.random() < 0.85 else rng.randrange(p.warps),
            wb_en=int(rng.random() < 0.6),
            wb_idx=rng.choice(used) if used and rng.random() < 0.9 else rng.randrange(p.entries),
            wb_lanes=full if rng.random() < 0.5 else rng.getrandbits(p.lanes),
            wb_data=rng.getrandbits(p.data_width),
            al_en=int(rng.random() < 0.45), al_warp=rng.randrange(p.warps), al_reg=rng.choice(regs),
            al_mask=mask, al_store=int(rng.random() < 0.08),
            rd_en=int(rng.random() < 0.5),
            rd_idx=rng.choice(used) if used and rng.random() < 0.9 else rng.randrange(p.entries))
        if rng.random() < 0.05 and boarded:   # commit and append on the same warp
            ops = replace(ops, cm_en=1, al_en=1, al_store=0, al_warp=ops.cm_warp)
        shadow.step(ops)
        out.append(ops)
    return out


def count_events(p: ScoreboardParams):
    """Per-cycle coverage counter for :func:`tb.stepper.play` (expected outputs, ops)."""
    state = {"prev_used": set(), "sb": Scoreboard(p)}

    def count(expected, ops, cov: Counter) -> None:
        full = _full(p)
        if ops.al_en:
            if expected.al_ok:
                cov["alloc"] += 1
                if ops.al_store:
                    cov["store_alloc"] += 1
                if ops.al_mask not in (0, full):
                    cov["partial_mask"] += 1
            elif expected.full:
                cov["alloc_full"] += 1
            elif ops.al_store:
                cov["store_refused"] += 1
        if ops.al_en and expected.al_ok and not ops.al_store and ops.al_reg == ops.dst and expected.dst_hit:
            cov["waw_clear"] += 1
        for kbit in range(3):
            if expected.src_hit >> kbit & 1:
                cov["src_ready" if expected.src_done >> kbit & 1 else "src_wait"] += 1
        if expected.cm_ok:
            cov["commit"] += 1
            if not expected.cm_write:
                cov["commit_store"] += 1
            if ops.al_en and expected.al_ok and ops.al_warp == ops.cm_warp:
                cov["commit_and_alloc_same_warp"] += 1
        if expected.dst_hit and not expected.dst_cover:
            cov["dst_not_cover"] += 1
        if expected.rd_lanes:
            cov["rd_lanes"] += 1

    return count
