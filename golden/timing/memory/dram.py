"""Off-chip DRAM: channels of banks with row buffers, a bounded FR-FCFS-style scheduler
queue and a shared data bus per channel; plus the FIFO bandwidth server the L2 slices use.

What is stored
--------------
:class:`DRAM` holds ``channels`` :class:`DRAMChannel` objects and the address mapping.
A :class:`DRAMChannel` stores ``banks`` :class:`~golden.timing.memory.dram_bank.Bank`
objects (open row and last command times), a :class:`~golden.timing.memory.reservation.Calendar`
of its data bus (the bursts already promised), a calendar of activate windows (tRRD), the
sorted cycles at which the requests in its scheduler queue leave it, and its counters.
Device timing comes from :class:`~golden.timing.memory.dram_bank.DRAMTiming` (DRAM
command-clock cycles converted to SM core cycles by ``core_mhz / dram.clock_mhz``).

Address mapping (chunk-interleaved channels, row : bank : column inside a channel)::

    k       = interleave_bytes // line_bytes          # lines per chunk (1 = line-interleaved)
    line    = addr // line_bytes
    chunk   = line // k
    channel = chunk mod channels                      # consecutive chunks, consecutive channels
    local   = (chunk // channels) * k + line mod k    # line index inside the channel
    column  = local mod (row_bytes // line_bytes)     # lines of one row stay together
    bank    = (local // (row_bytes // line_bytes)) mod banks
    row     = local // ((row_bytes // line_bytes) * banks)

so a stream fills one row of a bank (row hits), then moves to the next bank (whose
activate overlaps the previous bank's bursts: bank-level parallelism). ``interleave_bytes``
is GPGPU-Sim's ``dramid@k`` (``2^k`` bytes per channel before the next): with 256 B chunks
two neighbour 128 B lines share a channel and a row, so fetching both (the coarse L1 of
dissertation ch. 5) costs one activation, as on the GPGPU-Sim GTX480 the chapter used.

Timing of one request (all in SM core cycles; the request is the missing sectors of one
line, ``n = ceil(bytes / bytes_per_burst)`` bursts):

1. it reaches the controller ``dram.latency`` cycles after the L2 sends it (GPGPU-Sim's
   ``-dram_latency``, the L2-to-DRAM queue);
2. it enters the scheduler queue; if ``request_queue_entries`` requests are already
   waiting it cannot enter until the earliest of them leaves (a delay, counted in
   ``queue_full_delays`` / ``queue_full_cycles``); a request leaves the queue when its
   last column command issues;
3. row hit (the bank's open row is the request's row): column commands may start at
   ``max(entry, bank.col_ready)``;
   row miss: precharge at ``max(entry, bank.pre_ready, activate + tRAS)`` if another row
   is open (counted in ``precharges``), activate ``tRP`` later (not before ``activate +
   tRC`` of the bank and not within ``tRRD`` of another activate of the channel, counted
   in ``activates``), column commands from ``tRCD`` after the activate;
4. the ``n`` bursts take the earliest free ``n x slot`` window of the data bus starting
   at least ``tCL`` (read) or ``tWL`` (write) after the earliest column command; the data
   is at the L2 when the last burst ends: ``start + (n - 1) x slot + burst``.

Unloaded latencies beyond ``dram.latency``: row hit ``tCL + (n-1) x slot + burst``; closed
bank ``tRCD + tCL + ...``; row conflict ``tRP + tRCD + tCL + ...`` (the open-row policy).
The peak bandwidth of a channel is ``bytes_per_burst / slot`` bytes per core cycle
(``bus_width x data_rate x dram_mhz / core_mhz`` when ``tCCD`` does not exceed the burst).

Scheduling: FR-FCFS within what promise-at-arrival allows
---------------------------------------------------------
Every request's completion cycle is computed, and never changed, when the request is
presented. Within that constraint:

* a request to a bank whose open row is its row is served as a row hit, behind the
  column commands already promised to that bank, and -- because the data bus is a
  calendar, not a FIFO -- it may use a bus gap *before* the data of earlier requests to
  other banks that still wait for their precharge/activate (a row hit overtaking older
  row misses, the "first-ready" part of FR-FCFS);
* requests to different banks overlap their precharge/activate with each other's bursts.

Not representable (approximated): reordering *within a bank*. A real FR-FCFS scheduler
serves a younger row hit before an older request to another row of the same bank while
that older request waits in the queue; here the older request's precharge was already
promised when it arrived, so the younger one is served after it (per-bank FCFS in
presentation order) and reopens its row -- more row conflicts than GPGPU-Sim under
interleaved streams to one bank. Likewise a full queue only delays the *entering*
request (the requests already queued keep their promised times), and a queue entry is
counted as occupied from the time the request was presented (even if it enters later).

Bank groups (``bank_groups`` > 1 and ``tCCDL`` above the slot, GDDR5; GPGPU-Sim
``nbkgrp`` / ``CCDL``): column commands to banks of one group issue at least ``tCCDL``
apart, so the bursts of one request (all in one bank) are spaced ``tCCDL`` and each takes
its own bus window; another group's bursts may use the gaps. The group remembers the
latest column command promised to it.

Other simplifications: no refresh, no read/write turnaround, no separate write queue or
write drain; writes (L2 write-backs) use the same queue, banks and bus as reads.
"""

