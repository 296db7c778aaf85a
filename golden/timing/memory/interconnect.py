"""The on-chip interconnect between the SMs and the L2 slices.

Two networks, as GPGPU-Sim's two subnets: the *request* network carries SM -> L2-slice
packets, the *reply* network L2-slice -> SM packets. Each network is modelled by its end
points and a fixed traversal latency:

* every SM has an injection port on the request network and an ejection port on the
  reply network; every L2 slice has an ejection port on the request network and an
  injection port on the reply network;
* a port moves ``flits_per_cycle`` flits of ``flit_bytes`` bytes per SM core cycle
  (``InterconnectConfig.sm_port_flits_per_cycle`` / ``l2_port_flits_per_cycle``);
* a packet of ``k`` flits takes its source port for ``k / r_src`` cycles from the earliest
  free time ``s1 >= t`` (the port's :class:`~golden.timing.memory.reservation.Calendar`,
  so a short reply computed after a long one does not queue behind it), its head reaches
  the destination ``latency`` cycles after it leaves, it takes the destination port for
  ``k / r_dst`` cycles from the earliest free ``s2 >= s1 + latency``, and it has arrived
  when its tail has: ``max(s2 + k / r_dst, s1 + k / r_src + latency)`` (cut-through).
  Unloaded: ``t + latency + k / min(r_src, r_dst)``.

Packet sizes (``h`` = ``header_bytes``, GPGPU-Sim's 8-byte READ/WRITE_PACKET_SIZE; ``n`` =
bytes of the requested sectors): read request ``h``; write request ``h + n``; read reply
``h + n``; write acknowledgement ``h``; atomic request and reply ``h + n``. A packet is
``ceil(bytes / flit_bytes)`` flits; every flit injected is counted in ``flits`` (for the
energy model), split into ``request_flits`` and ``reply_flits``.

:class:`SMMemoryPort` is what one SM's L1 talks to: the same ``read`` / ``write`` /
``atomic`` calls as :class:`~golden.timing.memory.l2.L2Cache`, but with SM-side times
(request network, then the slice, then the reply network). An L2 hit as seen by the SM is
therefore ``request network + l2.latency + slice port + reply network``.

Simplifications: no topology inside the network (no internal contention, only the end
ports), no virtual channels or credit flow control, infinite buffers at the ports; a
packet's flits occupy a port back to back.
"""

from __future__ import annotations

from golden.errors import SimtlabError
from golden.timing.memory.l2 import L2Cache, popcount
from golden.timing.memory.reservation import Calendar


