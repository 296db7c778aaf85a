"""Population count: number of set bits of a vector.

CAPRI's adequacy evaluator counts, per SIMD lane, the active threads in the CTA-wide
mask of a path; the largest count is the fewest warps compaction could form
(seed 004, §3.3; paper-facts §7.2). Reference model:
:class:`golden.structures.popcount.PopCount`.
"""

from __future__ import annotations

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.params import check_int
from rtl.common.properties import properties
from rtl.common.widths import count_width

__all__ = ["PopCount"]


class PopCount(wiring.Component):
    """Count the set bits of ``bits`` with a balanced adder tree.

    Purely combinational: latency 0 cycles, one result per cycle. No clock or reset.
    Depth is ceil(log2(width)) adder levels; each level's adders are one bit wider
    than the previous level's.

    Parameters
    ----------
    width : int
        Number of input bits (>= 1).

    Attributes
    ----------
    bits : Signal(width), in
        Input vector (e.g. one lane's active bits across the warps of a CTA).
    count : Signal(bit_length(width)), out
        Number of set bits of ``bits``, 0 ... width.
    """

    def __init__(self, *, width: int):
        check_int("Popcount", "width", width, 1)
        self._width = width
        super().__init__({
            "bits": In(width),
            "count": Out(count_width(width)),
        })

    @property
    def width(self) -> int:
        """Number of input bits."""
        return self._width

    @property
    def count_width(self) -> int:
        """Width of the ``count`` output in bits."""
        return count_width(self._width)

    def elaborate(self, platform):
        m = Module()
        level = [self.bits[i] for i in range(self._width)]
        depth, operand_width = 0, 1
        while len(level) > 1:
            depth += 1
            operand_width += 1
            nxt = []
            for j in range(0, len(level) - 1, 2):
                total = Signal(operand_width, name=f"sum_l{depth}_{j // 2}")
                m.d.comb += total.eq(level[j] + level[j + 1])
                nxt.append(total)
            if len(level) % 2:
                nxt.append(level[-1])
            level = nxt
        m.d.comb += self.count.eq(level[0])

        fv = properties(platform)
        if fv is not None:
            w = self._width
            spec = sum(self.bits[i] for i in range(w))   # specification: a linear sum
            fv.check(m, self.count == spec, "count equals the sum of the bits", owner=self)
            fv.check(m, self.count <= w, "count at most width", owner=self)
            fv.check(m, (self.count == 0) == (self.bits == 0), "count 0 iff no bit set", owner=self)
            fv.check(m, (self.count == w) == self.bits.all(), "count width iff all bits set",
                     owner=self)
        return m
