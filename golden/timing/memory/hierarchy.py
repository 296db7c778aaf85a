"""The memory system one GPU's SMs talk to: coalescer, shared banks, L1s, L2, DRAM.

:class:`MemoryHierarchy` is the facade the SM model calls once per warp memory
instruction (after the MEM pipeline's address stage)::

    r = mem.access(sm_id, cycle, warp_id, lane_addrs, active_mask, size,
                   is_store=False, is_atomic=False, space="global")
    if r.ok: writeback at r.completion_cycle
    else:    retry at (or after) r.retry_cycle   # L1 MSHRs full ("reservation fail")

It stores one :class:`~golden.timing.memory.l1.L1Cache` per SM, the
:class:`~golden.timing.memory.interconnect.Interconnect` between the SMs and the L2
slices (with one :class:`~golden.timing.memory.interconnect.SMMemoryPort` per SM: what
that SM's L1 and constant cache call on a miss), the shared
:class:`~golden.timing.memory.l2.L2Cache` and :class:`~golden.timing.memory.dram.DRAM`
(banks, rows, bounded scheduler queues), event counters and a heap of future event
cycles (completions and MSHR releases) so the SM model can skip idle cycles with
:meth:`next_event_cycle`.

Spaces: ``shared`` uses the bank-conflict model (cost = serialised passes of
``l1.port_cycles`` cycles each, completion ``start + (passes - 1) x port_cycles +
shared.latency``); ``global``, ``local``, ``const`` and ``param``
go through coalescer -> L1 -> L2 -> DRAM, except that global loads bypass the L1 when
``l1.cache_global_loads`` is false, and const/param *loads* go through the per-SM constant
cache (:mod:`golden.timing.memory.const_cache`; misses read the L2). No texture cache.

L2 state across launches: :meth:`l2_snapshot` / :meth:`restore_l2` carry the L2's tags
from one launch to the next on the same device (GPGPU-Sim does not flush the L2 between
kernels), and :meth:`warm_l2` fills the lines of host-to-device copies
(``idealisations.l2_warm_on_memcpy``).

Latency summary with no contention (``T`` = cycle the L1 port takes the transaction;
``n`` = bytes of the requested sectors; ``L`` = ``interconnect.latency``; ``r`` = the
smaller of the SM and L2 port rates in flits per cycle; ``f(b)`` = flits of a packet of
``b`` bytes after the header; the result is rounded up to a whole cycle at the end):

* L1 hit: ``T + l1.hit_latency``;
* L2 hit: ``T + (L + f(0)/r) + l2.latency + n/l2_bw + (L + f(n)/r)``: the read request
  crosses the request network, the slice looks it up after its own latency and moves the
  data through its port, the reply crosses the reply network;
* L2 miss: the same plus, between the slice port and the reply, ``dram.latency`` and the
  DRAM timing (:mod:`golden.timing.memory.dram`): for one burst ``tRCD + tCL + burst``
  on a closed bank, ``tCL + burst`` on a row hit, ``tRP + tRCD + tCL + burst`` on a row
  conflict (DRAM clocks converted to core cycles).

Promise at arrival: every access's completion cycle is computed when it is presented
and never revised; buses and ports keep calendars of the intervals already promised
(:mod:`golden.timing.memory.reservation`), and every 512 cycles the bookings that ended
before the current cycle are forgotten.

Coarse-grained L1 (dissertation ch. 5): every SM's L1 has a *fetch group* of G lines
(``memory.l1.fetch_group``, default 1 = baseline; see :mod:`golden.timing.memory.l1`),
which a policy may switch per SM while a kernel runs with :meth:`set_l1_fetch_group`
(e.g. set-dueling between baseline and coarse SMs); :meth:`l1_group_counters` reports
the group requests. With G = 1 on every SM the model is the baseline, bit for bit.

Observers: :meth:`add_l1_observer` attaches a callable that sees every L1 access the port
accepts (:mod:`golden.timing.memory.l1_trace`: protocol and a recorder). Off by default.

Determinism: no randomness; results depend only on the sequence of calls. Calls should
come in non-decreasing ``cycle`` order (as a cycle-stepped SM loop produces); a call
with an earlier cycle is served, but sees cache state as of the latest call (and may not
see bookings already forgotten).
"""

