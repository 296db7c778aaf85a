"""Shared L2: address-interleaved slices, each a sectored cache with bounded MSHRs behind a
bandwidth port.

What each slice stores (``L2Config.partitions`` slices; GPGPU-Sim's memory
sub-partitions): a :class:`SectorCache` of ``sets_per_partition`` sets; a
:class:`BandwidthQueue` of ``bytes_per_cycle_per_partition`` (the slice's data port, every
request's bytes cross it once, in arrival order); and its MSHRs -- one
:class:`PendingFill` per line being fetched from DRAM (sectors requested, fill cycle,
requests attached), at most ``L2Config.mshrs`` of them, each holding at most
``L2Config.mshr_max_merge`` requests (the first miss included), plus the sorted fill
cycles of the entries (when each entry frees). Interleaving: line number
``addr // interleave_bytes`` picks slice ``chunk_number mod partitions`` (the DRAM's
channel interleave, one line by default: ``line_number mod partitions``); inside a slice
the set index uses the line's number inside the slice (``line_number // partitions`` for
one-line chunks) so the slice bits do not alias sets.

Times (SM core cycles at the slice: the request's arrival over the interconnect, and the
cycle its data or ack is ready to be sent back; the network is
:mod:`golden.timing.memory.interconnect`). ``l2.latency`` is the L2's own access latency
(GPGPU-Sim's ROP latency ``-gpgpu_l2_rop_latency``), applied before the tag lookup:

* the request is looked up at ``start = max(arrival + l2.latency, port free)`` and its
  bytes cross the port until ``end = start + bytes / port_bw``;
* hit: ready at ``end``;
* miss: the missing sectors are read from DRAM at ``end`` (:class:`DRAM` adds
  ``dram.latency`` and the bank timing); ready when the data is back; the sectors are
  filled into the slice then;
* a miss to a line with an MSHR merges into it (no second DRAM read for sectors already
  requested; extra sectors are fetched under the same entry) and completes with the fill;
* MSHRs full: a miss that needs a new entry when ``mshrs`` entries are pending waits until
  the earliest pending fill frees one; an entry holding ``mshr_max_merge`` requests makes
  the next request to its line wait for its fill. Either wait is counted in
  ``mshr_full_delays`` and -- as a reservation fail at the head of GPGPU-Sim's in-order
  L2 queue -- holds the slice's port, so the requests behind it wait too.

Fetch granularity (GPGPU-Sim's cache type of ``-gpgpu_cache:dl2``):

* ``fetch_line`` false (default): a miss fetches only the requested sectors that are
  missing, as one DRAM request;
* ``fetch_line`` true (GPGPU-Sim 3.x's line cache, ``N:64:128:8``): a miss fetches every
  sector of the line that is not valid (``send_read_request`` in ``gpu-cache.cc`` sets a
  line cache's miss to the line size), as one DRAM request;
* ``dram_sector_requests`` true (GPGPU-Sim 4's sectored L2, ``S:64:128:8``: the sub-
  partition breaks a line request into 32 B sector requests,
  ``breakdown_request_to_sector_requests`` in ``l2cache.cc``): every missing sector is its
  own DRAM request, so each costs a column command of a whole burst.

Write policy (``write_miss``): write-back; a write hit makes its sectors valid and dirty.
A write miss under ``lazy_fetch_on_read`` (default; GPGPU-Sim 4's ``L``) allocates its
sectors valid and dirty without fetching; under ``write_allocate`` (GPGPU-Sim 3.x's ``W``,
``wr_miss_wa``) the write itself is sent on to DRAM (its ack returns when DRAM has taken
the data) and a read of the line (the written sectors; the whole line with
``fetch_line``) is fetched into an MSHR entry, filling the line clean. Byte masks inside a
sector are not modelled. Evicting a line with dirty sectors writes those sectors to DRAM
(occupying the channel). Atomics are performed at the slice: a read (fetching on miss),
plus one extra slice cycle per additional lane hitting the same address, then the sectors
are dirty.

Simplifications: a fill becomes visible to requests presented after it is retired
(requests are processed in call order, fills retire in time order); MSHRs are kept per
line (GPGPU-Sim 4's sectored L2 keys them per sector); an entry counts as busy from the
time its miss was accepted until its fill, also for requests presented earlier in time;
an entry whose merge limit stopped a request with further missing sectors is reused for
them after its fill.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left, bisect_right, insort
from dataclasses import dataclass

from golden.errors import SimtlabError
from golden.timing.memory.cache import SectorCache
from golden.timing.memory.dram import DRAM, BandwidthQueue


def popcount(x: int) -> int:
    return bin(x).count("1")


#: ``memory.l2.write_miss`` choices (module docstring)
WRITE_MISS_POLICIES = ("lazy_fetch_on_read", "write_allocate")


@dataclass
class PendingFill:
    """One L2 MSHR entry: sectors being fetched for a line, when they arrive, requests held."""

    sectors: int
    fill: float
    requests: int = 1


class L2Slice:
    """One L2 partition: tags, MSHRs (pending fills) and its bandwidth port."""

    def __init__(self, *, sets: int, assoc: int, line_bytes: int, partitions: int,
                 bytes_per_cycle: float, chunk_lines: int = 1):
        self.tags = SectorCache(sets=sets, assoc=assoc, line_bytes=line_bytes,
                                index_divisor=partitions, chunk_lines=chunk_lines)
        self.port = BandwidthQueue(bytes_per_cycle)
        self.pending: dict[int, PendingFill] = {}           # line -> its MSHR entry
        self._fills: list[tuple[float, int, int]] = []       # (fill cycle, line, sectors)
        self.releases: list[float] = []                      # sorted fill cycles of entries
        self.dirty_on_fill: dict[int, int] = {}              # line -> sectors an atomic dirtied

    def add_pending(self, line: int, sectors: int, fill: float) -> PendingFill:
        """Fetch ``sectors`` of ``line`` arriving at ``fill``: a new MSHR entry, or more
        sectors (and possibly a later release) for the line's existing entry."""
        e = self.pending.get(line)
        if e is None:
            e = PendingFill(sectors, fill)
            self.pending[line] = e
            insort(self.releases, fill)
        else:
            e.sectors |= sectors
            if fill > e.fill:
                i = bisect_left(self.releases, e.fill)
                if i < len(self.releases) and self.releases[i] == e.fill:
                    del self.releases[i]
                e.fill = fill
                insort(self.releases, fill)
        heapq.heappush(self._fills, (fill, line, sectors))
        return e

    def busy_entries(self, cycle: float) -> int:
        """MSHR entries whose fill is after ``cycle``."""
        return len(self.releases) - bisect_right(self.releases, cycle)

    def due_fills(self, cycle: float) -> list[tuple[float, int, int]]:
        """Pop the fills whose data has arrived by ``cycle`` (time order); entries whose
        last fill has arrived are released."""
        out = []
        while self._fills and self._fills[0][0] <= cycle:
            fill, line, sectors = heapq.heappop(self._fills)
            p = self.pending.get(line)
            if p is not None and p.fill <= fill:
                del self.pending[line]
            out.append((fill, line, sectors))
        k = bisect_right(self.releases, cycle)
        if k:
            del self.releases[:k]
        return out