class Interconnect:
    """Request and reply networks: per-SM and per-slice port calendars, fixed latency."""

    def __init__(self, *, sms: int, slices: int, latency: int, flit_bytes: int,
                 header_bytes: int, sm_flits_per_cycle: float, l2_flits_per_cycle: float):
        if sms < 1 or slices < 1 or latency < 0 or flit_bytes < 1 or header_bytes < 0 \
                or sm_flits_per_cycle <= 0 or l2_flits_per_cycle <= 0:
            raise SimtlabError(
                f"bad interconnect parameters sms={sms} slices={slices} latency={latency} "
                f"flit_bytes={flit_bytes} header_bytes={header_bytes} "
                f"sm_flits_per_cycle={sm_flits_per_cycle} l2_flits_per_cycle={l2_flits_per_cycle}")
        self.latency = latency
        self.flit_bytes = flit_bytes
        self.header_bytes = header_bytes
        self._r_sm = float(sm_flits_per_cycle)
        self._r_l2 = float(l2_flits_per_cycle)
        self.req_inject = [Calendar() for _ in range(sms)]      #: SM injection, request net
        self.req_eject = [Calendar() for _ in range(slices)]    #: slice ejection, request net
        self.rep_inject = [Calendar() for _ in range(slices)]   #: slice injection, reply net
        self.rep_eject = [Calendar() for _ in range(sms)]       #: SM ejection, reply net
        self.request_flits = 0
        self.reply_flits = 0
        self.packets = 0

    @property
    def flits(self) -> int:
        """Flits injected into either network."""
        return self.request_flits + self.reply_flits

    def flits_of(self, payload_bytes: int) -> int:
        """Flits of a packet carrying ``payload_bytes`` after its header."""
        return max(1, -(-(self.header_bytes + payload_bytes) // self.flit_bytes))

    def _send(self, src: Calendar, dst: Calendar, t: float, k: int, r_src: float,
              r_dst: float) -> float:
        d_src = k / r_src
        s1 = src.reserve(t, d_src)
        d_dst = k / r_dst
        s2 = dst.reserve(s1 + self.latency, d_dst)
        self.packets += 1
        return max(s2 + d_dst, s1 + d_src + self.latency)

    def request(self, sm: int, sl: int, t: float, payload_bytes: int) -> float:
        """Send a request packet from SM ``sm`` to slice ``sl`` at ``t``; returns its arrival."""
        k = self.flits_of(payload_bytes)
        self.request_flits += k
        return self._send(self.req_inject[sm], self.req_eject[sl], t, k, self._r_sm, self._r_l2)

    def reply(self, sl: int, sm: int, t: float, payload_bytes: int) -> float:
        """Send a reply packet from slice ``sl`` to SM ``sm`` at ``t``; returns its arrival."""
        k = self.flits_of(payload_bytes)
        self.reply_flits += k
        return self._send(self.rep_inject[sl], self.rep_eject[sm], t, k, self._r_l2, self._r_sm)

    def prune(self, before: float) -> None:
        """Forget port bookings that end at or before ``before``."""
        for group in (self.req_inject, self.req_eject, self.rep_inject, self.rep_eject):
            for cal in group:
                cal.prune(before)


class SMMemoryPort:
    """One SM's path to the L2: request network -> L2 slice -> reply network.

    Offers the calls of :class:`L2Cache` that the L1 makes, with SM-side times: each
    returns the (fractional) cycle the reply reaches the SM.
    """

    to_cycle = staticmethod(L2Cache.to_cycle)

    def __init__(self, sm: int, icnt: Interconnect, l2: L2Cache):
        self.sm = sm
        self.icnt = icnt
        self.l2 = l2
        self._sector = l2.sector_bytes

    def read(self, arrival: float, line: int, sectors: int) -> float:
        """Read sectors of a line; returns the cycle the data reaches the SM."""
        sl = self.l2.slice_of(line)
        n = popcount(sectors) * self._sector
        at_l2 = self.icnt.request(self.sm, sl, arrival, 0)
        ready = self.l2.read(at_l2, line, sectors)
        return self.icnt.reply(sl, self.sm, ready, n)

    def read_group(self, arrival: float, parts) -> float:
        """Read several lines as one request (an L1 fetch group, ``parts`` = ``[(line,
        sectors), ...]``, the first the requested line); returns the cycle the last data
        reaches the SM.

        One request packet travels to the slice of the first line; on its arrival every
        line is read at its own slice (slice port, tags, MSHRs and DRAM account each
        line's bytes; lines are interleaved over slices, so a group may span several) and
        each slice sends its lines' data back in one reply packet. Simplification: the
        request occupies only the first slice's ejection port (no forwarding cost to the
        other slices). One part is exactly :meth:`read`.
        """
        if len(parts) == 1:
            return self.read(arrival, *parts[0])
        home = self.l2.slice_of(parts[0][0])
        at_l2 = self.icnt.request(self.sm, home, arrival, 0)
        ready: dict[int, float] = {}
        nbytes: dict[int, int] = {}
        for line, sectors in parts:
            sl = self.l2.slice_of(line)
            r = self.l2.read(at_l2, line, sectors)
            ready[sl] = max(ready.get(sl, r), r)
            nbytes[sl] = nbytes.get(sl, 0) + popcount(sectors) * self._sector
        return max(self.icnt.reply(sl, self.sm, ready[sl], nbytes[sl]) for sl in ready)

    def write(self, arrival: float, line: int, sectors: int) -> float:
        """Write sectors (data in the request); returns the cycle the ack reaches the SM."""
        sl = self.l2.slice_of(line)
        n = popcount(sectors) * self._sector
        at_l2 = self.icnt.request(self.sm, sl, arrival, n)
        ack = self.l2.write(at_l2, line, sectors)
        return self.icnt.reply(sl, self.sm, ack, 0)

    def atomic(self, arrival: float, line: int, sectors: int, serial_lanes: int) -> float:
        """Atomic at the slice (operands in the request, old values in the reply)."""
        sl = self.l2.slice_of(line)
        n = popcount(sectors) * self._sector
        at_l2 = self.icnt.request(self.sm, sl, arrival, n)
        ready = self.l2.atomic(at_l2, line, sectors, serial_lanes)
        return self.icnt.reply(sl, self.sm, ready, n)