from __future__ import annotations

import heapq
from collections import Counter
from typing import NamedTuple

import numpy as np

from golden.configs.schema import GPUConfig
from golden.errors import ConfigError, SimtlabError
from golden.timing.memory.coalescer import Coalescer
from golden.timing.memory.const_cache import CONST_BASE, PARAM_BASE, ConstCache
from golden.timing.memory.dram import DRAM
from golden.timing.memory.dram_bank import DRAMTiming
from golden.timing.memory.interconnect import Interconnect, SMMemoryPort
from golden.timing.memory.l1 import L1Cache
from golden.timing.memory.l2 import L2Cache
from golden.timing.memory.shared_banks import SharedBanks

SPACES = ("global", "local", "const", "param", "shared")

#: Names of every counter :meth:`MemoryHierarchy.counters` reports.
COUNTER_NAMES = (
    "loads", "stores", "atomics", "transactions", "sectors",
    "l1_accesses", "l1_hits", "l1_misses", "l1_mshr_merges", "l1_reservation_fails",
    "l1_write_hits", "l1_write_misses",
    "l2_accesses", "l2_hits", "l2_misses", "l2_mshr_merges", "l2_writebacks",
    "dram_reads", "dram_writes", "dram_read_bytes", "dram_write_bytes", "dram_bytes",
    "shared_accesses", "shared_cycles", "shared_bank_conflicts", "atomic_serialized_lanes",
    "l1_bypasses", "const_accesses", "const_hits", "const_misses", "l2_warm_writebacks",
    "l2_mshr_full_delays", "dram_activates", "dram_precharges", "dram_row_hits",
    "dram_queue_full_delays", "dram_queue_full_cycles", "icnt_flits",
)

#: :meth:`MemoryHierarchy.l1_group_counters` name -> :class:`L1Cache` attribute
L1_COUNTERS = {
    "l1_group_requests": "group_requests", "l1_group_extra_lines": "group_extra_lines",
    "l1_group_extra_sectors": "group_extra_sectors",
    "l1_group_hit_waits": "group_hit_waits", "l1_group_hit_wait_cycles": "group_hit_wait_cycles",
    "l1_prefetch_pending_uses": "prefetch_pending_uses",
    "l1_prefetch_filled_uses": "prefetch_filled_uses",
    "l1_prefetch_evicted_unused": "prefetch_evicted_unused",
    "l1_reserved_hits": "reserved_hits", "l1_reserved_wait": "reserved_wait",
    "l1_miss_wait": "miss_wait", "l1_merge_fails": "merge_fails",
}


class AccessResult(NamedTuple):
    """Outcome of one warp memory access (an immutable named tuple: one is built per warp
    memory instruction, cheaper than a frozen dataclass).

    ``ok`` False means a reservation fail: nothing happened, retry at ``retry_cycle``.
    ``port_cycles`` is how long the L1/shared port is busy with this access (transactions
    or serialised shared-memory cycles).
    """

    ok: bool
    completion_cycle: int | None
    retry_cycle: int | None
    transactions: int
    port_cycles: int


