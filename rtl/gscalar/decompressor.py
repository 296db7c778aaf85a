"""G-Scalar decompressor: per-byte select between stored bytes and the BVR (seed 003 §3.1, §3.3).

Reference model: :class:`golden.structures.gscalar.decompressor.Decompressor`.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.lanes import bytes_of, lane_bytes, words
from rtl.gscalar._checks import check_lanes_groups
from rtl.common.properties import properties

__all__ = ["Decompressor"]


class Decompressor(wiring.Component):
    """Rebuild a register from the byte arrays' output and the BVR, selected by the EBR.

    Byte ``b`` of each lane of group ``g`` is taken from BVR byte ``b`` of that group when
    bit ``b`` of ``enc_g`` is set and ``d`` is low, else from ``stored``. One
    decompressor sits in each operand collector (16 per SM).

    Purely combinational: latency 0 cycles (the paper's 1-cycle decode stage), one
    register per cycle. No clock or reset.

    Parameters
    ----------
    lanes : int
        Lanes per register, 1..32.
    groups : int
        1 or 2 compression groups (half-register compression).

    Attributes
    ----------
    stored : Signal(32 * lanes), in
        Bytes delivered by the arrays (lane ``i`` in bits ``[32 i, 32 i + 32)``).
    enc_groups : Signal(4 * groups), in
        EBR code of each group (group 0 in bits 3..0).
    base_groups : Signal(32 * groups), in
        BVR value of each group (group 0 low).
    d : Signal(1), in
        D bit: register written by a divergent instruction; codes are ignored.
    values : Signal(32 * lanes), out
        The rebuilt register.
    """

    def __init__(self, *, lanes: int = 32, groups: int = 1):
        check_lanes_groups(lanes, groups)
        self._lanes, self._groups = lanes, groups
        super().__init__({
            "stored": In(32 * lanes),
            "enc_groups": In(4 * groups),
            "base_groups": In(32 * groups),
            "d": In(1),
            "values": Out(32 * lanes),
        })

    @property
    def lanes(self) -> int:
        return self._lanes

    @property
    def groups(self) -> int:
        return self._groups

    def elaborate(self, platform):
        m = Module()
        width = self._lanes // self._groups
        out = []
        stored = lane_bytes(self.stored, self._lanes)
        encs = words(self.enc_groups, self._groups, 4)
        bases = words(self.base_groups, self._groups)
        for lane in range(self._lanes):
            g = lane // width
            enc, base = encs[g], bytes_of(bases[g])
            for b in range(4):
                out.append(Mux(enc[b] & ~self.d, base[b], stored[lane][b]))
        m.d.comb += self.values.eq(Cat(*out))

        fv = properties(platform)
        if fv is not None:
            fv.check(m, ~self.d | (self.values == self.stored),
                     "a divergent register (D) is delivered as stored", owner=self)
            got = lane_bytes(self.values, self._lanes)
            for lane in range(self._lanes):
                g = lane // width
                for b in range(4):
                    fv.check(m, (got[lane][b] == bytes_of(bases[g])[b])
                             | (got[lane][b] == stored[lane][b]),
                             "every byte comes from the BVR or from the arrays", owner=self)
                    fv.check(m, self.d | ~encs[g][b] | (got[lane][b] == bytes_of(bases[g])[b]),
                             "a common byte is taken from the BVR", owner=self)
        return m
