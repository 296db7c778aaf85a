"""Shared L2: address-interleaved slices, each a sectored cache behind a bandwidth port.

Each slice (``L2Config.partitions`` of them) stores a :class:`SectorCache` of
``sets_per_partition`` sets, a table of lines being filled from DRAM, and a
:class:`BandwidthQueue` of ``bytes_per_cycle_per_partition`` (the slice's data port; every
request's bytes cross it once). Interleaving: line number ``addr // line_bytes`` picks
slice ``line_number mod partitions``; inside a slice the set index uses
``line_number // partitions`` so the slice bits do not alias sets.

Times (SM core cycles, as seen by the requesting SM; ``L2Config.latency`` already includes
the L1 miss and the interconnect, ``DRAMConfig.latency`` is added on an L2 miss):

* hit: ``done = max(arrival, slice free) + bytes/slice_bw + l2.latency``;
* miss: the missing sectors go to DRAM when the slice transfer ends;
  ``done = dram transfer end + dram.latency + l2.latency``; the sectors are filled into
  the slice at ``dram transfer end + dram.latency``;
* a request for sectors already being fetched merges (no second DRAM read) and completes
  with the fill.

Write policy: write-back, write-allocate at sector granularity without fetching (a store
makes its sectors valid and dirty; GPGPU-Sim's "lazy fetch on read"; byte masks inside a
sector are not modelled). Evicting a line with dirty sectors writes those sectors to DRAM
(occupying the channel). Atomics are performed at the slice: a read (fetching on miss),
plus one extra slice cycle per additional lane hitting the same address, then the sectors
are dirty.

Simplifications: L2 MSHRs are unbounded; a fill becomes visible to requests presented
after it is retired (requests are processed in call order, fills retire in time order).
"""

from __future__ import annotations

import heapq
import math

from golden.errors import SimtlabError
from golden.timing.memory.cache import SectorCache
from golden.timing.memory.dram import DRAM, BandwidthQueue


def popcount(x: int) -> int:
    return bin(x).count("1")


class L2Slice:
    """One L2 partition: tags, pending fills and its bandwidth port."""

    def __init__(self, *, sets: int, assoc: int, line_bytes: int, partitions: int,
                 bytes_per_cycle: float):
        self.tags = SectorCache(sets=sets, assoc=assoc, line_bytes=line_bytes,
                                index_divisor=partitions)
        self.port = BandwidthQueue(bytes_per_cycle)
        self.pending: dict[int, tuple[int, float]] = {}      # line -> (sectors, fill cycle)
        self._fills: list[tuple[float, int, int]] = []       # (fill cycle, line, sectors)
        self.dirty_on_fill: dict[int, int] = {}              # line -> sectors an atomic dirtied

    def add_pending(self, line: int, sectors: int, fill: float) -> None:
        old = self.pending.get(line)
        if old is not None:
            self.pending[line] = (old[0] | sectors, max(old[1], fill))
        else:
            self.pending[line] = (sectors, fill)
        heapq.heappush(self._fills, (fill, line, sectors))

    def due_fills(self, cycle: float) -> list[tuple[float, int, int]]:
        """Pop the fills whose data has arrived by ``cycle`` (time order)."""
        out = []
        while self._fills and self._fills[0][0] <= cycle:
            fill, line, sectors = heapq.heappop(self._fills)
            p = self.pending.get(line)
            if p is not None and p[1] <= fill:
                del self.pending[line]
            out.append((fill, line, sectors))
        return out


