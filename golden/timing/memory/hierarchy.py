"""The memory system one GPU's SMs talk to: coalescer, shared banks, L1s, L2, DRAM.

:class:`MemoryHierarchy` is the facade the SM model calls once per warp memory
instruction (after the MEM pipeline's address stage)::

    r = mem.access(sm_id, cycle, warp_id, lane_addrs, active_mask, size,
                   is_store=False, is_atomic=False, space="global")
    if r.ok: writeback at r.completion_cycle
    else:    retry at (or after) r.retry_cycle   # L1 MSHRs full ("reservation fail")

It stores one :class:`~golden.timing.memory.l1.L1Cache` per SM, the shared
:class:`~golden.timing.memory.l2.L2Cache` and :class:`~golden.timing.memory.dram.DRAM`,
event counters and a heap of future event cycles (completions and MSHR releases) so
the SM model can skip idle cycles with :meth:`next_event_cycle`.

Spaces: ``shared`` uses the bank-conflict model (cost = serialised cycles, completion
``start + cycles - 1 + shared.latency``); ``global``, ``local``, ``const`` and ``param``
go through coalescer -> L1 -> L2 -> DRAM (simplification: no separate constant or texture
cache; const/param loads are cached in the L1 like global loads).

Latency summary with no contention (``T`` = cycle the L1 port takes the transaction):
L1 hit ``T + l1.hit_latency``; L2 hit ``T + n/l2_bw + l2.latency``; L2 miss
``T + n/l2_bw + n/dram_bw + l2.latency + dram.latency`` (``n`` = bytes of the missing
sectors, rounded up to whole cycles at the end).

Determinism: no randomness; results depend only on the sequence of calls. Calls should
come in non-decreasing ``cycle`` order (as a cycle-stepped SM loop produces); a call
with an earlier cycle is served, but sees cache state as of the latest call.
"""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass

import numpy as np

from golden.configs.schema import GPUConfig
from golden.errors import ConfigError, SimtlabError
from golden.timing.memory.coalescer import Coalescer
from golden.timing.memory.dram import DRAM
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
)


@dataclass(frozen=True)
class AccessResult:
    """Outcome of one warp memory access.

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
        self.dram = DRAM(channels=dr.channels,
                         bytes_per_cycle_per_channel=dr.bytes_per_cycle_per_channel,
                         latency=dr.latency, line_bytes=co.line_bytes)
        self.l2 = L2Cache(size_bytes=l2c.size_bytes, assoc=l2c.assoc, line_bytes=l2c.line_bytes,
                          latency=l2c.latency, partitions=l2c.partitions,
                          bytes_per_cycle_per_partition=l2c.bytes_per_cycle_per_partition,
                          sector_bytes=co.sector_bytes, dram=self.dram)
        self.l1 = [L1Cache(sets=l1c.sets, assoc=l1c.assoc, line_bytes=l1c.line_bytes,
                           hit_latency=l1c.hit_latency, mshrs=l1c.mshrs)
                   for _ in range(config.core.num_sms)]
        self._counts: Counter = Counter()
        self._events: list[int] = []
        self._now = 0

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
        if space not in SPACES:
            raise SimtlabError(f"unknown memory space {space!r}; supported: {', '.join(SPACES)}")
        addrs = np.asarray(lane_addrs, dtype=np.uint64)
        if addrs.shape != (self._warp,):
            raise SimtlabError(f"lane_addrs has shape {addrs.shape}, expected ({self._warp},)")
        self._now = max(self._now, cycle)
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
            l1.port_free = t0 + cycles
            c["shared_accesses"] += 1
            c["shared_cycles"] += cycles
            c["shared_bank_conflicts"] += cycles - 1
            done = t0 + cycles - 1 + self._shared_latency
            heapq.heappush(self._events, done)
            return AccessResult(True, done, None, 0, cycles)

        txs = self.coalescer.coalesce(addrs, active_mask, size)
        if not txs:
            return AccessResult(True, cycle, None, 0, 0)
        t0 = l1.start(cycle)
        l1.retire(t0)
        if not is_store and not is_atomic and not l1.can_accept(txs):
            c["l1_reservation_fails"] += 1
            c["loads"] -= 1
            retry = l1.next_release()
            return AccessResult(False, None, retry, len(txs), 0)
        c["transactions"] += len(txs)
        c["sectors"] += sum(tx.sector_count() for tx in txs)
        if is_atomic:
            done = l1.atomic(t0, txs, addrs, self.l2, c)
        elif is_store:
            done = l1.store(t0, txs, self.l2, c)
        else:
            new_events: list[int] = []
            done = l1.load(t0, txs, self.l2, c, new_events)
            for e in new_events:
                heapq.heappush(self._events, e)
        heapq.heappush(self._events, done)
        return AccessResult(True, done, None, len(txs), len(txs))

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
        out["dram_reads"] = self.dram.reads
        out["dram_writes"] = self.dram.writes
        out["dram_read_bytes"] = self.dram.read_bytes
        out["dram_write_bytes"] = self.dram.write_bytes
        out["dram_bytes"] = self.dram.read_bytes + self.dram.write_bytes
        return out
