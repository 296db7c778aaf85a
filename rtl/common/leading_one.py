"""Leading-one detector: one-hot mask of the first set bit of a vector.

G-Scalar (seed 003, §4.2, Fig. 7a) runs a leading-one detector over the warp's active
mask to choose the single active lane that drives the shared byte-wide bus, so that
inactive lanes compare equal during a divergent write-back (paper-facts §6.4 B).
Reference model: :class:`golden.structures.leading_one.LeadingOneDetector`.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.params import check_int
from rtl.common.properties import properties

__all__ = ["LeadingOneDetector"]


class LeadingOneDetector(wiring.Component):
    """Keep only the first set bit of ``bits``.

    "First" means the **lowest index** by default (lane 0 has the highest priority, the
    same convention as :class:`rtl.common.priority_encoder.PriorityEncoder`). With
    ``msb_first=True`` the highest index wins instead, as drawn in G-Scalar Fig. 7a.

    Purely combinational: latency 0 cycles, one result per cycle. No clock or reset.

    Parameters
    ----------
    width : int
        Number of input bits (>= 1).
    msb_first : bool
        Priority direction; ``False`` (default) lets the lowest set index win,
        ``True`` the highest.

    Attributes
    ----------
    bits : Signal(width), in
        Input vector (e.g. an active mask, bit *i* = lane *i*).
    onehot : Signal(width), out
        ``bits`` with every set bit but the first cleared; 0 when ``bits`` is 0.
    valid : Signal(1), out
        1 when any bit of ``bits`` is set.
    """

    def __init__(self, *, width: int, msb_first: bool = False):
        check_int("Leading-one detector", "width", width, 1)
        if not isinstance(msb_first, bool):
            raise TypeError(f"Leading-one detector msb_first must be a bool, not {msb_first!r}")
        self._width = width
        self._msb_first = msb_first
        super().__init__({
            "bits": In(width),
            "onehot": Out(width),
            "valid": Out(1),
        })

    @property
    def width(self) -> int:
        """Number of input bits."""
        return self._width

    @property
    def msb_first(self) -> bool:
        """``True`` if the highest set index wins, ``False`` if the lowest does."""
        return self._msb_first

    def elaborate(self, platform):
        m = Module()
        width = self._width

        # Work on a view in which the winning bit is always the lowest set one.
        order = list(reversed(range(width))) if self._msb_first else list(range(width))
        ordered = Signal(width)
        m.d.comb += ordered.eq(Cat(self.bits[i] for i in order))

        # x & (~x + 1) isolates the lowest set bit (two's-complement trick).
        lowest = Signal(width)
        m.d.comb += lowest.eq(ordered & (~ordered + 1)[:width])

        m.d.comb += [
            self.onehot.eq(Cat(lowest[order.index(i)] for i in range(width))),
            self.valid.eq(self.bits.any()),
        ]

        fv = properties(platform)
        if fv is not None:
            oh, bits = self.onehot, self.bits
            fv.check(m, (oh & ~bits) == 0, "onehot is a subset of bits", owner=self)
            fv.check(m, (oh & (oh - 1)[:width]) == 0, "at most one bit of onehot", owner=self)
            fv.check(m, self.valid == oh.any(), "valid iff onehot is not zero", owner=self)
            fv.check(m, self.valid == bits.any(), "valid iff a bit is set", owner=self)
            if self._msb_first:
                ahead = ~((oh << 1) - 1)[:width]     # positions above the winner
            else:
                ahead = (oh - 1)[:width]             # positions below the winner
            fv.check(m, ~self.valid | ((bits & ahead) == 0),
                     "no set bit has priority over the winner", owner=self)
        return m
