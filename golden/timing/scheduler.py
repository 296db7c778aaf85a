"""Issue (warp) schedulers: the order in which one scheduler considers its warps.

Warps are statically partitioned: SM-local warp slot ``w`` belongs to scheduler
``w mod num_schedulers_per_sm``. Each cycle the scheduler walks its warps in policy
order and issues from the first warp whose I-buffer head can issue (up to
``issue_width`` instructions, all from that warp).

Policies (``core.scheduler``):

* ``lrr`` -- loose round robin: start after the warp that issued last.
* ``gto`` -- greedy then oldest: keep issuing from the last warp that issued while it
  can; otherwise the oldest warp (smallest dispatch sequence number) first.
* ``sticky_rr`` -- sticky round robin (CAPRI §4, GPGPU-Sim 2.x): the thread block of the
  warp that issued last is the *current* one; its warps come first, round robin among
  them (starting after the last issuer), so they keep top priority until all of them
  stall; then the other blocks' warps, block by block in round-robin order from the one
  dispatched after the current block. A warp of another block that issues makes its
  block current.
* ``two_level`` -- two-level scheduling (Narasiman et al., MICRO 2011): an *active set*
  of ``two_level_active_warps`` warps is scheduled LRR; a warp that stalls on a
  long-latency (memory) dependence is demoted to the tail of the *pending* queue and
  the head of the pending queue is promoted.

When the last issuer exits (the instruction it issued was its ``exit``), ``lrr`` and
``sticky_rr`` continue from its slot, as GPGPU-Sim's scheduler does with its fixed list
of warp slots (its ``m_last_supervised_issued`` keeps pointing at the exited warp's
slot): lrr with the warp dispatched after it, sticky_rr with its block's remaining
warps. ``gto`` falls back to oldest first, as GPGPU-Sim's greedy pick skips an exited
warp.
"""

from __future__ import annotations


#: A cycle that never comes (no pending event).
NEVER = 1 << 62


class IssueScheduler:
    """One issue scheduler of an SM and the warps assigned to it."""

    def __init__(self, index: int, policy: str, active_size: int):
        self.index = index
        self.policy = policy
        self.active_size = active_size
        self.warps: list = []        # WarpSlot objects, in dispatch order (oldest first)
        self.active: list = []       # two_level: active set
        self.pending: list = []      # two_level: pending queue
        self.last = None             # warp that issued last
        self.last_reason = 0         # stall outcome of the last evaluated cycle
        self.stall_pc = -1           # the PC that outcome belongs to (golden/timing/pc_profile.py)
        # Evaluation skipping (see SM.tick): after a stall the outcome cannot change before
        # ``wake`` unless an event marks the scheduler ``dirty`` (writeback, fetch, barrier...).
        self.dirty = True
        self.wake = 0
        self.head_ready = NEVER  # set by the SM's issue walk: earliest pending I-buffer head
        self._order = None  # gto / sticky_rr: the order for the current ``last`` (rebuilt when it changes)
        # The last issuer exited: (its position in ``warps``, its TB), so lrr / sticky_rr
        # continue after its slot as GPGPU-Sim's fixed warp-slot list does (None otherwise).
        self._resume = None
        self._gone = None   # (warp, position) of the warp removed last

    def add(self, warp) -> None:
        """A warp was dispatched to this scheduler."""
        self.dirty = True
        self._order = None
        self.warps.append(warp)
        if self.policy == "two_level":
            (self.active if len(self.active) < self.active_size else self.pending).append(warp)

    def remove(self, warp) -> None:
        """A warp finished."""
        self.dirty = True
        self._order = None
        i = self.warps.index(warp)
        del self.warps[i]
        self._gone = (warp, i)
        r = self._resume
        if r is not None and i < r[0]:
            self._resume = (r[0] - 1, r[1])
        if self.last is warp:
            self.last = None
            self._resume = (i, warp.tb)
        if self.policy == "two_level":
            if warp in self.active:
                self.active.remove(warp)
                if self.pending:
                    self.active.append(self.pending.pop(0))
            elif warp in self.pending:
                self.pending.remove(warp)

    def order(self) -> list:
        """Warps in the order this cycle considers them."""
        ws = self.active if self.policy == "two_level" else self.warps
        last = self.last
        if self.policy == "gto":
            if last is None or last is ws[0]:
                return ws
            o = self._order
            if o is None:
                o = self._order = [last] + [w for w in ws if w is not last]
            return o
        if last is None:
            r = self._resume
            if r is None or self.policy == "two_level" or not ws:
                return ws
            o = self._order
            if o is None:
                i = r[0] % len(ws)
                o = self._order = (_sticky_order_at(ws, i, r[1]) if self.policy == "sticky_rr"
                                   else ws[i:] + ws[:i])
            return o
        if last not in ws:
            return ws
        if self.policy == "sticky_rr":
            o = self._order
            if o is None:
                o = self._order = _sticky_order(ws, last)
            return o
        i = ws.index(last) + 1
        return ws[i:] + ws[:i]

    def issued(self, warp) -> None:
        """``warp`` issued this cycle (if that was its exit, it has been removed already:
        the order then continues after its slot)."""
        if warp.done:
            g = self._gone
            if g is not None and g[0] is warp:
                self.last = None
                self._resume = (g[1], warp.tb)
                self._order = None
            return
        if warp is not self.last:
            self.last = warp
            self._resume = None
            self._order = None

    def long_stall(self, warp) -> None:
        """two_level: ``warp`` waits on memory or at a barrier; swap it out of the active set
        (otherwise a full active set of barrier-waiting warps would starve the pending warps
        that must arrive to release the barrier)."""
        if self.policy == "two_level" and self.pending and warp in self.active:
            self.dirty = True  # the active set changed: re-evaluate next cycle
            self.active.remove(warp)
            self.pending.append(warp)
            self.active.append(self.pending.pop(0))


def _sticky_order_at(ws: list, i: int, tb) -> list:
    """sticky_rr order when the last issuer, a warp of block ``tb``, has exited from
    position ``i`` of ``ws``: the block's remaining warps round robin from that slot, then
    the other blocks' warps starting after the block's last remaining warp."""
    rot = ws[i:] + ws[:i]
    mine = [w for w in rot if w.tb is tb]
    if not mine:
        return rot
    end = max(k for k, w in enumerate(ws) if w.tb is tb) + 1
    return mine + [w for w in ws[end:] + ws[:end] if w.tb is not tb]


def _sticky_order(ws: list, last) -> list:
    """sticky_rr order of warps ``ws`` (dispatch order) when ``last`` issued last: its
    block's warps round robin after it, then the other blocks' warps in block round-robin
    order starting after the current block's last warp."""
    tb = last.tb
    after = ws.index(last) + 1
    rot = ws[after:] + ws[:after]
    mine = [w for w in rot if w.tb is tb]
    end = max(k for k, w in enumerate(ws) if w.tb is tb) + 1
    return mine + [w for w in ws[end:] + ws[:end] if w.tb is not tb]
