"""Dynamic warps: warps whose threads are chosen at run time (issue 17, item 1).

By default a warp is a fixed set of 32 threads (a *static* warp) and its PC, masks and
reconvergence live in the functional core's per-warp SIMT stack. A *warp-formation
policy* (a :class:`WarpFormation`, returned by a mechanism's ``form_warps`` hook for each
thread block it wants to own) instead decides, for every resident warp slot of the TB,
which of the TB's threads it runs, at which PC and with which active lanes. Every thread
keeps its *home lane* (lane ``l`` of a dynamic warp holds a thread with ``slot % 32 ==
l``), so registers never move: this is how thread block compaction (TBC, Fung & Aamodt;
CAPRI, seed 004 §2.2) forms warps.

What the timing model provides (:class:`golden.timing.sm.SM`):

* a :class:`~golden.timing.sm.WarpSlot` with ``dyn`` set (a :class:`DynWarp`) issues its
  instructions through the policy's :meth:`WarpFormation.step`, which runs the
  functional step over exactly its threads
  (:meth:`golden.simt.engine.FunctionalLaunch.step_threads`) and moves its PC;
* fetch follows ``dyn.pc``; ``warp.hold`` stops a warp (waiting for the other warps of
  its TB, or idle: no threads); :meth:`WarpFormation.assign` gives a slot new threads
  (its I-buffer is flushed, fetch restarts at the new PC);
* dependence tracking per thread (:class:`ThreadScoreboard`): a pending write records
  the RF rows (static warps) and lanes it covers; a dynamic warp waits on a register only
  while a write to it is pending for one of its own threads. Tokens are released where
  they were reserved, so re-forming warps while results are in flight is safe and keeps
  exactly the true dependences;
* local memory is addressed per thread (a dynamic warp's lanes map to their threads).

A policy must hold a warp only until another warp of its TB issues (the SM simulates
that event) and finishes the TB's warp slots (:meth:`WarpFormation.finish`) when every
thread exited. Dynamic warps support one dependence tracker (the config's per-warp
scoreboard), no partial-TB dispatch and no mechanism that reads the per-warp SIMT stack
(branch prediction, DARSIE).
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.timing.scoreboard import Scoreboard

LANE_IDS = np.arange(32, dtype=np.int64)
LANE_IDS.flags.writeable = False   # the slots of an idle warp; copied before any change


def lane_threads(slots: np.ndarray, lanes: int):
    """``(lane bit, thread slot)`` of every lane set in ``lanes`` of a dynamic warp whose
    lane ``l`` holds thread ``slots[l]``, lowest lane first."""
    while lanes:
        low = lanes & -lanes
        yield low, int(slots[low.bit_length() - 1])
        lanes ^= low


class DynWarp:
    """What a warp slot runs under a formation policy: ``slots[l]`` = wave slot of the
    thread in lane ``l`` (home lane ``l``), ``mask`` = lanes that hold an active thread,
    ``pc`` = next PC, ``policy`` = the :class:`WarpFormation` that owns it."""

    __slots__ = ("slots", "mask", "pc", "policy")

    def __init__(self, slots: np.ndarray, mask: int, pc: int, policy):
        self.slots = slots
        self.mask = mask
        self.pc = pc
        self.policy = policy


class ThreadScoreboard:
    """Dependence tracking of one dynamic warp: a register is blocked while a write to it
    is pending for any of the warp's own threads (in any RF row), so re-forming warps
    while results are in flight keeps every true dependence and adds none. ``reserve``
    returns the write's token, which the SM hands back to ``release`` at writeback.

    :meth:`blocked` answers from a per-register summary of the pending writes (``summary``,
    shared by the TB's trackers like ``pending``: ``reg -> (lanes of any pending write per
    RF row, lanes of a pending memory write per RF row)``), kept up to date by
    :meth:`reserve` and dropped by :meth:`release`; :meth:`blocked_reference` is the plain
    walk over every pending token it replaces (tests/mechanisms/test_tbc.py checks one
    against the other)."""

    __slots__ = ("pending", "rows", "summary")
    tracks_all = False

    def __init__(self, pending: dict, rows: dict, summary: dict):
        #: the TB's pending writes: ``reg -> list of [rows, is_mem]`` tokens, ``rows``
        #: mapping a static warp (RF row) to the lanes the write covers
        self.pending = pending
        self.rows = rows          # static warp -> lanes of this warp's threads in that row
        self.summary = summary    # reg -> (row -> lanes of any write, row -> lanes of mem writes)

    def blocked(self, d) -> int:
        """0 = free, 1 = a pending write to a register of ``d`` covers one of this warp's
        threads, 2 = such a write is a load (the same answer as :meth:`blocked_reference`)."""
        p = self.pending
        summ = self.summary
        mine = self.rows
        hit = 0
        for r in d.hazard:
            lst = p.get(r)
            if not lst:
                continue
            s = summ.get(r)
            if s is None:
                s = summ[r] = _summarise(lst)
            written, loads = s
            for row, lanes in mine.items():
                if lanes & loads.get(row, 0):
                    return 2
                if lanes & written.get(row, 0):
                    hit = 1
        return hit

    def blocked_reference(self, d) -> int:
        """:meth:`blocked` by walking every pending token of every register of ``d``."""
        p = self.pending
        mine = self.rows
        hit = 0
        for r in d.hazard:
            lst = p.get(r)
            if not lst:
                continue
            for rows, is_mem in lst:
                for row, lanes in rows.items():
                    if lanes & mine.get(row, 0):
                        if is_mem:
                            return 2
                        hit = 1
                        break
        return hit

    def reserve(self, regs, is_mem: bool, mask: int = 0xFFFFFFFF):
        rows = {row: lanes & mask for row, lanes in self.rows.items() if lanes & mask}
        tok = [rows, is_mem]
        p = self.pending
        summ = self.summary
        for r in regs:
            p.setdefault(r, []).append(tok)
            s = summ.get(r)
            if s is not None:      # a new write only adds lanes: update the summary in place
                written, loads = s
                for row, lanes in rows.items():
                    written[row] = written.get(row, 0) | lanes
                    if is_mem:
                        loads[row] = loads.get(row, 0) | lanes
        return tok

    def release(self, regs) -> None:
        p = self.pending
        summ = self.summary
        tok = regs.token
        for r in regs:
            lst = p.get(r)
            if lst is not None:
                summ.pop(r, None)  # lanes may leave: rebuilt at the next blocked()
                for i, t in enumerate(lst):
                    if t is tok:
                        del lst[i]
                        break
                if not lst:
                    del p[r]

    def empty(self) -> bool:
        return not self.pending


def _summarise(tokens) -> tuple[dict, dict]:
    """``(lanes of any write per RF row, lanes of a memory write per RF row)`` of the
    pending-write tokens of one register (:class:`ThreadScoreboard`)."""
    written: dict = {}
    loads: dict = {}
    for rows, is_mem in tokens:
        for row, lanes in rows.items():
            written[row] = written.get(row, 0) | lanes
            if is_mem:
                loads[row] = loads.get(row, 0) | lanes
    return written, loads


class WarpFormation:
    """Base class of a warp-formation policy for one resident TB (see module docstring).

    Subclasses implement :meth:`start` (give the TB's warp slots their first threads) and
    :meth:`step` (issue warp ``w``'s next instruction). Helpers: :meth:`assign`,
    :meth:`idle`, :meth:`finish`, :meth:`execute`."""

    def __init__(self, sm, tb):
        if sm.tracker is not Scoreboard:
            raise ConfigError("dynamic warps need the per-warp scoreboard "
                              "(pipelines.dependence_tracking: scoreboard)")
        self.sm = sm
        self.tb = tb
        self.wave = tb.wave
        #: pending register writes of the TB's threads (per thread, see ThreadScoreboard)
        self.pending: dict = {}
        #: their per-register summary (ThreadScoreboard.summary)
        self.summary: dict = {}

    # ------------------------------------------------------------------ interface
    def start(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def step(self, w):  # pragma: no cover - abstract
        """Issue ``w``'s instruction at ``w.dyn.pc``; return the engine's StepRecord."""
        raise NotImplementedError

    # ------------------------------------------------------------------ helpers
    def execute(self, w):
        """The functional step of ``w``'s next instruction over its threads."""
        d = w.dyn
        return self.sm.launch.step_threads(self.wave, d.slots, d.mask, d.pc)

    def assign(self, w, slots: np.ndarray, mask: int, pc: int) -> None:
        """Warp slot ``w`` runs threads ``slots`` (lanes ``mask``) from ``pc`` on."""
        rows: dict = {}
        for low, t in lane_threads(slots, mask):
            rows[t >> 5] = rows.get(t >> 5, 0) | low
        w.dyn = DynWarp(slots, mask, pc, self)
        w.sb = ThreadScoreboard(self.pending, rows, self.summary)
        w.ibuf.flush()
        w.fetch_pc = pc
        w.sched.dirty = True
        w.hold = False

    def idle(self, w) -> None:
        """Warp slot ``w`` holds no thread until the next :meth:`assign`."""
        pc = w.dyn.pc if w.dyn is not None else 0
        w.dyn = DynWarp(LANE_IDS, 0, pc, self)
        w.sb = ThreadScoreboard(self.pending, {}, self.summary)
        w.hold = True
        w.ibuf.flush()

    def finish(self) -> None:
        """Every thread of the TB exited: its warp slots finish (the TB retires)."""
        for w in list(self.tb.warps):
            if not w.done:
                self.sm.finish_warp(w)


