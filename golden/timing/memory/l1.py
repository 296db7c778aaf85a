"""Per-SM L1 data cache: sectored tags, MSHRs and one transaction per cycle.

Stores a :class:`SectorCache` (sets/ways/line from :class:`L1Config`, true LRU), an
:class:`MSHRTable` of ``L1Config.mshrs`` entries and the cycle its single port is next
free. The port serves one coalesced transaction per ``port_cycles`` cycles (transaction
``i`` of a warp access is looked up at ``start + i x port_cycles``; ``L1Config.port_cycles``,
1 by default, 2 on gtx480: GPGPU-Sim's LD/ST unit takes one access per 700 MHz core
cycle), and shared-memory accesses use the same port (Fermi and later unify L1 and
shared memory).

Policies:

* loads: hit (all requested sectors valid) -> ``lookup + hit_latency``; a sector miss
  sends only the missing sectors to the L2 (every sector of the line not valid with
  ``fetch_line``, GPGPU-Sim's line cache), holding one MSHR per line; later misses to
  the same line merge into that MSHR. The line is allocated (possibly evicting the LRU
  line of its set) when the data returns -- "allocate on fill".
* ``miss_latency`` (``L1Config.miss_latency``, default 0): a missing load's request
  leaves for the L2 that many cycles after its lookup (GPGPU-Sim 4's ``l1_latency``
  queue, which every access crosses before it reaches the tags, hit or miss).
* reservation fail: if the access needs more new MSHRs than are free it is rejected as
  a whole (no side effects) and must be retried when an MSHR is released. So that an
  access needing more lines than the table has can still proceed, it is accepted when
  the table is empty (the table then temporarily holds more entries than its size).
* stores: write-through, no write-allocate (Fermi/Pascal L1 for global stores): a
  resident line gets the written sectors (stays valid) and becomes MRU; the write goes
  to the L2 either way; no MSHR is used.
* atomics: bypass the L1 (performed at the L2); the line is invalidated in this L1.
* global loads with ``cache_global_loads: false`` (Pascal in GPGPU-Sim,
  ``-gpgpu_gmem_skip_L1D``) bypass the tags and MSHRs and go to the L2 (one port cycle
  per transaction).

* fetch groups (the coarse-grained L1 of dissertation ch. 5, ``fetch_group`` = G > 1):
  the lines form aligned groups of G lines. A load also checks the other lines of its
  group; a line is *absent* when it is neither resident nor pending in an MSHR. If the
  load's own sectors miss or any other line is absent, the access is a miss: the load's
  missing sectors (as in the baseline) and every absent line (all its sectors) are
  requested from the L2 as *one* request (``read_group``: one request packet, the L2
  accounts each line and its bytes); each fetched line holds an MSHR entry and all of
  them fill at the same cycle. The access completes when its own line's data is back: a
  load whose own sectors are resident stays a hit (``p + hit_latency``) while its absent
  neighbours are fetched; a load whose own line is pending is a reserved hit of that
  entry (below); a missing own line arrives with the group's reply. ``group_wait_all``
  (config ``memory.l1.fetch_group_wait_all``, the older model, kept as an ablation) makes
  every such load wait for the whole group request and count as a miss ("the group hits
  or misses together" read literally). A hit makes every resident line of the group most
  recently used. G = 1 is the baseline, served by the baseline code path. Stores and
  atomics ignore the group.

* reserved hits (GPGPU-Sim 3.x ``HIT_RESERVED``). GPGPU-Sim's L1 (``data_cache`` /
  ``read_only_cache::access`` in ``gpu-cache.cc``) allocates a line's tag on the miss and
  marks it *reserved* until the data returns; ``tag_array::probe`` on a reserved tag
  returns ``HIT_RESERVED``. A read takes the miss path with it (``rd_miss_base`` ->
  ``send_read_request``): if the MSHR table already has the block (``m_mshrs.probe``) and
  the entry has room (``!m_mshrs.full``: fewer than ``<merge>`` requests, 8 in the 3.x
  GTX480 ``-gpgpu_cache:dl1 ...,A:32:8,8``), the request is appended to that entry, no
  new request leaves the L1, and the core treats the access as a miss (it waits for the
  fill). If the entry is full the access is a ``RESERVATION_FAIL``
  (``MSHR_MERGE_ENRTY_FAIL``) and the LD/ST unit retries it. Statistics
  (``cache_stats::select_stats_status``): an accepted reserved hit is counted as
  ``HIT_RESERVED`` ("pending hit"), neither a hit nor a miss of the miss rate; a failed one
  as ``RESERVATION_FAIL``. Ours follows that rule: a load whose missing sectors all have a
  pending MSHR entry merges into it, sends nothing, completes at the entry's fill, and is
  counted in :attr:`L1Cache.reserved_hits` (still inside ``l1_misses`` /
  ``l1_mshr_merges``, whose meaning archived results keep: GPGPU-Sim's miss count is
  ``l1_misses - reserved_hits``). ``mshr_max_merge`` = M > 0 caps the requests per entry
  (the first miss included) as GPGPU-Sim's ``<merge>``: a load that would merge into a full
  entry is a reservation fail (counted in :attr:`L1Cache.merge_fails`). M = 0 (the
  default of every configuration that does not set ``memory.l1.mshr_max_merge``) keeps
  the older unlimited merging, our departure. Under fetch groups a line fetched as a
  neighbour is reserved the same way: a later load of it while in flight is a reserved
  hit of that line's entry.

* counters that do not change timing (attributes, read by
  :meth:`golden.timing.memory.hierarchy.MemoryHierarchy.l1_group_counters`; not in the
  run's statistics dict): ``miss_wait`` (sum over missing load transactions of completion
  - lookup cycle), ``reserved_hits`` / ``reserved_wait`` (the same for reserved hits),
  ``merge_fails``; fetch groups only: ``group_extra_sectors`` (sectors requested for
  absent neighbour lines), ``group_hit_waits`` / ``group_hit_wait_cycles`` (loads whose
  own sectors were resident but waited for an absent neighbour: a hit made a miss, and
  the cycles beyond the hit latency), ``prefetch_pending_uses`` /
  ``prefetch_filled_uses`` (first load of a neighbour-fetched line while it is still in
  flight / after it filled, i.e. an L1 hit gained) and ``prefetch_evicted_unused``.

A zero-size L1 (``size_bytes: 0``) stores nothing: every load goes to the L2 and no
MSHR limit applies.

"The L2" here is whatever the methods receive as ``l2``: in the model the SM's
:class:`~golden.timing.memory.interconnect.SMMemoryPort` (request network, L2 slice,
reply network -- so the times it returns include the interconnect and
``l2.latency`` is only the L2's own latency), in unit tests possibly a bare
:class:`L2Cache` (same ``read`` / ``write`` / ``atomic`` calls, slice-side times).
"""