from __future__ import annotations

import math
from bisect import bisect_right, insort

from golden.errors import SimtlabError
from golden.timing.memory.dram_bank import Bank, DRAMTiming
from golden.timing.memory.reservation import Calendar


class BandwidthQueue:
    """One FIFO server moving ``bytes_per_cycle`` bytes per cycle (an L2 slice's data port).

    Stores only the (fractional) cycle it becomes free. A request of ``n`` bytes arriving
    at ``a`` starts at ``max(a, free)`` and occupies the server for ``n / bytes_per_cycle``
    cycles (plus ``extra_cycles``).
    """

    def __init__(self, bytes_per_cycle: float):
        if bytes_per_cycle <= 0:
            raise SimtlabError(f"bytes_per_cycle must be positive, got {bytes_per_cycle}")
        self._bpc = float(bytes_per_cycle)
        self._free = 0.0
        self.busy_cycles = 0.0      #: total cycles spent transferring (utilisation statistic)

    @property
    def bytes_per_cycle(self) -> float:
        return self._bpc

    @property
    def free_at(self) -> float:
        """Cycle (fractional) the server finishes its last accepted request."""
        return self._free

    def serve(self, arrival: float, nbytes: int, extra_cycles: float = 0.0) -> tuple[float, float]:
        """Accept a request; returns its (start, end-of-transfer) cycles."""
        start = max(float(arrival), self._free)
        dur = nbytes / self._bpc + extra_cycles
        self._free = start + dur
        self.busy_cycles += dur
        return start, self._free

    def hold_until(self, cycle: float) -> None:
        """Block the server until ``cycle`` (a request at its head cannot proceed)."""
        if cycle > self._free:
            self._free = float(cycle)


