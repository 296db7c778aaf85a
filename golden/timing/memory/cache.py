"""Set-associative sectored cache tags with true LRU, and miss status holding registers.

:class:`SectorCache` stores, per set, up to ``assoc`` lines, each with a valid-sector mask
and a dirty-sector mask (GPGPU-Sim's sectored cache: one tag per line, valid/dirty bits
per sector). Replacement is true LRU: every lookup that hits and every fill moves the
line to the most-recently-used end of its set; a fill into a full set evicts the least
recently used line. The set of a line is ``(line_number // index_divisor) mod sets`` --
``index_divisor`` lets an L2 slice drop the address bits used to pick the slice. With
``chunk_lines`` k > 1 (slices interleaved by chunks of k lines) the index is the line's
number inside its slice, ``((line_number // (k * index_divisor)) * k + line_number mod k)
mod sets``, which is the formula above for k = 1.

The write policy is not decided here (the tags only record valid/dirty sectors); the
users are :mod:`golden.timing.memory.hierarchy` (L1: write-through, no write-allocate for
global stores, as Fermi/Pascal L1s) and :mod:`golden.timing.memory.l2` (L2: write-back,
write-allocate with sector-granular writes).

:class:`MSHRTable` holds one entry per line with an outstanding miss: the sectors
requested and the cycle their data returns. A miss to a line that already has an entry
merges into it (no new entry, no new request for sectors already requested); a miss that
needs a new entry when all entries are in use is a *reservation fail* and the requester
must retry. Entries are released (and the data filled) when their return cycle passes.
Simplification: merges per entry are unlimited.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict
from dataclasses import dataclass

from golden.errors import SimtlabError


@dataclass
class LineState:
    """Valid and dirty sector masks of one resident line."""

    valid: int = 0
    dirty: int = 0


class SectorCache:
    """Tag array of a set-associative sectored cache with true LRU replacement."""

    def __init__(self, *, sets: int, assoc: int, line_bytes: int, index_divisor: int = 1,
                 chunk_lines: int = 1):
        if sets < 0 or assoc < 1 or line_bytes < 1 or index_divisor < 1 or chunk_lines < 1:
            raise SimtlabError(f"bad cache geometry sets={sets} assoc={assoc} "
                               f"line_bytes={line_bytes} index_divisor={index_divisor} "
                               f"chunk_lines={chunk_lines}")
        self._sets_n = sets
        self._assoc = assoc
        self._line = line_bytes
        self._div = index_divisor
        self._k = chunk_lines
        # One ordered map per set: line address -> state, least recently used first.
        self._sets: list[OrderedDict[int, LineState]] = [OrderedDict() for _ in range(sets)]

    @property
    def enabled(self) -> bool:
        """False for a zero-size cache (every access misses, nothing is stored)."""
        return self._sets_n > 0

    @property
    def sets(self) -> int:
        return self._sets_n

    @property
    def assoc(self) -> int:
        return self._assoc

    def set_index(self, line_addr: int) -> int:
        """Set holding the line at byte address ``line_addr``."""
        n = line_addr // self._line
        k = self._k
        if k == 1:
            return (n // self._div) % self._sets_n
        return ((n // (k * self._div)) * k + n % k) % self._sets_n

    def _set(self, line_addr: int) -> OrderedDict:
        return self._sets[self.set_index(line_addr)]

    def probe(self, line_addr: int) -> LineState | None:
        """The line's state without touching LRU order (None if not resident)."""
        if not self._sets_n:
            return None
        return self._set(line_addr).get(line_addr)

    def lookup(self, line_addr: int, sector_mask: int) -> int:
        """Access the line: returns the requested sectors that are *missing*.

        A resident line becomes most recently used even if some sectors miss.
        """
        if not self._sets_n:
            return sector_mask
        s = self._set(line_addr)
        st = s.get(line_addr)
        if st is None:
            return sector_mask
        s.move_to_end(line_addr)
        return sector_mask & ~st.valid

    def fill(self, line_addr: int, sector_mask: int, *, dirty: bool = False):
        """Make sectors valid (and dirty if ``dirty``), allocating the line if absent.

        Returns the evicted ``(line_addr, LineState)`` if a line had to make room, else None.
        """
        if not self._sets_n:
            return None
        s = self._set(line_addr)
        victim = None
        st = s.get(line_addr)
        if st is None:
            if len(s) >= self._assoc:
                victim = s.popitem(last=False)
            st = LineState()
            s[line_addr] = st
        else:
            s.move_to_end(line_addr)
        st.valid |= sector_mask
        if dirty:
            st.dirty |= sector_mask
        return victim

    def invalidate(self, line_addr: int) -> LineState | None:
        """Drop the line (returns its state, None if it was not resident)."""
        if not self._sets_n:
            return None
        return self._set(line_addr).pop(line_addr, None)

    def snapshot(self) -> list[tuple[int, int, int]]:
        """Every resident line as ``(line_addr, valid, dirty)``, set by set, least recently
        used first within a set (refilling in this order restores the LRU state)."""
        return [(a, st.valid, st.dirty) for s in self._sets for a, st in s.items()]

    def lru_order(self, line_addr: int) -> list[int]:
        """Resident lines of ``line_addr``'s set, least recently used first (for tests/traces)."""
        return list(self._set(line_addr).keys()) if self._sets_n else []