from __future__ import annotations

import numpy as np

from golden.errors import SimtlabError
from golden.timing.memory.cache import MSHRTable, SectorCache
from golden.timing.memory.coalescer import Transaction
from golden.timing.memory.l2 import L2Cache, popcount


class L1Cache:
    """L1 data cache of one SM."""

    def __init__(self, *, sets: int, assoc: int, line_bytes: int, hit_latency: int, mshrs: int,
                 fetch_group: int = 1, sectors_per_line: int = 4, mshr_max_merge: int = 0,
                 group_wait_all: bool = False, fetch_line: bool = False,
                 port_cycles: int = 1, miss_latency: int = 0):
        self.tags = SectorCache(sets=sets, assoc=assoc, line_bytes=line_bytes)
        self.mshrs = MSHRTable(mshrs)
        self.hit_latency = hit_latency
        self.port_free = 0
        self._line = line_bytes
        self._full = (1 << sectors_per_line) - 1
        self.fetch_group = fetch_group
        #: coarse-L1 events: L2 requests that fetched lines beside the requested one, and
        #: those lines
        self.group_requests = 0
        self.group_extra_lines = 0
        if not isinstance(mshr_max_merge, int) or mshr_max_merge < 0:
            raise SimtlabError(f"L1 mshr_max_merge must be 0 (unlimited) or >= 1, "
                               f"not {mshr_max_merge!r}")
        #: requests one MSHR entry holds, the first included (0 = unlimited)
        self.mshr_max_merge = mshr_max_merge
        #: fetch groups: True = a load waits for every line its group request fetched
        #: (also when its own data was resident; the older model); False = it waits only
        #: for its own line's data (a hit stays a hit, a reserved hit ends at its entry's
        #: fill), as GPGPU-Sim serves each line's requests from that line's MSHR entry
        self.group_wait_all = group_wait_all
        #: True = a miss fetches every sector of the line not valid (GPGPU-Sim's line
        #: cache sends a whole-line request); False = only the missing requested sectors
        self.fetch_line = fetch_line
        #: cycles the port spends on one transaction (or shared-memory pass)
        self.port_cycles = port_cycles
        #: cycles a load miss spends in the L1 before its request leaves for the L2
        self.miss_latency = miss_latency
        # statistics only (see the module docstring); none of them feeds back into timing
        self.miss_wait = 0
        self.reserved_hits = 0
        self.reserved_wait = 0
        self.merge_fails = 0
        self.group_extra_sectors = 0
        self.group_hit_waits = 0
        self.group_hit_wait_cycles = 0
        self.prefetch_pending_uses = 0
        self.prefetch_filled_uses = 0
        self.prefetch_evicted_unused = 0
        #: lines fetched as group neighbours and not loaded since
        self._prefetched = set()

    @property
    def fetch_group(self) -> int:
        """Lines per fetch group (1 = baseline)."""
        return self._group

    @fetch_group.setter
    def fetch_group(self, g: int) -> None:
        if not isinstance(g, int) or isinstance(g, bool) or g < 1 or g & (g - 1):
            raise SimtlabError(f"L1 fetch group must be a power of two >= 1, not {g!r}")
        self._group = g

    def group_lines(self, line: int) -> list[int]:
        """The lines of ``line``'s aligned fetch group, ``line`` excluded."""
        span = self._group * self._line
        base = line - line % span
        return [a for a in range(base, base + span, self._line) if a != line]

    def _absent(self, line: int) -> bool:
        return self.tags.probe(line) is None and self.mshrs.get(line) is None

    def start(self, cycle: int) -> int:
        """First cycle the port can take a new access presented at ``cycle``."""
        return max(cycle, self.port_free)

    def retire(self, cycle: int) -> None:
        """Fill every line whose data has returned by ``cycle`` and release its MSHR."""
        pre = self._prefetched
        for line, e in self.mshrs.release_until(cycle):
            victim = self.tags.fill(line, e.sectors)
            if pre and victim is not None and victim[0] in pre:
                pre.discard(victim[0])
                self.prefetch_evicted_unused += 1

    def new_mshrs_needed(self, txs: list[Transaction]) -> int:
        """MSHR entries a load would allocate (lines with missing sectors and no entry)."""
        if not self.tags.enabled:
            return 0
        if self._group > 1:
            need: set[int] = set()
            for tx in txs:
                st = self.tags.probe(tx.line_addr)
                valid = st.valid if st is not None else 0
                if tx.sector_mask & ~valid and self.mshrs.get(tx.line_addr) is None:
                    need.add(tx.line_addr)
                need.update(a for a in self.group_lines(tx.line_addr) if self._absent(a))
            return len(need)
        n = 0
        for tx in txs:
            st = self.tags.probe(tx.line_addr)
            valid = st.valid if st is not None else 0
            if tx.sector_mask & ~valid and self.mshrs.get(tx.line_addr) is None:
                n += 1
        return n

    def merge_room(self, txs: list[Transaction]) -> bool:
        """False if a transaction would merge into an MSHR entry that already holds
        ``mshr_max_merge`` requests (GPGPU-Sim's ``mshr_table::full`` on a pending block)."""
        cap = self.mshr_max_merge
        if not cap or not self.tags.enabled:
            return True
        for tx in txs:
            e = self.mshrs.get(tx.line_addr)
            if e is not None and e.merged + 1 >= cap:
                st = self.tags.probe(tx.line_addr)
                valid = st.valid if st is not None else 0
                if tx.sector_mask & ~valid:
                    return False
        return True

    def can_accept(self, txs: list[Transaction]) -> bool:
        """False = reservation fail: not enough free MSHRs and the table is not empty, or
        (``mshr_max_merge`` > 0) a merge into a full MSHR entry."""
        need = self.new_mshrs_needed(txs)
        if not (need <= self.mshrs.free or self.mshrs.in_use == 0):
            return False
        if self.mshr_max_merge and not self.merge_room(txs):
            self.merge_fails += 1
            return False
        return True

    def load(self, t0: int, txs: list[Transaction], l2: L2Cache, counts: dict,
             events: list[int], bypass: bool = False) -> int:
        """Serve an accepted load starting at ``t0``; returns its completion cycle.

        ``bypass``: the load is not cached in the L1 (global loads with
        ``l1.cache_global_loads: false``): each transaction still takes one port cycle and
        goes straight to the L2, counted as ``l1_bypasses``."""
        done_all = t0
        enabled = self.tags.enabled
        for i, tx in enumerate(txs):
            p = t0 + i * self.port_cycles
            line = tx.line_addr
            if bypass:
                counts["l1_bypasses"] += 1
                done = L2Cache.to_cycle(l2.read(p, line, tx.sector_mask))
                done_all = max(done_all, done)
                continue
            counts["l1_accesses"] += 1
            if not enabled:
                counts["l1_misses"] += 1
                done = L2Cache.to_cycle(l2.read(p, line, tx.sector_mask))
                done_all = max(done_all, done)
                continue
            if self._group > 1:
                done_all = max(done_all, self._load_group(p, tx, l2, counts, events))
                continue
            if self._prefetched and line in self._prefetched:
                self._prefetch_use(line)
            missing = self.tags.lookup(line, tx.sector_mask)
            if not missing:
                counts["l1_hits"] += 1
                done = p + self.hit_latency
            else:
                counts["l1_misses"] += 1
                if self.fetch_line:
                    missing = self._line_missing(line)
                e = self.mshrs.get(line)
                if e is not None:
                    counts["l1_mshr_merges"] += 1
                    extra = missing & ~e.sectors
                    ready = e.ready
                    if extra:
                        ready = max(ready, L2Cache.to_cycle(l2.read(p + self.miss_latency, line, extra)))
                    self.mshrs.merge(line, missing, ready)
                    done = max(ready, p + 1)
                    if not extra:
                        self.reserved_hits += 1
                        self.reserved_wait += done - p
                else:
                    ready = L2Cache.to_cycle(l2.read(p + self.miss_latency, line, missing))
                    self.mshrs.allocate(line, missing, ready, force=True)
                    done = ready
                self.miss_wait += done - p
                events.append(ready)
            done_all = max(done_all, done)
        self.port_free = t0 + len(txs) * self.port_cycles
        return done_all

    def _load_group(self, p: int, tx: Transaction, l2, counts: dict, events: list[int]) -> int:
        """One load transaction looked up at ``p`` with fetch groups of G > 1 lines."""
        line = tx.line_addr
        if self._prefetched and line in self._prefetched:
            self._prefetch_use(line)
        missing = self.tags.lookup(line, tx.sector_mask)
        if missing and self.fetch_line:
            missing = self._line_missing(line)
        others = self.group_lines(line)
        absent = [a for a in others if self._absent(a)]
        if not missing and not absent:
            counts["l1_hits"] += 1
            for a in others:                    # the group ages together
                self.tags.lookup(a, 0)
            return p + self.hit_latency
        wait_all = self.group_wait_all
        if missing or wait_all:
            counts["l1_misses"] += 1
        else:
            counts["l1_hits"] += 1
        parts: list[tuple[int, int]] = []
        own = self.mshrs.get(line) if missing else None
        reserved = False
        if own is not None:
            counts["l1_mshr_merges"] += 1
            if missing & ~own.sectors:
                parts.append((line, missing & ~own.sectors))
            else:
                reserved = True
                self.mshrs.merge(line, missing, own.ready)   # one more request in the entry
        elif missing:
            parts.append((line, missing))
        parts += [(a, self._full) for a in absent]
        ready = p + 1
        if parts:
            if absent:
                self.group_requests += 1
                self.group_extra_lines += len(absent)
                self.group_extra_sectors += len(absent) * popcount(self._full)
                self._prefetched.update(absent)
            ready = L2Cache.to_cycle(l2.read_group(p + self.miss_latency, parts))
        for a, sectors in parts:
            if self.mshrs.get(a) is not None:
                self.mshrs.merge(a, sectors, ready)
            else:
                self.mshrs.allocate(a, sectors, ready, force=True)
        events.append(ready)
        if not missing:                         # own data resident, neighbours absent
            self.group_hit_waits += 1
            if not wait_all:
                return p + self.hit_latency
            self.group_hit_wait_cycles += ready - (p + self.hit_latency)
            return ready
        if wait_all:
            done = max(ready, own.ready) if own is not None else ready
        elif reserved:                          # GPGPU-Sim HIT_RESERVED: the entry's fill
            done = max(own.ready, p + 1)
        elif own is not None:                   # extra sectors came with this request
            done = max(ready, own.ready)
        else:
            done = ready
        self.miss_wait += done - p
        if reserved:
            self.reserved_hits += 1
            self.reserved_wait += done - p
        return done

    def _line_missing(self, line: int) -> int:
        """Every sector of ``line`` that is not valid (what a line-cache miss fetches)."""
        st = self.tags.probe(line)
        return self._full & ~(st.valid if st is not None else 0)

    def _prefetch_use(self, line: int) -> None:
        """First load of a line fetched as a group neighbour (statistics only)."""
        self._prefetched.discard(line)
        if self.mshrs.get(line) is not None:
            self.prefetch_pending_uses += 1
        else:
            self.prefetch_filled_uses += 1

    def store(self, t0: int, txs: list[Transaction], l2: L2Cache, counts: dict) -> int:
        """Write-through, no-allocate store starting at ``t0``; returns the L2 ack cycle."""
        done_all = t0
        for i, tx in enumerate(txs):
            p = t0 + i * self.port_cycles
            counts["l1_accesses"] += 1
            if self.tags.probe(tx.line_addr) is not None:
                counts["l1_write_hits"] += 1
                self.tags.fill(tx.line_addr, tx.sector_mask)
            else:
                counts["l1_write_misses"] += 1
            done_all = max(done_all, L2Cache.to_cycle(l2.write(p, tx.line_addr, tx.sector_mask)))
        self.port_free = t0 + len(txs) * self.port_cycles
        return done_all

    def atomic(self, t0: int, txs: list[Transaction], lane_addrs: np.ndarray, l2: L2Cache,
               counts: dict) -> int:
        """Atomics performed at the L2, one transaction per cycle; returns completion."""
        done_all = t0
        for i, tx in enumerate(txs):
            p = t0 + i * self.port_cycles
            self.tags.invalidate(tx.line_addr)
            lanes = [l for l in range(lane_addrs.shape[0]) if tx.lane_mask >> l & 1]
            _, cnt = np.unique(lane_addrs[lanes], return_counts=True)
            serial = int(cnt.max())
            counts["atomic_serialized_lanes"] += serial - 1
            done_all = max(done_all, L2Cache.to_cycle(l2.atomic(p, tx.line_addr,
                                                                 tx.sector_mask, serial)))
        self.port_free = t0 + len(txs) * self.port_cycles
        return done_all

    def next_release(self) -> int | None:
        return self.mshrs.next_release()