class DRAMChannel:
    """One memory channel: its banks, scheduler queue, activate windows and data bus."""

    def __init__(self, *, banks: int, timing: DRAMTiming, queue_entries: int):
        if banks < 1 or queue_entries < 1:
            raise SimtlabError(f"bad DRAM channel banks={banks} queue_entries={queue_entries}")
        self.banks = [Bank() for _ in range(banks)]
        self.timing = timing
        groups = max(1, timing.bank_groups)
        if banks % groups:
            raise SimtlabError(f"DRAM banks ({banks}) must be a multiple of bank_groups "
                               f"({groups})")
        #: banks per bank group, and each group's earliest next column command (only
        #: used when tCCDL exceeds the burst slot)
        self._per_group = banks // groups
        self._grouped = groups > 1 and timing.ccdl > timing.slot
        self.group_col_ready = [0.0] * groups
        self.queue_entries = queue_entries
        self.bus = Calendar()          #: data-bus bursts promised
        self.activates_cal = Calendar()  #: tRRD windows after each activate
        self._leave: list[float] = []  #: sorted cycles queued requests issue their last column
        self.activates = 0
        self.precharges = 0
        self.row_hits = 0
        self.queue_full_delays = 0
        self.queue_full_cycles = 0.0

    def waiting(self, cycle: float) -> int:
        """Requests in the scheduler queue at ``cycle`` (promised to leave after it)."""
        return len(self._leave) - bisect_right(self._leave, cycle)

    def enter(self, cycle: float) -> float:
        """Cycle a request presented at ``cycle`` enters the (bounded) scheduler queue."""
        leave = self._leave
        q = self.queue_entries
        if len(leave) - bisect_right(leave, cycle) >= q:
            entry = leave[len(leave) - q]      # enough queued requests have left by then
            self.queue_full_delays += 1
            self.queue_full_cycles += entry - cycle
            return entry
        return cycle

    def access(self, cycle: float, bank: int, row: int, nbytes: int, *, write: bool) -> float:
        """Serve one request presented at ``cycle``; returns the end of its last burst."""
        tm = self.timing
        t = self.enter(cycle)
        b = self.banks[bank]
        if b.open_row == row:
            self.row_hits += 1
            col = max(t, b.col_ready)
        else:
            act = t
            if b.open_row is not None:
                act = max(t, b.pre_ready, b.activated + tm.ras) + tm.rp
                self.precharges += 1
            act = max(act, b.activated + tm.rc)
            act = self.activates_cal.reserve(act, tm.rrd)
            self.activates += 1
            b.open_row = row
            b.activated = act
            col = max(act + tm.rcd, b.col_ready)
        n = max(1, -(-nbytes // tm.bytes_per_burst))
        slot = tm.slot
        lat = tm.wl if write else tm.cl
        if self._grouped:
            g = bank // self._per_group
            c = max(col, self.group_col_ready[g])
            for _ in range(n):          # each burst its own bus window, tCCDL apart
                data = self.bus.reserve(c + lat, slot)
                last_col = data - lat
                c = last_col + tm.ccdl
            self.group_col_ready[g] = max(self.group_col_ready[g], c)
            end = data + tm.burst
        else:
            data = self.bus.reserve(col + lat, n * slot)
            last_col = data - lat + (n - 1) * slot
            end = data + (n - 1) * slot + tm.burst
        b.col_ready = last_col + slot
        b.pre_ready = end
        insort(self._leave, last_col)
        return end

    def prune(self, before: float) -> None:
        """Forget bookings and queue entries that end at or before ``before``."""
        self.bus.prune(before)
        self.activates_cal.prune(before)
        k = bisect_right(self._leave, before)
        if k:
            del self._leave[:k]


class DRAM:
    """Off-chip DRAM: ``channels`` chunk-interleaved :class:`DRAMChannel` objects.

    Parameters
    ----------
    channels, banks:
        Channels and banks per channel.
    row_bytes:
        Bytes of one row of one bank across the channel's devices (the row buffer).
    line_bytes:
        The cache line; ``row_bytes`` is a multiple.
    interleave_bytes:
        Consecutive bytes one channel serves (a multiple of ``line_bytes`` dividing
        ``row_bytes``); None = one line.
    timing:
        :class:`DRAMTiming` in SM core cycles.
    latency:
        Fixed cycles from the L2 to the controller queue (GPGPU-Sim ``-dram_latency``).
    queue_entries:
        Scheduler-queue entries per channel.
    """

    def __init__(self, *, channels: int, banks: int, row_bytes: int, line_bytes: int,
                 timing: DRAMTiming, latency: int, queue_entries: int,
                 interleave_bytes: int | None = None):
        interleave = line_bytes if interleave_bytes is None else interleave_bytes
        if channels < 1 or latency < 0 or line_bytes < 1 or row_bytes < line_bytes \
                or row_bytes % line_bytes or interleave < line_bytes \
                or interleave % line_bytes or row_bytes % interleave:
            raise SimtlabError(f"bad DRAM parameters channels={channels} latency={latency} "
                               f"line_bytes={line_bytes} row_bytes={row_bytes} "
                               f"interleave_bytes={interleave} (row_bytes must be a multiple "
                               f"of interleave_bytes, and that of line_bytes)")
        self._chan = [DRAMChannel(banks=banks, timing=timing, queue_entries=queue_entries)
                      for _ in range(channels)]
        self._n = channels
        self._banks = banks
        self._lat = latency
        self._line = line_bytes
        self._lines_per_row = row_bytes // line_bytes
        self._interleave = interleave
        self._k = interleave // line_bytes
        self.timing = timing
        self.reads = 0
        self.writes = 0
        self.read_bytes = 0
        self.write_bytes = 0

    @property
    def latency(self) -> int:
        return self._lat

    @property
    def channels(self) -> list[DRAMChannel]:
        return self._chan

    @property
    def bytes_per_cycle_per_channel(self) -> float:
        """Peak bytes one channel moves per SM core cycle (one burst per slot)."""
        return self.timing.bytes_per_burst / self.timing.slot

    def channel_of(self, addr: int) -> int:
        """Channel serving byte address ``addr`` (chunk-interleaved)."""
        return (addr // self._interleave) % self._n

    def locate(self, addr: int) -> tuple[int, int, int, int]:
        """``(channel, bank, row, column line)`` of byte address ``addr`` (module docstring)."""
        line = addr // self._line
        k = self._k
        chunk = line // k
        local = (chunk // self._n) * k + line % k
        rest = local // self._lines_per_row
        return chunk % self._n, rest % self._banks, rest // self._banks, \
            local % self._lines_per_row

    def read(self, arrival: float, addr: int, nbytes: int) -> float:
        """Read ``nbytes`` of the line at ``addr`` sent by the L2 at ``arrival``; returns the
        cycle the data is back at the L2."""
        ch, bank, row, _ = self.locate(addr)
        self.reads += 1
        self.read_bytes += nbytes
        return self._chan[ch].access(arrival + self._lat, bank, row, nbytes, write=False)

    def write(self, arrival: float, addr: int, nbytes: int) -> float:
        """Write back ``nbytes`` sent at ``arrival``; returns the end of the transfer."""
        ch, bank, row, _ = self.locate(addr)
        self.writes += 1
        self.write_bytes += nbytes
        return self._chan[ch].access(arrival + self._lat, bank, row, nbytes, write=True)

    def prune(self, before: float) -> None:
        """Forget state no request presented at or after ``before`` can see."""
        for ch in self._chan:
            ch.prune(before)

    def counters(self) -> dict[str, int]:
        """Summed channel counters (``queue_full_cycles`` rounded up to whole cycles)."""
        q = sum(ch.queue_full_cycles for ch in self._chan)
        return {
            "dram_reads": self.reads, "dram_writes": self.writes,
            "dram_read_bytes": self.read_bytes, "dram_write_bytes": self.write_bytes,
            "dram_activates": sum(ch.activates for ch in self._chan),
            "dram_precharges": sum(ch.precharges for ch in self._chan),
            "dram_row_hits": sum(ch.row_hits for ch in self._chan),
            "dram_queue_full_delays": sum(ch.queue_full_delays for ch in self._chan),
            "dram_queue_full_cycles": math.ceil(q - 1e-9) if q > 0 else 0,
        }
