"""DARSIE PC coalescer in front of the skip table's read ports (seed 000 §4.3.4: two).

Reference model and selection rules: :class:`golden.structures.darsie.coalescer.PCCoalescer`.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.leading_one import LeadingOneDetector
from rtl.common.properties import properties

from ._util import check_int, index_width, select

__all__ = ["MAX_PORTS", "PCCoalescer"]

#: Read-port outputs of the interface (the golden model's ``MAX_PORTS``; a test keeps the
#: two equal, the RTL imports no golden code).
MAX_PORTS = 4


class PCCoalescer(wiring.Component):
    """Merge same-(TB, PC) skip-table requests of up to ``slots`` warps into ``ports``
    reads (the paper: 2).

    Purely combinational (no state, no clock): latency 0, one set of requests per cycle.
    Port 0 serves the key of the lowest valid slot and every slot sharing it; port ``k``
    the key of the lowest slot no earlier port served and every remaining slot sharing it;
    the rest is ``leftover``. Cost: ``ports`` x ``slots`` key comparators of
    ``tb_width + pc_width`` bits and ``ports``
    :class:`~rtl.common.leading_one.LeadingOneDetector` of ``slots`` bits, chained.
    The interface always has ``MAX_PORTS`` (4) port outputs; those at or above ``ports``
    are constant 0.

    Parameters
    ----------
    slots : int
        Requests examined per cycle (8).
    tbs : int
        TB slots of the SM (32); ``tb_width`` = bits for ``tbs - 1``.
    pc_width : int
        PC width (48).
    ports : int
        Read ports granted per cycle (2; 1 to 4).

    Attributes
    ----------
    req_valid : Signal(slots), in
        Slot ``i`` holds a request.
    req_tb : Signal(slots * tb_width), in
        Packed TB of each slot (slot ``i`` at bits ``i*tb_width``).
    req_pc : Signal(slots * pc_width), in
        Packed PC of each slot.
    port<k>_valid : Signal(1), out, k = 0..3
        The read port is used.
    port<k>_tb : Signal(tb_width), out
        TB of the read (0 when unused).
    port<k>_pc : Signal(pc_width), out
        PC of the read (0 when unused).
    port<k>_slots : Signal(slots), out
        Slots served by the read.
    leftover : Signal(slots), out
        Valid slots served by neither port.
    """

    def __init__(self, *, slots: int = 8, tbs: int = 32, pc_width: int = 48, ports: int = 2):
        self._slots = check_int("PCCoalescer", "slots", slots, 1)
        self._ports = check_int("PCCoalescer", "ports", ports, 1, MAX_PORTS)
        self._tbs = check_int("PCCoalescer", "tbs", tbs, 1)
        self._pc_width = check_int("PCCoalescer", "pc_width", pc_width, 1)
        self._tb_width = index_width(tbs)
        ports = {"req_valid": In(slots), "req_tb": In(slots * self._tb_width),
                 "req_pc": In(slots * pc_width)}
        for k in range(MAX_PORTS):
            ports.update({f"port{k}_valid": Out(1), f"port{k}_tb": Out(self._tb_width),
                          f"port{k}_pc": Out(pc_width), f"port{k}_slots": Out(slots)})
        ports["leftover"] = Out(slots)
        super().__init__(ports)

    @property
    def slots(self) -> int:
        return self._slots

    @property
    def tbs(self) -> int:
        return self._tbs

    @property
    def pc_width(self) -> int:
        return self._pc_width

    @property
    def ports(self) -> int:
        return self._ports

    def elaborate(self, platform):
        m = Module()
        s, tw, pw = self._slots, self._tb_width, self._pc_width
        keys = []
        for i in range(s):
            key = Signal(tw + pw, name=f"key_{i}")
            m.d.comb += key.eq(Cat(self.req_tb[i * tw:(i + 1) * tw], self.req_pc[i * pw:(i + 1) * pw]))
            keys.append(key)

        remaining = self.req_valid
        for k in range(self._ports):
            first = LeadingOneDetector(width=s)
            m.submodules[f"first{k}"] = first
            m.d.comb += first.bits.eq(remaining)
            key = Signal(tw + pw, name=f"port{k}_key")
            m.d.comb += key.eq(select([first.onehot[i] for i in range(s)], keys, tw + pw))
            served = Signal(s, name=f"port{k}_served")
            m.d.comb += served.eq(Cat(*[remaining[i] & (keys[i] == key) for i in range(s)]))
            m.d.comb += [
                getattr(self, f"port{k}_valid").eq(first.valid),
                getattr(self, f"port{k}_tb").eq(key[:tw]),
                getattr(self, f"port{k}_pc").eq(key[tw:]),
                getattr(self, f"port{k}_slots").eq(served),
            ]
            rest = Signal(s, name=f"after_port{k}")
            m.d.comb += rest.eq(remaining & ~served)
            remaining = rest
        m.d.comb += self.leftover.eq(remaining)

        fv = properties(platform)
        if fv is not None:
            self._properties(m, fv, keys)
        return m

    def _properties(self, m, fv, keys):
        s, tw, P = self._slots, self._tb_width, self._ports
        served = [getattr(self, f"port{k}_slots") for k in range(P)]
        for k in range(P):
            key = Cat(getattr(self, f"port{k}_tb"), getattr(self, f"port{k}_pc"))
            for i in range(s):
                fv.check(m, ~served[k][i] | (self.req_valid[i] & (keys[i] == key)),
                         "a port merges only valid requests of its own <TB, PC>", owner=self)
                fv.check(m, ~self.leftover[i] | ~getattr(self, f"port{k}_valid")
                         | (keys[i] != key),
                         "no request of a served <TB, PC> is left over", owner=self)
            fv.check(m, getattr(self, f"port{k}_valid") == (served[k] != 0),
                     "a port is valid iff it serves a request", owner=self)
            for k2 in range(k + 1, P):
                fv.check(m, (served[k] & served[k2]) == 0, "no request is served twice",
                         owner=self)
        union = served[0]
        for k in range(1, P):
            union = union | served[k]
        fv.check(m, (union | self.leftover) == self.req_valid,
                 "every valid request is served or left over", owner=self)
        fv.check(m, (union & self.leftover) == 0, "a served request is not left over",
                 owner=self)