class L2Cache:
    """The shared L2 (all slices) in front of :class:`DRAM`."""

    def __init__(self, *, size_bytes: int, assoc: int, line_bytes: int, latency: int,
                 partitions: int, bytes_per_cycle_per_partition: float, sector_bytes: int,
                 dram: DRAM, mshrs: int = 1 << 30, mshr_max_merge: int = 1 << 30,
                 interleave_bytes: int | None = None, fetch_line: bool = False,
                 dram_sector_requests: bool = False,
                 write_miss: str = "lazy_fetch_on_read"):
        if line_bytes % sector_bytes:
            raise SimtlabError("L2 line_bytes must be a multiple of sector_bytes")
        interleave = line_bytes if interleave_bytes is None else interleave_bytes
        if interleave < line_bytes or interleave % line_bytes:
            raise SimtlabError(f"L2 interleave_bytes ({interleave}) must be a multiple of "
                               f"line_bytes ({line_bytes})")
        if mshrs < 1 or mshr_max_merge < 1:
            raise SimtlabError(f"L2 mshrs ({mshrs}) and mshr_max_merge ({mshr_max_merge}) "
                               "must be >= 1")
        if write_miss not in WRITE_MISS_POLICIES:
            raise SimtlabError(f"L2 write_miss {write_miss!r}: expected one of "
                               f"{', '.join(WRITE_MISS_POLICIES)}")
        sets = size_bytes // (partitions * assoc * line_bytes)
        self._line = line_bytes
        self._full = (1 << (line_bytes // sector_bytes)) - 1
        self._fetch_line = bool(fetch_line)
        self._sector_requests = bool(dram_sector_requests)
        self._write_alloc = write_miss == "write_allocate"
        self._interleave = interleave
        self._sector = sector_bytes
        self._lat = latency
        self._dram = dram
        self._mshrs = mshrs
        self._max_merge = mshr_max_merge
        self.slices = [L2Slice(sets=sets, assoc=assoc, line_bytes=line_bytes,
                               partitions=partitions,
                               bytes_per_cycle=bytes_per_cycle_per_partition,
                               chunk_lines=interleave // line_bytes)
                       for _ in range(partitions)]
        self.accesses = 0
        self.hits = 0
        self.misses = 0
        self.merges = 0
        self.writebacks = 0
        self.mshr_full_delays = 0

    @property
    def latency(self) -> int:
        """The L2's own access latency (ROP latency) in cycles."""
        return self._lat

    @property
    def sector_bytes(self) -> int:
        return self._sector

    @property
    def mshrs(self) -> int:
        """MSHR entries per slice."""
        return self._mshrs

    def slice_of(self, addr: int) -> int:
        """Slice serving byte address ``addr`` (chunk-interleaved like the DRAM channels)."""
        return (addr // self._interleave) % len(self.slices)

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

    def _wait(self, sl: L2Slice, until: float) -> None:
        """A request waits for an MSHR until ``until``, blocking the slice's port."""
        self.mshr_full_delays += 1
        sl.port.hold_until(until)

    def _merge(self, sl: L2Slice, pend: PendingFill, end: float) -> float:
        """A request (read miss or write-allocate) joins the line's MSHR entry ``pend`` at
        ``end``; returns the cycle it may fetch further sectors. An entry already holding
        ``mshr_max_merge`` requests is full: the request waits for its fill (blocking the
        slice's port) and then counts as the entry's first request again."""
        if pend.requests >= self._max_merge:
            t = max(end, pend.fill)
            self._wait(sl, t)
            pend.requests = 1
            return t
        pend.requests += 1
        return end

    def _new_entry_cycle(self, sl: L2Slice, cycle: float) -> float:
        """Earliest cycle >= ``cycle`` with a free MSHR entry in the slice."""
        rel = sl.releases
        if sl.busy_entries(cycle) >= self._mshrs:
            free = rel[len(rel) - self._mshrs]
            self._wait(sl, free)
            return free
        return cycle

    def _dram_read(self, t: float, line: int, sectors: int) -> float:
        """Fetch ``sectors`` of ``line`` from DRAM at ``t``: one request, or one request per
        sector with ``dram_sector_requests``; returns the cycle the last data is back."""
        if not self._sector_requests:
            return self._dram.read(t, line, popcount(sectors) * self._sector)
        fill = t
        i = 0
        while sectors:
            if sectors & 1:
                fill = max(fill, self._dram.read(t, line + i * self._sector, self._sector))
            sectors >>= 1
            i += 1
        return fill

    def _fetch_mask(self, sl: L2Slice, line: int, missing: int) -> int:
        """Sectors a miss fetches: the missing requested ones, or with ``fetch_line`` every
        sector of the line not valid."""
        if not self._fetch_line:
            return missing
        st = sl.tags.probe(line)
        return self._full & ~(st.valid if st is not None else 0)

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
        if pend is not None:
            t = self._merge(sl, pend, end)
            if pend.sectors & missing:
                self.merges += 1
                ready = max(ready, pend.fill)
                missing &= ~pend.sectors
            if missing:      # extra sectors are fetched under the same entry
                fetch = self._fetch_mask(sl, line, missing) & ~pend.sectors
                fill = self._dram_read(t, line, fetch)
                sl.add_pending(line, fetch, fill)
                ready = max(ready, fill)
            return ready
        t = self._new_entry_cycle(sl, end)
        fetch = self._fetch_mask(sl, line, missing)
        fill = self._dram_read(t, line, fetch)
        sl.add_pending(line, fetch, fill)
        return max(ready, fill)

    def read(self, arrival: float, line: int, sectors: int) -> float:
        """Read sectors of a line arriving at the slice at ``arrival``; returns the cycle the
        data is ready to be sent back (fractional)."""
        sl = self.slices[self.slice_of(line)]
        start, end = sl.port.serve(arrival + self._lat, popcount(sectors) * self._sector)
        return self._read_path(sl, line, sectors, start, end)

    def read_group(self, arrival: float, parts) -> float:
        """Read several ``(line, sectors)`` arriving together (an L1 fetch group; each line
        at its own slice); returns the cycle the last is ready."""
        return max(self.read(arrival, line, sectors) for line, sectors in parts)

    def write(self, arrival: float, line: int, sectors: int) -> float:
        """Write sectors (write-back, write-allocate); returns the cycle the ack can leave."""
        sl = self.slices[self.slice_of(line)]
        start, end = sl.port.serve(arrival + self._lat, popcount(sectors) * self._sector)
        self._retire(sl, start)
        self.accesses += 1
        if sl.tags.probe(line) is not None:
            self.hits += 1
        else:
            self.misses += 1
            if self._write_alloc:
                return self._write_allocate(sl, line, sectors, end)
        self._install(sl, start, line, sectors, dirty=True)
        return end

    def _write_allocate(self, sl: L2Slice, line: int, sectors: int, end: float) -> float:
        """GPGPU-Sim 3.x ``W`` write miss at ``end``: the write goes on to DRAM (the ack
        leaves when DRAM has taken it) and the line is read into an MSHR entry (merging
        into a pending one), filling clean."""
        ack = self._dram.write(end, line, popcount(sectors) * self._sector)
        pend = sl.pending.get(line)
        if pend is not None:
            t = self._merge(sl, pend, end)
            fetch = self._fetch_mask(sl, line, sectors) & ~pend.sectors
            if fetch:
                sl.add_pending(line, fetch, self._dram_read(t, line, fetch))
            return ack
        t = self._new_entry_cycle(sl, end)
        fetch = self._fetch_mask(sl, line, sectors)
        sl.add_pending(line, fetch, self._dram_read(t, line, fetch))
        return ack

    def atomic(self, arrival: float, line: int, sectors: int, serial_lanes: int) -> float:
        """Read-modify-write at the slice; ``serial_lanes`` = most lanes on one address."""
        sl = self.slices[self.slice_of(line)]
        start, end = sl.port.serve(arrival + self._lat, popcount(sectors) * self._sector,
                                   extra_cycles=max(0, serial_lanes - 1))
        ready = self._read_path(sl, line, sectors, start, end)
        st = sl.tags.probe(line)
        now_valid = sectors & st.valid if st is not None else 0
        if now_valid:
            st.dirty |= now_valid
        rest = sectors & ~now_valid
        if rest:    # sectors still being fetched become dirty when they arrive
            sl.dirty_on_fill[line] = sl.dirty_on_fill.get(line, 0) | rest
        return ready

    def next_fill(self) -> float | None:
        """Earliest pending DRAM fill over all slices."""
        cands = [sl._fills[0][0] for sl in self.slices if sl._fills]
        return min(cands) if cands else None

    @staticmethod
    def to_cycle(t: float) -> int:
        """Round a fractional completion time up to a whole cycle."""
        return int(math.ceil(t - 1e-9))
