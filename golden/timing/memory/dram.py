"""Bandwidth-limited FIFO queues with latency: the DRAM channels (and the L2 slices' port).

:class:`BandwidthQueue` is one server that moves at most ``bytes_per_cycle`` bytes per
cycle in arrival order. It stores only the (fractional) cycle it becomes free. A request
of ``n`` bytes arriving at cycle ``a`` starts at ``max(a, free)``, occupies the server for
``n / bytes_per_cycle`` cycles and finishes its transfer at ``start + n / bytes_per_cycle``;
the caller adds the fixed latency.

:class:`DRAM` is ``channels`` such servers. Address interleaving: the line number
``addr // line_bytes`` picks channel ``line_number mod channels`` (consecutive lines go to
consecutive channels, so a streaming warp spreads over all of them). A read's data is back
at the L2 at ``transfer_end + latency``.

Simplifications: no banks, rows, refresh or FR-FCFS reordering -- each channel is a FIFO
whose only parameters are peak bandwidth and a fixed latency; the queue is unbounded
(``DRAMConfig.request_queue_entries`` is not enforced: in a FIFO with computed service
times a full queue would only delay when a request *enters* the queue, not when it is
served). Requests must be presented in roughly non-decreasing time; one presented earlier
than the channel's free time simply waits (FIFO).
"""

from __future__ import annotations

from golden.errors import SimtlabError


class BandwidthQueue:
    """One FIFO server moving ``bytes_per_cycle`` bytes per cycle."""

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


class DRAM:
    """Off-chip DRAM: ``channels`` line-interleaved bandwidth queues with a fixed latency."""

    def __init__(self, *, channels: int, bytes_per_cycle_per_channel: float, latency: int,
                 line_bytes: int):
        if channels < 1 or latency < 0 or line_bytes < 1:
            raise SimtlabError(f"bad DRAM parameters channels={channels} latency={latency} "
                               f"line_bytes={line_bytes}")
        self._chan = [BandwidthQueue(bytes_per_cycle_per_channel) for _ in range(channels)]
        self._lat = latency
        self._line = line_bytes
        self.reads = 0
        self.writes = 0
        self.read_bytes = 0
        self.write_bytes = 0

    @property
    def latency(self) -> int:
        return self._lat

    @property
    def channels(self) -> list[BandwidthQueue]:
        return self._chan

    def channel_of(self, addr: int) -> int:
        """Channel serving byte address ``addr`` (line-interleaved)."""
        return (addr // self._line) % len(self._chan)

    def read(self, arrival: float, addr: int, nbytes: int) -> float:
        """Read ``nbytes`` of the line at ``addr``; returns the cycle the data is back at the L2."""
        _, end = self._chan[self.channel_of(addr)].serve(arrival, nbytes)
        self.reads += 1
        self.read_bytes += nbytes
        return end + self._lat

    def write(self, arrival: float, addr: int, nbytes: int) -> float:
        """Write back ``nbytes`` (occupies the channel); returns the end of the transfer."""
        _, end = self._chan[self.channel_of(addr)].serve(arrival, nbytes)
        self.writes += 1
        self.write_bytes += nbytes
        return end
