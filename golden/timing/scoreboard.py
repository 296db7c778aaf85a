"""Baseline dependence tracking: per-warp register reservation (scoreboard).

When an instruction issues, its destination registers are *reserved* until writeback.
A later instruction of the same warp that reads (RAW) or writes (WAW) a reserved
register cannot issue. The reservation also remembers whether the pending write comes
from a memory instruction, so the scheduler can classify the stall as ``memory`` (waiting
on a load) or ``dependence`` (waiting on an ALU/SFU result).
"""

from __future__ import annotations


class Scoreboard:
    """Reserved destination registers of one warp: ``reg index -> pending count / kind``."""

    __slots__ = ("pending", "from_mem")

    def __init__(self):
        self.pending: dict[int, int] = {}   # register -> outstanding writes
        self.from_mem: set[int] = set()     # registers whose pending write is a load

    def blocked(self, regs) -> int:
        """0 if none of ``regs`` is reserved, 2 if one waits on memory, else 1."""
        p = self.pending
        hit = 0
        for r in regs:
            if r in p:
                if r in self.from_mem:
                    return 2
                hit = 1
        return hit

    def reserve(self, regs, is_mem: bool) -> None:
        """Reserve the destination registers of an issued instruction."""
        p = self.pending
        for r in regs:
            p[r] = p.get(r, 0) + 1
            if is_mem:
                self.from_mem.add(r)

    def release(self, regs) -> None:
        """Writeback of ``regs``: clear their reservation."""
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
