"""G-Scalar compressor: byte comparison with leading-one broadcast (seed 003 §3.1, §4.2 Fig. 7).

Reference model: :class:`golden.structures.gscalar.compressor.Compressor`.
"""

from __future__ import annotations

from functools import reduce
from operator import and_, or_

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.lanes import bytes_of, words
from rtl.common.leading_one import LeadingOneDetector
from rtl.common.properties import properties
from rtl.gscalar._checks import check_lanes_groups

__all__ = ["Compressor", "thermometer"]


def thermometer(m: Module, eq: list, valid, name: str) -> Signal:
    """4-bit code from per-byte equality ``eq[b]``: the common MSB-contiguous prefix.

    Bit ``b`` of the code is set when bytes ``3..b`` are all common, so the five codes
    0000, 1000, 1100, 1110, 1111 are the only ones produced; 0 when ``valid`` is low.
    """
    enc = Signal(4, name=name)
    prefix = []
    run = valid
    for b in reversed(range(4)):
        run = run & eq[b]
        prefix.append(run)
    m.d.comb += enc.eq(Cat(*reversed(prefix)))
    return enc


class Compressor(wiring.Component):
    """Compress one result register: thermometer code, base, per-group codes and FS.

    For each compression group a :class:`~rtl.common.leading_one.LeadingOneDetector`
    (lowest lane first) picks the first active lane; its value drives a shared bus (an
    AND-OR here, tristate in the paper) that replaces every inactive lane at the
    comparator inputs. Byte ``b`` is common when every pair of neighbouring lanes
    compares equal on it. The whole-register result of the half-register variant is
    derived from the two halves plus one 4-byte comparison of their bases (the FS
    comparator of Fig. 7c), so no second set of lane comparators is needed.

    Purely combinational: latency 0 cycles, one register per cycle. No clock or reset.

    Parameters
    ----------
    lanes : int
        Lanes per register, 1..32 (32 in the paper).
    groups : int
        1 = whole-register compression, 2 = half-register compression (encL/encH, FS).

    Attributes
    ----------
    values : Signal(32 * lanes), in
        Lane values, lane ``i`` in bits ``[32 i, 32 i + 32)``.
    active : Signal(lanes), in
        Active mask (bit ``i`` = lane ``i``); inactive lanes are ignored.
    enc : Signal(4), out
        Whole-register code over active lanes (0000/1000/1100/1110/1111; 0 if none active).
    base : Signal(32), out
        Value of the first active lane (0 if none).
    enc_groups : Signal(4 * groups), out
        Code of each group (group 0 in bits 3..0); equals ``enc`` when ``groups == 1``.
    base_groups : Signal(32 * groups), out
        First-active-lane value of each group (group 0 low).
    fs : Signal(1), out
        Full scalar: ``enc == 1111``.
    """

    def __init__(self, *, lanes: int = 32, groups: int = 1):
        check_lanes_groups(lanes, groups)
        self._lanes, self._groups = lanes, groups
        super().__init__({
            "values": In(32 * lanes),
            "active": In(lanes),
            "enc": Out(4),
            "base": Out(32),
            "enc_groups": Out(4 * groups),
            "base_groups": Out(32 * groups),
            "fs": Out(1),
        })

    @property
    def lanes(self) -> int:
        return self._lanes

    @property
    def groups(self) -> int:
        return self._groups

    def _group(self, m: Module, g: int, lanes: list[int]):
        """Comparison unit of one group: returns (raw per-byte equality, base, valid)."""
        n = len(lanes)
        lod = LeadingOneDetector(width=n)
        m.submodules[f"lod_{g}"] = lod
        m.d.comb += lod.bits.eq(Cat(self.active[l] for l in lanes))
        lane_words = words(self.values, self._lanes)
        value = [lane_words[l] for l in lanes]
        bus = Signal(32, name=f"bus_{g}")
        m.d.comb += bus.eq(reduce(or_, [Mux(lod.onehot[i], value[i], 0) for i in range(n)]))
        subst = []
        for i, l in enumerate(lanes):
            s = Signal(32, name=f"cmp_in_{l}")
            m.d.comb += s.eq(Mux(self.active[l], value[i], bus))
            subst.append(s)
        eq = []
        for b in range(4):
            e = Signal(name=f"eq_g{g}_b{b}")
            pairs = [bytes_of(subst[i])[b] == bytes_of(subst[i + 1])[b] for i in range(n - 1)]
            m.d.comb += e.eq(reduce(and_, pairs) if pairs else 1)
            eq.append(e)
        return eq, bus, lod.valid

    def elaborate(self, platform):
        m = Module()
        width = self._lanes // self._groups
        units = [self._group(m, g, list(range(g * width, (g + 1) * width)))
                 for g in range(self._groups)]
        encs = [thermometer(m, eq, valid, f"enc_g{g}") for g, (eq, _, valid) in enumerate(units)]
        m.d.comb += [
            self.enc_groups.eq(Cat(*encs)),
            self.base_groups.eq(Cat(*[bus for _, bus, _ in units])),
        ]
        if self._groups == 1:
            m.d.comb += [self.enc.eq(encs[0]), self.base.eq(units[0][1])]
        else:
            (eq_l, base_l, valid_l), (eq_h, base_h, valid_h) = units
            full_eq = []
            for b in range(4):
                e = Signal(name=f"eq_full_b{b}")
                cross = bytes_of(base_l)[b] == bytes_of(base_h)[b]
                m.d.comb += e.eq(Mux(valid_l & valid_h, eq_l[b] & eq_h[b] & cross,
                                     Mux(valid_l, eq_l[b], eq_h[b])))
                full_eq.append(e)
            enc = thermometer(m, full_eq, valid_l | valid_h, "enc_full")
            m.d.comb += [self.enc.eq(enc), self.base.eq(Mux(valid_l, base_l, base_h))]
        m.d.comb += self.fs.eq(self.enc == 0b1111)

        fv = properties(platform)
        if fv is not None:
            self._properties(m, fv)
        return m

    def _properties(self, m, fv):
        """Specification of the code, stated on the lane values directly (not on the
        comparator chain): every active lane equals ``base`` in the bytes the code marks
        common, the code is the longest such MSB-first prefix, ``base`` is the first active
        lane's value."""
        lanes = words(self.values, self._lanes)
        active = [self.active[l] for l in range(self._lanes)]
        thermo = [0b0000, 0b1000, 0b1100, 0b1110, 0b1111]
        spans = [(self.enc, self.base, range(self._lanes))]
        width = self._lanes // self._groups
        for g in range(self._groups):
            spans.append((self.enc_groups[4 * g: 4 * g + 4], self.base_groups[32 * g: 32 * g + 32],
                          range(g * width, (g + 1) * width)))
        for enc, base, group in spans:
            fv.check(m, reduce(or_, [enc == t for t in thermo]),
                     "the code is a thermometer code (0000/1000/1100/1110/1111)", owner=self)
            any_active = reduce(or_, [active[l] for l in group])
            for b in range(4):
                same = reduce(and_, [~active[l] | (bytes_of(lanes[l])[b] == bytes_of(base)[b])
                                     for l in group])
                fv.check(m, ~enc[b] | same, "every active lane equals base in each common byte",
                         owner=self)
                upper = enc[b + 1] if b < 3 else any_active
                fv.check(m, ~(upper & ~enc[b]) | ~same,
                         "the code is the longest common MSB-first byte prefix", owner=self)
            first = [active[l] & ~reduce(or_, [active[k] for k in group if k < l], Const(0, 1))
                     for l in group]
            fv.check(m, base == reduce(or_, [Mux(f, lanes[l], 0) for f, l in zip(first, group)]),
                     "base is the first active lane's value (0 when none is active)", owner=self)
        fv.check(m, self.fs == (self.enc == 0b1111), "FS iff all four bytes are common", owner=self)