@dataclass
class MSHREntry:
    """One outstanding missed line: requested sectors and the cycle its data returns."""

    sectors: int
    ready: int
    merged: int = 0


class MSHRTable:
    """Miss status holding registers of one cache (one entry per missed line)."""

    def __init__(self, entries: int):
        if entries < 1:
            raise SimtlabError(f"MSHR entries must be >= 1, got {entries}")
        self._cap = entries
        self._entries: dict[int, MSHREntry] = {}
        self._heap: list[tuple[int, int]] = []     # (ready cycle, line) for release

    @property
    def capacity(self) -> int:
        return self._cap

    @property
    def in_use(self) -> int:
        return len(self._entries)

    @property
    def free(self) -> int:
        return self._cap - len(self._entries)

    def get(self, line_addr: int) -> MSHREntry | None:
        """The pending entry of a line (None if no miss is outstanding)."""
        return self._entries.get(line_addr)

    def allocate(self, line_addr: int, sectors: int, ready: int, *, force: bool = False) -> MSHREntry:
        """New entry for a line; raises if the table is full (unless ``force``)."""
        if line_addr in self._entries:
            raise SimtlabError(f"MSHR for line 0x{line_addr:x} already allocated")
        if not force and not self.free:
            raise SimtlabError("MSHR table full (caller must check free first)")
        e = MSHREntry(sectors, ready)
        self._entries[line_addr] = e
        heapq.heappush(self._heap, (ready, line_addr))
        return e

    def merge(self, line_addr: int, sectors: int, ready: int) -> MSHREntry:
        """Merge a request into the line's entry (extra sectors may push ``ready`` later)."""
        e = self._entries[line_addr]
        e.sectors |= sectors
        e.merged += 1
        if ready > e.ready:
            e.ready = ready
            heapq.heappush(self._heap, (ready, line_addr))
        return e

    def release_until(self, cycle: int) -> list[tuple[int, MSHREntry]]:
        """Remove and return (ready-cycle order) every entry whose data has returned by ``cycle``."""
        out = []
        while self._heap and self._heap[0][0] <= cycle:
            ready, line = heapq.heappop(self._heap)
            e = self._entries.get(line)
            if e is not None and e.ready == ready:
                del self._entries[line]
                out.append((line, e))
        return out

    def next_release(self) -> int | None:
        """Earliest cycle an entry is released (None if the table is empty)."""
        while self._heap:
            ready, line = self._heap[0]
            e = self._entries.get(line)
            if e is not None and e.ready == ready:
                return ready
            heapq.heappop(self._heap)
        return None
