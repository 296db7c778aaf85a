"""Baseline dependence tracking of one warp, chosen by ``pipelines.dependence_tracking``.

* ``scoreboard`` (:class:`Scoreboard`): per-warp register reservation (below);
* ``one_in_flight`` (:class:`OneInFlight`): a ready bit per warp, cleared when any
  instruction issues and set when it reaches WB (the ILP chapter's baseline, seed 002
  §4.4: one instruction in flight per warp, "stall on miss").

The tracker protocol (what the SM calls; a mechanism can supply its own tracker per warp
through :meth:`golden.timing.hooks.Mechanism.make_tracker`, e.g. the ILP chapter's shared
scoreboard):

* ``blocked(d) -> int`` for the :class:`~golden.timing.sm.DecodedInst` at the I-buffer
  head: 0 = may issue, 1 = waits on an ALU/SFU result (``dependence`` stall), 2 = waits on
  memory (``memory`` stall), 3 = a structure of the tracker is full (``structural``);
* ``reserve(regs, is_mem, mask=FULL_MASK)`` when the instruction issues (``mask``: the
  lanes that executed); it may return a *token* (not None): the SM then hands the
  registers back to ``release`` as a :class:`Tagged` tuple carrying it, so a tracker can
  tell two in-flight writes of one register apart;
* ``release(regs)`` when the instruction reaches WB;
* ``empty()``; the class attribute ``tracks_all``: when True the SM reserves and releases
  for *every* instruction (stores when the memory system accepts them, branches and other
  instructions without a destination after their pipeline latency), not only for those
  with destination registers.

Register reservation
--------------------

When an instruction issues, its destination registers are *reserved* until writeback.
A later instruction of the same warp that reads (RAW) or writes (WAW) a reserved
register cannot issue. The reservation also remembers whether the pending write comes
from a memory instruction, so the scheduler can classify the stall as ``memory`` (waiting
on a load) or ``dependence`` (waiting on an ALU/SFU result).
"""

from __future__ import annotations


#: every lane of a 32-thread warp
FULL_MASK = (1 << 32) - 1


class Tagged(tuple):
    """Destination registers of one in-flight instruction plus the tracker's ``token``."""

    def __new__(cls, regs, token):
        t = super().__new__(cls, regs)
        t.token = token
        return t


class Scoreboard:
    """Reserved destination registers of one warp: ``reg index -> pending count / kind``."""

    __slots__ = ("pending", "from_mem", "_asked", "_answer")

    #: reserve/release only instructions that write registers
    tracks_all = False

    def __init__(self):
        self.pending: dict[int, int] = {}   # register -> outstanding writes
        self.from_mem: set[int] = set()     # registers whose pending write is a load
        #: the last instruction :meth:`blocked` answered for and its answer, until the next
        #: reserve or release (the issue walk asks about the same waiting head many times)
        self._asked = None
        self._answer = 0

    def blocked(self, d) -> int:
        """0 if none of ``d``'s registers (sources and destinations) is reserved, 2 if one
        waits on memory, else 1."""
        if d is self._asked:
            return self._answer
        p = self.pending
        hit = 0
        for r in d.hazard:
            if r in p:
                if r in self.from_mem:
                    hit = 2
                    break
                hit = 1
        self._asked = d
        self._answer = hit
        return hit

    def reserve(self, regs, is_mem: bool, mask: int = FULL_MASK) -> None:
        """Reserve the destination registers of an issued instruction."""
        self._asked = None
        p = self.pending
        for r in regs:
            p[r] = p.get(r, 0) + 1
            if is_mem:
                self.from_mem.add(r)

    def release(self, regs) -> None:
        """Writeback of ``regs``: clear their reservation."""
        self._asked = None
        p = self.pending
        for r in regs:
            n = p.get(r, 0) - 1
            if n <= 0:
                p.pop(r, None)
                self.from_mem.discard(r)
            else:
                p[r] = n

    def empty(self) -> bool:
        """True when no write is outstanding."""
        return not self.pending


class OneInFlight:
    """Ready bit of one warp: at most one instruction in flight (ILP chapter baseline).

    ``blocked`` ignores the registers: any outstanding instruction blocks the warp (2 if it
    is a memory instruction, for the stall breakdown, else 1).
    """

    __slots__ = ("kinds",)

    #: the SM reserves and releases for every instruction, destinations or not
    tracks_all = True

    def __init__(self):
        self.kinds: list[bool] = []   # is_mem of each outstanding instruction, oldest first

    def blocked(self, d) -> int:
        """0 when nothing is in flight; 2 if the oldest outstanding one is a memory access."""
        k = self.kinds
        if not k:
            return 0
        return 2 if k[0] else 1

    def reserve(self, regs, is_mem: bool, mask: int = FULL_MASK) -> None:
        """An instruction issued: clear the ready bit."""
        self.kinds.append(bool(is_mem))

    def release(self, regs) -> None:
        """An instruction reached WB: set the ready bit again (when none is left)."""
        if self.kinds:
            self.kinds.pop(0)

    def empty(self) -> bool:
        return not self.kinds


#: ``pipelines.dependence_tracking`` -> per-warp tracker class
TRACKERS = {"scoreboard": Scoreboard, "one_in_flight": OneInFlight}
