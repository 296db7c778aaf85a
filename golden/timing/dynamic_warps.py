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
* dependence tracking by register-file row (:class:`RowScoreboard`): a static warp's
  registers live in one RF row per thread lane group, so a dynamic warp's pending writes
  are reserved in the row of every static warp whose threads it holds, and a dynamic warp
  waits on a register pending in any of its threads' rows (conservative: a pending write
  blocks the whole row). Reservations are released in the rows they were made in, so
  re-forming warps while results are in flight is safe;
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


class DynWarp:
    """What a warp slot runs under a formation policy: ``slots[l]`` = wave slot of the
    thread in lane ``l`` (home lane ``l``), ``mask`` = lanes that hold an active thread,
    ``pc`` = next PC, ``rows`` = static warps (RF rows) its threads belong to, ``policy``
    = the :class:`WarpFormation` that owns it."""

    __slots__ = ("slots", "mask", "pc", "rows", "policy")

    def __init__(self, slots: np.ndarray, mask: int, pc: int, rows: tuple, policy):
        self.slots = slots
        self.mask = mask
        self.pc = pc
        self.rows = rows
        self.policy = policy


class RowScoreboard:
    """Dependence tracking of a dynamic warp: the per-row scoreboards of the static warps
    whose threads it holds (see the module docstring). ``reserve`` returns the rows as
    the token the SM hands back to ``release`` at writeback."""

    __slots__ = ("rows",)
    tracks_all = False

    def __init__(self, rows: tuple):
        self.rows = rows

    def blocked(self, d) -> int:
        worst = 0
        for r in self.rows:
            b = r.blocked(d)
            if b > worst:
                worst = b
                if b == 2:
                    break
        return worst

    def reserve(self, regs, is_mem: bool, mask: int = 0xFFFFFFFF):
        for r in self.rows:
            r.reserve(regs, is_mem, mask)
        return self.rows

    def release(self, regs) -> None:
        for r in regs.token:
            r.release(regs)

    def empty(self) -> bool:
        return all(r.empty() for r in self.rows)


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
        #: per static warp of the TB: the dependence tracker of its RF row
        self.rows = [Scoreboard() for _ in range(tb.wave.nwarps)]

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
        rows = tuple(sorted({int(s) >> 5 for s, on in zip(slots, _bits(mask)) if on}))
        w.dyn = DynWarp(slots, mask, pc, rows, self)
        w.sb = RowScoreboard(tuple(self.rows[r] for r in rows))
        self._restart(w, pc)
        w.hold = False

    def idle(self, w) -> None:
        """Warp slot ``w`` holds no thread until the next :meth:`assign`."""
        pc = w.dyn.pc if w.dyn is not None else 0
        w.dyn = DynWarp(np.arange(32, dtype=np.int64), 0, pc, (), self)
        w.sb = RowScoreboard(())
        w.hold = True
        w.ibuf.flush()

    def _restart(self, w, pc: int) -> None:
        w.ibuf.flush()
        w.fetch_pc = pc
        w.sched.dirty = True

    def finish(self) -> None:
        """Every thread of the TB exited: its warp slots finish (the TB retires)."""
        for w in list(self.tb.warps):
            if not w.done:
                self.sm.finish_warp(w)


def _bits(mask: int) -> list:
    return [(mask >> l) & 1 for l in range(32)]
