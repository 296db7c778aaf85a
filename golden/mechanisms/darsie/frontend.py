"""Shared front-end machinery of the fetch-skipping mechanisms (DARSIE, DAC-IDEAL).

* :class:`DeferredSkips` -- the functional side of skipping an instruction at fetch. A
  warp skips ``pc`` at fetch, but older instructions of the same warp may still sit in its
  I-buffer (not yet executed by the functional core). The skip is then *deferred*: it is
  applied right after the functional step that brings the warp's PC to ``pc``
  (:meth:`golden.timing.hooks.Mechanism.after_step`). Deferral is only allowed when every
  I-buffer entry is a non-control instruction, so the warp's path to ``pc`` is certain.
  An action is either a *copy* (DARSIE follower: the leader's result is written into the
  warp's registers by :meth:`golden.simt.engine.FunctionalLaunch.skip_warp`, the
  instruction is never executed for the warp) or a *step* (DAC-IDEAL: the idealised
  affine stream computed the value; the functional core evaluates it so outputs stay exact).
* :func:`full_mask` / :func:`ibuf_path_certain` -- eligibility helpers.
"""

from __future__ import annotations

from collections import deque

from golden.errors import SimtlabError

FULL = 0xFFFFFFFF


def full_mask(w) -> bool:
    """The warp's current SIMT-stack TOS mask has all 32 lanes (no SIMD divergence)."""
    st = w.wave.stacks
    d = st.depth.item(w.widx)
    return d > 0 and st.mask.item(w.widx, d - 1) == FULL


def ibuf_path_certain(sm, w) -> bool:
    """Every instruction in the warp's I-buffer is a non-control instruction, so its
    functional path certainly reaches ``w.fetch_pc``."""
    dec = sm.decoded
    for pc, _ in w.ibuf.entries:
        if dec[pc >> 3].is_control:
            return False
    return True


class DeferredSkips:
    """Per-warp queues of functional skip actions waiting for their program point."""

    def __init__(self):
        self._q: dict[int, deque] = {}

    def pending(self, w) -> bool:
        q = self._q.get(id(w))
        return bool(q)

    def can_skip(self, sm, w) -> bool:
        """True if a skip of ``w.fetch_pc`` can be applied now or deferred safely."""
        if w.wave.at_barrier[w.widx]:
            return False
        if not w.ibuf.entries and not self.pending(w):
            return sm.launch.next_pc(w.wave, w.widx) == w.fetch_pc
        return ibuf_path_certain(sm, w)

    def skip(self, sm, w, pc: int, values: dict | None) -> None:
        """Skip ``pc`` for ``w``: ``values`` (copy) or None (functional step)."""
        if not w.ibuf.entries and not self.pending(w):
            self._apply(sm, w, pc, values)
        else:
            self._q.setdefault(id(w), deque()).append((pc, values))

    def drain(self, sm, w) -> None:
        """Apply every queued skip whose PC the warp has now reached."""
        q = self._q.get(id(w))
        if not q:
            return
        launch = sm.launch
        while q and launch.next_pc(w.wave, w.widx) == q[0][0]:
            pc, values = q.popleft()
            self._apply(sm, w, pc, values)
        if not q:
            del self._q[id(w)]

    @staticmethod
    def _apply(sm, w, pc: int, values: dict | None) -> None:
        launch = sm.launch
        now_pc = launch.next_pc(w.wave, w.widx)
        if now_pc != pc:
            raise SimtlabError(f"fetch skip of pc 0x{pc:x} applied at functional pc {now_pc} "
                               f"(warp {w.widx} of TB {w.tb.tb_id}): mechanism bug")
        if values is None:
            launch.clock = sm.now
            launch.step_warp(w.wave, w.widx)
        else:
            launch.skip_warp(w.wave, w.widx, values)
        for m in sm.mechanisms:   # composed mechanisms keep their register state right
            m.on_skip(sm, w, pc)