class L2Cache:
    """The shared L2 (all slices) in front of :class:`DRAM`."""

    def __init__(self, *, size_bytes: int, assoc: int, line_bytes: int, latency: int,
                 partitions: int, bytes_per_cycle_per_partition: float, sector_bytes: int,
                 dram: DRAM):
        if line_bytes % sector_bytes:
            raise SimtlabError("L2 line_bytes must be a multiple of sector_bytes")
        sets = size_bytes // (partitions * assoc * line_bytes)
        self._line = line_bytes
        self._sector = sector_bytes
        self._lat = latency
        self._dram = dram
        self.slices = [L2Slice(sets=sets, assoc=assoc, line_bytes=line_bytes,
                               partitions=partitions,
                               bytes_per_cycle=bytes_per_cycle_per_partition)
                       for _ in range(partitions)]
        self.accesses = 0
        self.hits = 0
        self.misses = 0
        self.merges = 0
        self.writebacks = 0

    @property
    def latency(self) -> int:
        return self._lat

    def slice_of(self, addr: int) -> int:
        """Slice serving byte address ``addr`` (line-interleaved)."""
        return (addr // self._line) % len(self.slices)

    def _retire(self, sl: L2Slice, cycle: float) -> None:
        for fill, line, sectors in sl.due_fills(cycle):
            self._install(sl, fill, line, sectors, dirty=False)
            d = sl.dirty_on_fill.get(line, 0) & sectors
            if d:
                sl.tags.fill(line, d, dirty=True)
                rest = sl.dirty_on_fill[line] & ~d
                if rest:
                    sl.dirty_on_fill[line] = rest
                else:
                    del sl.dirty_on_fill[line]

    def _install(self, sl: L2Slice, cycle: float, line: int, sectors: int, *, dirty: bool):
        victim = sl.tags.fill(line, sectors, dirty=dirty)
        if victim is not None and victim[1].dirty:
            self.writebacks += 1
            self._dram.write(cycle, victim[0], popcount(victim[1].dirty) * self._sector)

    def _read_path(self, sl: L2Slice, line: int, sectors: int, start: float, end: float) -> float:
        """Cycle the requested sectors are available at the slice (hit, merge or DRAM fetch)."""
        self._retire(sl, start)
        self.accesses += 1
        missing = sl.tags.lookup(line, sectors)
        if not missing:
            self.hits += 1
            return end
        self.misses += 1
        ready = end
        pend = sl.pending.get(line)
        if pend is not None and pend[0] & missing:
            self.merges += 1
            ready = max(ready, pend[1])
            missing &= ~pend[0]
        if missing:
            fill = self._dram.read(end, line, popcount(missing) * self._sector)
            sl.add_pending(line, missing, fill)
            ready = max(ready, fill)
        return ready

    def read(self, arrival: float, line: int, sectors: int) -> float:
        """Read sectors of a line; returns the SM-side completion cycle (fractional)."""
        sl = self.slices[self.slice_of(line)]
        start, end = sl.port.serve(arrival, popcount(sectors) * self._sector)
        return self._read_path(sl, line, sectors, start, end) + self._lat

    def write(self, arrival: float, line: int, sectors: int) -> float:
        """Write sectors (write-back, write-allocate); returns the cycle the SM sees the ack."""
        sl = self.slices[self.slice_of(line)]
        start, end = sl.port.serve(arrival, popcount(sectors) * self._sector)
        self._retire(sl, start)
        self.accesses += 1
        if sl.tags.probe(line) is not None:
            self.hits += 1
        else:
            self.misses += 1
        self._install(sl, start, line, sectors, dirty=True)
        return end + self._lat

    def atomic(self, arrival: float, line: int, sectors: int, serial_lanes: int) -> float:
        """Read-modify-write at the slice; ``serial_lanes`` = most lanes on one address."""
        sl = self.slices[self.slice_of(line)]
        start, end = sl.port.serve(arrival, popcount(sectors) * self._sector,
                                   extra_cycles=max(0, serial_lanes - 1))
        ready = self._read_path(sl, line, sectors, start, end)
        st = sl.tags.probe(line)
        now_valid = sectors & st.valid if st is not None else 0
        if now_valid:
            st.dirty |= now_valid
        rest = sectors & ~now_valid
        if rest:    # sectors still being fetched become dirty when they arrive
            sl.dirty_on_fill[line] = sl.dirty_on_fill.get(line, 0) | rest
        return ready + self._lat

    def next_fill(self) -> float | None:
        """Earliest pending DRAM fill over all slices."""
        cands = [sl._fills[0][0] for sl in self.slices if sl._fills]
        return min(cands) if cands else None

    @staticmethod
    def to_cycle(t: float) -> int:
        """Round a fractional completion time up to a whole cycle."""
        return int(math.ceil(t - 1e-9))
