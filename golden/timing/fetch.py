"""Front end of an SM: the instruction cache and the per-warp I-buffer.

* :class:`InstructionCache` -- per-SM set-associative LRU I-cache over PCs (8 bytes per
  instruction, ``line_bytes / 8`` instructions per line). A probe returns the cycle the
  instruction reaches the I-buffer: ``hit_latency`` on a hit, ``hit_latency +
  miss_latency`` on a miss (the line is filled at once; a later probe of the same line
  hits -- simplification: no I-cache MSHR merging model beyond that).
* :class:`IBuffer` -- decoded instructions of one warp waiting for issue
  (``ibuffer_entries`` slots, DARSIE §3: two per warp). An entry stores the PC and the
  cycle it becomes valid (fetch + I-cache latency).

The fetch *scheduler* (loose round robin over warps with a free I-buffer slot) lives in
:meth:`golden.timing.sm.SM._fetch` because it walks the SM's warp slots.
"""

from __future__ import annotations

from collections import deque

from golden.configs.schema import ICacheConfig

#: ``IBuffer.head_pc`` / ``head_at`` of an empty buffer
EMPTY = -1


class InstructionCache:
    """Tags of a set-associative LRU instruction cache (stores line addresses only)."""

    def __init__(self, cfg: ICacheConfig):
        self.line_bytes = cfg.line_bytes
        self.sets = max(1, cfg.sets)
        self.assoc = cfg.assoc
        self.hit_latency = cfg.hit_latency
        self.miss_latency = cfg.miss_latency
        self._tags: list[list[int]] = [[] for _ in range(self.sets)]  # MRU last
        self.hits = 0
        self.misses = 0

    def probe(self, pc: int) -> int:
        """Access ``pc``; return its latency in cycles (hit or miss) and update LRU."""
        line = pc // self.line_bytes
        ways = self._tags[line % self.sets]
        if line in ways:
            self.hits += 1
            if ways[-1] != line:
                ways.remove(line)
                ways.append(line)
            return self.hit_latency
        self.misses += 1
        if len(ways) >= self.assoc:
            ways.pop(0)
        ways.append(line)
        return self.hit_latency + self.miss_latency


class IBuffer:
    """Per-warp instruction buffer: a FIFO of ``(pc, ready_cycle)`` entries.

    ``entries`` is the FIFO (read it freely; change it only through :meth:`push`,
    :meth:`pop` and :meth:`flush`). ``size``, ``head_pc`` and ``head_at`` mirror its
    length and head entry as plain ints, so the issue walk reads them without touching the
    deque (``head_pc`` and ``head_at`` are :data:`EMPTY` when the buffer is empty)."""

    __slots__ = ("entries", "capacity", "size", "head_pc", "head_at")

    def __init__(self, capacity: int):
        self.entries: deque = deque()
        self.capacity = capacity
        self.flush()

    def has_space(self) -> bool:
        """True if the fetch stage may add an entry."""
        return self.size < self.capacity

    def push(self, pc: int, ready: int) -> None:
        """Add the instruction at ``pc`` that becomes issuable at cycle ``ready``."""
        self.entries.append((pc, ready))
        if self.size == 0:
            self.head_pc = pc
            self.head_at = ready
        self.size += 1

    def pop(self) -> None:
        """Remove the head entry (it issued)."""
        e = self.entries
        e.popleft()
        self.size -= 1
        if self.size:
            self.head_pc, self.head_at = e[0]
        else:
            self.flush()

    def flush(self) -> None:
        """Drop every entry (taken branch, reconvergence, barrier)."""
        self.entries.clear()
        self.size = 0
        self.head_pc = EMPTY
        self.head_at = EMPTY