class MemoryHierarchy:
    """Memory system of one GPU (``config.core.num_sms`` L1s, shared L2 and DRAM)."""

    def __init__(self, config: GPUConfig):
        mem = config.memory
        co, l1c, l2c, dr = mem.coalescing, mem.l1, mem.l2, mem.dram
        if not (co.line_bytes == l1c.line_bytes == l2c.line_bytes):
            raise ConfigError(
                f"memory: coalescing.line_bytes ({co.line_bytes}), l1.line_bytes "
                f"({l1c.line_bytes}) and l2.line_bytes ({l2c.line_bytes}) must be equal "
                "(the model tags caches by the coalescer's line)")
        if co.sector_bytes > co.line_bytes:
            raise ConfigError("memory.coalescing: sector_bytes must not exceed line_bytes")
        self._cfg = config
        self._warp = config.core.warp_size
        self.coalescer = Coalescer(sector_bytes=co.sector_bytes, line_bytes=co.line_bytes)
        self.banks = SharedBanks(banks=mem.shared.banks,
                                 bank_width_bytes=mem.shared.bank_width_bytes)
        self._shared_latency = mem.shared.latency
        if dr.row_bytes % co.line_bytes:
            raise ConfigError(f"memory.dram.row_bytes ({dr.row_bytes}) must be a multiple of "
                              f"the line ({co.line_bytes} bytes): a line lies in one row")
        interleave = dr.interleave_bytes or co.line_bytes
        if interleave % co.line_bytes or interleave & (interleave - 1) \
                or dr.row_bytes % interleave:
            raise ConfigError(f"memory.dram.interleave_bytes ({dr.interleave_bytes}) must be a "
                              f"power-of-two multiple of the line ({co.line_bytes} bytes) that "
                              f"divides memory.dram.row_bytes ({dr.row_bytes})")
        self.dram = DRAM(channels=dr.channels, banks=dr.banks, row_bytes=dr.row_bytes,
                         line_bytes=co.line_bytes, interleave_bytes=interleave,
                         timing=DRAMTiming.from_config(dr, config.core.clock_mhz),
                         latency=dr.latency, queue_entries=dr.request_queue_entries)
        self.l2 = L2Cache(size_bytes=l2c.size_bytes, assoc=l2c.assoc, line_bytes=l2c.line_bytes,
                          latency=l2c.latency, partitions=l2c.partitions,
                          bytes_per_cycle_per_partition=l2c.bytes_per_cycle_per_partition,
                          sector_bytes=co.sector_bytes, dram=self.dram, mshrs=l2c.mshrs,
                          mshr_max_merge=l2c.mshr_max_merge, interleave_bytes=interleave,
                          fetch_line=l2c.fetch_line,
                          dram_sector_requests=l2c.dram_sector_requests,
                          write_miss=l2c.write_miss)
        ic = mem.interconnect
        self.icnt = Interconnect(sms=config.core.num_sms, slices=l2c.partitions,
                                 latency=ic.latency, flit_bytes=ic.flit_bytes,
                                 header_bytes=ic.header_bytes,
                                 sm_flits_per_cycle=ic.sm_port_flits_per_cycle,
                                 l2_flits_per_cycle=ic.l2_port_flits_per_cycle)
        #: per SM: request network -> L2 slice -> reply network (what the L1 calls)
        self.ports = [SMMemoryPort(i, self.icnt, self.l2) for i in range(config.core.num_sms)]
        self._pruned = 0
        spl = max(1, l1c.line_bytes // co.sector_bytes)
        self._new_l1 = lambda g: L1Cache(sets=l1c.sets, assoc=l1c.assoc,
                                         line_bytes=l1c.line_bytes, hit_latency=l1c.hit_latency,
                                         mshrs=l1c.mshrs, fetch_group=g, sectors_per_line=spl,
                                         mshr_max_merge=l1c.mshr_max_merge,
                                         group_wait_all=l1c.fetch_group_wait_all,
                                         fetch_line=l1c.fetch_line,
                                         port_cycles=l1c.port_cycles,
                                         miss_latency=l1c.miss_latency)
        self._new_const = lambda: ConstCache(mem.const_cache,
                                             config.idealisations.perfect_const_cache)
        self.l1 = [self._new_l1(l1c.fetch_group) for _ in range(config.core.num_sms)]
        self._group_counts = Counter()      # group events of L1s replaced by reset_sm_caches
        self._l1_observers: tuple = ()
        self.const = [self._new_const() for _ in range(config.core.num_sms)]
        self._cache_global = l1c.cache_global_loads
        self._sector = co.sector_bytes
        self._l2_line = l2c.line_bytes
        self._counts: Counter = Counter()
        self._events: list[int] = []
        self._now = 0

    def reset_sm_caches(self, sm_id: int) -> None:
        """Empty SM ``sm_id``'s L1 and constant cache (a new kernel starts on it while
        other SMs keep running: the caches a lone launch would start without)."""
        old = self.l1[sm_id]
        for k, attr in L1_COUNTERS.items():
            self._group_counts[k] += getattr(old, attr)
        self.l1[sm_id] = self._new_l1(old.fetch_group)
        self.const[sm_id] = self._new_const()

    # ------------------------------------------------------------------ coarse-grained L1

    def set_l1_fetch_group(self, sm_id: int, group: int) -> None:
        """Make SM ``sm_id``'s L1 fetch groups of ``group`` lines (1 = baseline, 2 =
        coarse2, 4 = coarse4; a power of two) from its next access on. Lines already
        resident or pending stay; the SM keeps the setting across :meth:`reset_sm_caches`.
        """
        if not 0 <= sm_id < len(self.l1):
            raise SimtlabError(f"sm_id {sm_id} out of range (0..{len(self.l1) - 1})")
        self.l1[sm_id].fetch_group = group

    def l1_fetch_group(self, sm_id: int) -> int:
        """SM ``sm_id``'s current L1 fetch group (lines)."""
        return self.l1[sm_id].fetch_group

    def l1_group_counters(self) -> dict[str, int]:
        """Coarse-L1 and reserved-hit events over all SMs (names in :data:`L1_COUNTERS`,
        meaning in :mod:`golden.timing.memory.l1`): ``l1_group_requests`` (L2 requests of
        fetch-group misses that fetched other lines of the group), ``l1_group_extra_lines``
        (lines fetched beside the requested one), ``l1_reserved_hits`` (GPGPU-Sim's
        HIT_RESERVED), the wait and prefetch-use counters. Kept apart from
        :meth:`counters` so baseline statistics keep their keys; none changes timing."""
        out = Counter(self._group_counts)
        for l1 in self.l1:
            for k, attr in L1_COUNTERS.items():
                out[k] += getattr(l1, attr)
        return {k: int(out[k]) for k in L1_COUNTERS}

    # ------------------------------------------------------------------ observers

    def add_l1_observer(self, observer) -> None:
        """Call ``observer(sm_id, cycle, warp_id, kind, space, txs)`` for every access the
        L1 port accepts (protocol: :mod:`golden.timing.memory.l1_trace`)."""
        if not callable(observer):
            raise SimtlabError(f"L1 observer must be callable, got {type(observer).__name__}")
        self._l1_observers = self._l1_observers + (observer,)

    def remove_l1_observer(self, observer) -> None:
        """Detach an observer added with :meth:`add_l1_observer`."""
        obs = list(self._l1_observers)
        if observer not in obs:
            raise SimtlabError("remove_l1_observer: observer is not attached")
        obs.remove(observer)
        self._l1_observers = tuple(obs)

    # ------------------------------------------------------------------ access

    def access(self, sm_id: int, cycle: int, warp_id: int, lane_addrs, active_mask, size: int,
               is_store: bool = False, is_atomic: bool = False,
               space: str = "global") -> AccessResult:
        """Serve one warp memory instruction presented at ``cycle`` (see module docstring).

        ``lane_addrs``: one byte address per lane (shared: byte offsets in the shared
        window); ``active_mask``: int bit mask or bool array; ``size``: bytes per lane.
        ``warp_id`` is accepted for tracing and future per-warp policies; the model's
        timing does not depend on it.
        """
        if not 0 <= sm_id < len(self.l1):
            raise SimtlabError(f"sm_id {sm_id} out of range (0..{len(self.l1) - 1})")
        return self.serve(sm_id, cycle, warp_id, np.asarray(lane_addrs, dtype=np.uint64),
                          active_mask, size, is_store, is_atomic, space)

    def serve(self, sm_id: int, cycle: int, warp_id: int, addrs, active_mask, size: int,
              is_store: bool, is_atomic: bool, space: str) -> AccessResult:
        """:meth:`access` for a caller whose arguments are already what it checks (the SM's
        memory port): ``sm_id`` in range, ``addrs`` a uint64 array; a wrong lane count or
        an unknown ``space`` is still refused."""
        if space not in SPACES:
            raise SimtlabError(f"unknown memory space {space!r}; supported: {', '.join(SPACES)}")
        if addrs.ndim != 1 or addrs.shape[0] != self._warp:
            raise SimtlabError(f"lane_addrs has shape {addrs.shape}, expected ({self._warp},)")
        if cycle > self._now:
            self._now = cycle
        if cycle - self._pruned >= 512:      # forget bookings no later request can see
            self._pruned = cycle
            self.dram.prune(cycle)
            self.icnt.prune(cycle)
        l1 = self.l1[sm_id]
        c = self._counts
        if is_atomic:
            c["atomics"] += 1
        elif is_store:
            c["stores"] += 1
        else:
            c["loads"] += 1

        if space == "shared":
            cycles = self.banks.cycles(addrs, active_mask, size, serialize_same_word=is_atomic)
            if cycles == 0:
                return AccessResult(True, cycle, None, 0, 0)
            t0 = l1.start(cycle)
            pc = l1.port_cycles
            l1.port_free = t0 + cycles * pc
            c["shared_accesses"] += 1
            c["shared_cycles"] += cycles
            c["shared_bank_conflicts"] += cycles - 1
            done = t0 + (cycles - 1) * pc + self._shared_latency
            heapq.heappush(self._events, done)
            return AccessResult(True, done, None, 0, cycles * pc)

        if space in ("const", "param") and not is_store and not is_atomic:
            return self._const_load(sm_id, cycle, addrs, active_mask, size, space)

        txs = self.coalescer.coalesce(addrs, active_mask, size)
        if not txs:
            return AccessResult(True, cycle, None, 0, 0)
        t0 = l1.start(cycle)
        l1.retire(t0)
        bypass = space == "global" and not self._cache_global
        if not is_store and not is_atomic and not bypass and not l1.can_accept(txs):
            c["l1_reservation_fails"] += 1
            c["loads"] -= 1
            retry = l1.next_release()
            return AccessResult(False, None, retry, len(txs), 0)
        if self._l1_observers:
            kind = ("atomic" if is_atomic else "store" if is_store
                    else "load_bypass" if bypass else "load")
            for obs in self._l1_observers:
                obs(sm_id, t0, warp_id, kind, space, txs)
        c["transactions"] += len(txs)
        c["sectors"] += sum(tx.sector_count() for tx in txs)
        if is_atomic:
            done = l1.atomic(t0, txs, addrs, self.ports[sm_id], c)
        elif is_store:
            done = l1.store(t0, txs, self.ports[sm_id], c)
        else:
            new_events: list[int] = []
            done = l1.load(t0, txs, self.ports[sm_id], c, new_events, bypass=bypass)
            for e in new_events:
                heapq.heappush(self._events, e)
        heapq.heappush(self._events, done)
        return AccessResult(True, done, None, len(txs), len(txs) * l1.port_cycles)

    def _const_load(self, sm_id: int, cycle: int, addrs, active_mask, size: int,
                    space: str) -> AccessResult:
        """A const/param load through the SM's constant cache (one port cycle per line)."""
        cc = self.const[sm_id]
        lines = cc.lines(addrs, active_mask, size)
        if not lines:
            return AccessResult(True, cycle, None, 0, 0)
        c = self._counts
        base = CONST_BASE if space == "const" else PARAM_BASE
        t0 = max(cycle, cc.port_free)
        done_all = t0
        for i, line in enumerate(lines):
            p = t0 + i
            c["const_accesses"] += 1
            if cc.lookup(line):
                c["const_hits"] += 1
                done = p + cc.hit_latency
            else:
                c["const_misses"] += 1
                addr = base + line
                l2_line = addr - addr % self._l2_line
                first = (addr - l2_line) // self._sector
                n = max(1, cc.line_bytes // self._sector)
                mask = ((1 << n) - 1) << first
                done = L2Cache.to_cycle(self.ports[sm_id].read(p, l2_line, mask))
            done_all = max(done_all, done)
        cc.port_free = t0 + len(lines)
        heapq.heappush(self._events, done_all)
        return AccessResult(True, done_all, None, len(lines), len(lines))

    # ------------------------------------------------------------------ L2 across launches

    def l2_snapshot(self) -> list:
        """The L2's resident lines per slice, least recently used first:
        ``[[(line, valid, dirty), ...] per slice]`` (pending fills are not included)."""
        return [sl.tags.snapshot() for sl in self.l2.slices]

    def restore_l2(self, snapshot: list) -> None:
        """Load a :meth:`l2_snapshot` of an identically configured GPU into the (empty) L2."""
        for sl, lines in zip(self.l2.slices, snapshot):
            for line, valid, dirty in lines:
                sl.tags.fill(line, valid)
                if dirty:
                    sl.tags.fill(line, dirty, dirty=True)

    def warm_l2(self, ranges) -> int:
        """Fill the L2 with the sectors of each ``(address, nbytes)`` range, in order, as
        clean data (a host-to-device copy with ``l2_warm_on_memcpy``); later ranges evict
        earlier ones when they do not fit. Returns the number of lines touched."""
        sector, line_b = self._sector, self._l2_line
        per_line = line_b // sector
        n = 0
        for addr, nbytes in ranges:
            if nbytes <= 0:
                continue
            first, last = addr // sector, (addr + nbytes - 1) // sector
            s = first
            while s <= last:
                line = (s // per_line) * line_b
                end = min(last, (s // per_line + 1) * per_line - 1)
                mask = ((1 << (end - s + 1)) - 1) << (s % per_line)
                sl = self.l2.slices[self.l2.slice_of(line)]
                victim = sl.tags.fill(line, mask)
                if victim is not None and victim[1].dirty:
                    # a dirty line pushed out by the copy is written back before the kernel
                    self._counts["l2_warm_writebacks"] += 1
                n += 1
                s = end + 1
        return n

    # ------------------------------------------------------------------ events / stats

    def next_event_cycle(self, now: int | None = None) -> int | None:
        """Earliest completion or MSHR release after ``now`` (default: latest call's cycle).

        None when nothing is outstanding, so the SM model can jump straight to its own
        next event.
        """
        now = self._now if now is None else now
        ev = self._events
        while ev and ev[0] <= now:
            heapq.heappop(ev)
        return ev[0] if ev else None

    def counters(self) -> dict[str, int]:
        """Event counters for statistics and the energy model (names in COUNTER_NAMES)."""
        out = {name: int(self._counts.get(name, 0)) for name in COUNTER_NAMES}
        out["l2_accesses"] = self.l2.accesses
        out["l2_hits"] = self.l2.hits
        out["l2_misses"] = self.l2.misses
        out["l2_mshr_merges"] = self.l2.merges
        out["l2_writebacks"] = self.l2.writebacks
        out["l2_mshr_full_delays"] = self.l2.mshr_full_delays
        out.update(self.dram.counters())
        out["dram_bytes"] = self.dram.read_bytes + self.dram.write_bytes
        out["icnt_flits"] = self.icnt.flits
        return out
