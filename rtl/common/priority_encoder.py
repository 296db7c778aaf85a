"""Priority encoder: binary index of the lowest set request.

TBC's warp compaction unit forms compacted warps with per-lane priority encoders
(paper-facts §7.1), and the project's CAM and free list pick "the first free entry" the
same way. Reference model: :class:`golden.structures.priority_encoder.PriorityEncoder`.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.leading_one import LeadingOneDetector
from rtl.common.params import check_int
from rtl.common.properties import properties
from rtl.common.widths import index_width

__all__ = ["PriorityEncoder"]


class PriorityEncoder(wiring.Component):
    """Encode the lowest set bit of ``requests`` as a binary index.

    The lowest index has the highest priority. When no request is set, ``valid`` is 0
    and ``index`` is 0 (defined, so that RTL and golden model agree on every output).

    Built as a :class:`~rtl.common.leading_one.LeadingOneDetector` (lowest index first)
    followed by a one-hot to binary OR encoder.

    Purely combinational: latency 0 cycles, one result per cycle. No clock or reset.

    Parameters
    ----------
    width : int
        Number of request inputs (>= 1).

    Attributes
    ----------
    requests : Signal(width), in
        Request vector; bit *i* is request *i*.
    index : Signal(max(1, ceil(log2(width)))), out
        Index of the lowest set request; 0 when none is set.
    valid : Signal(1), out
        1 when any request is set.
    """

    def __init__(self, *, width: int):
        check_int("Priority encoder", "width", width, 1)
        self._width = width
        super().__init__({
            "requests": In(width),
            "index": Out(index_width(width)),
            "valid": Out(1),
        })

    @property
    def width(self) -> int:
        """Number of request inputs."""
        return self._width

    @property
    def index_width(self) -> int:
        """Width of the ``index`` output in bits."""
        return index_width(self._width)

    def elaborate(self, platform):
        m = Module()
        m.submodules.lod = lod = LeadingOneDetector(width=self._width)
        m.d.comb += [
            lod.bits.eq(self.requests),
            self.valid.eq(lod.valid),
        ]
        # Index bit k is the OR of the one-hot lines whose position has bit k set.
        for k in range(self.index_width):
            lines = [lod.onehot[i] for i in range(self._width) if (i >> k) & 1]
            m.d.comb += self.index[k].eq(Cat(lines).any() if lines else 0)

        fv = properties(platform)
        if fv is not None:
            w = self._width
            below = ((Const(1, w + 1) << self.index) - 1)[:w]      # requests of higher priority
            fv.check(m, self.valid == self.requests.any(), "valid iff a request is set", owner=self)
            fv.check(m, ~self.valid | self.requests.bit_select(self.index, 1),
                     "index names a set request", owner=self)
            fv.check(m, ~self.valid | ((self.requests & below) == 0),
                     "no lower-index request is set", owner=self)
            fv.check(m, self.valid | (self.index == 0), "index 0 when no request", owner=self)
        return m
