"""Free list of ``entries`` indices: a free bitmap with lowest-first allocation and checked frees.

DARSIE's per-TB physical register freelist (seed 000 §4.3; paper-facts §1.4 row F), the
SRF index freelist of the uniform-vector design (seed 002 §2) and WarpMan's warp slots (seed 002
ch. 3) are built on it. Reference model: :class:`golden.structures.freelist.FreeList`.
"""

from __future__ import annotations

from functools import reduce
from operator import or_

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.params import check_int
from rtl.common.popcount import PopCount
from rtl.common.priority_encoder import PriorityEncoder
from rtl.common.properties import properties

__all__ = ["FreeList"]


class FreeList(wiring.Component):
    """Free list of the indices ``0 .. entries - 1`` (all free after reset).

    State: one flip-flop per index (``is_free_<i>``, reset value 1). Allocation takes the
    lowest-numbered free index (a :class:`~rtl.common.priority_encoder.PriorityEncoder`
    over the free bitmap); ``free_count`` is a :class:`~rtl.common.popcount.PopCount` of it.

    Latency: every output is a combinational function of the start-of-cycle state and
    this cycle's inputs (0 cycles); the state change of an ``alloc`` or ``free`` is visible
    from the next cycle (1 cycle). Throughput: one alloc and one free per cycle.

    Same-cycle alloc + free: both are judged against the start-of-cycle state. A freed
    index becomes allocatable in the next cycle (no bypass), so an ``alloc`` while
    ``empty`` fails even with a ``free`` in the same cycle, and freeing the index that is
    being allocated in the same cycle is a double free.

    Parameters
    ----------
    entries : int
        Number of indices managed, at least 1.
    index_width : int or None
        Width of ``alloc_index`` and ``free_index``. ``None`` (default): just enough bits
        for ``entries - 1`` (at least 1). A wider port lets callers with wider index
        fields present out-of-range indices, which ``free`` flags as errors.

    Attributes
    ----------
    alloc : Signal(1), in
        Allocate ``alloc_index`` at the next edge. Ignored while ``empty``.
    alloc_index : Signal(index_width), out
        Lowest free index (what ``alloc`` takes this cycle); 0 while ``empty``.
    empty : Signal(1), out
        No index is free; an ``alloc`` this cycle returns nothing and changes nothing.
    free : Signal(1), in
        Return ``free_index`` to the list at the next edge (unless ``error``).
    free_index : Signal(index_width), in
        Index to free.
    error : Signal(1), out
        ``free`` with ``free_index >= entries`` (out of range) or with an index that is
        already free (double free). The state is not changed by that free.
    free_count : Signal(range(entries + 1)), out
        Number of free indices at the start of the cycle.
    """

    def __init__(self, *, entries: int, index_width: int | None = None):
        check_int("FreeList", "entries", entries, 1)
        minimum = max(1, (entries - 1).bit_length())
        if index_width is None:
            index_width = minimum
        else:
            check_int("FreeList", f"index_width ({entries} entries)", index_width, minimum)
        self._entries = entries
        self._index_width = index_width
        super().__init__({
            "alloc": In(1),
            "alloc_index": Out(index_width),
            "empty": Out(1),
            "free": In(1),
            "free_index": In(index_width),
            "error": Out(1),
            "free_count": Out(range(entries + 1)),
        })

    @property
    def entries(self) -> int:
        return self._entries

    @property
    def index_width(self) -> int:
        return self._index_width

    def elaborate(self, platform):
        m = Module()
        n = self._entries
        is_free = [Signal(init=1, name=f"is_free_{i}") for i in range(n)]

        m.submodules.first_free = first_free = PriorityEncoder(width=n)
        m.submodules.counter = counter = PopCount(width=n)
        m.d.comb += [
            first_free.requests.eq(Cat(*is_free)),
            counter.bits.eq(Cat(*is_free)),
            self.alloc_index.eq(first_free.index),
            self.empty.eq(~first_free.valid),
            self.free_count.eq(counter.count),
        ]

        # Free checks on the start-of-cycle state.
        selected = [Signal(name=f"free_sel_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += selected[i].eq(self.free_index == i)
        double_free = reduce(or_, [selected[i] & is_free[i] for i in range(n)])
        out_of_range = self.free_index >= n
        m.d.comb += self.error.eq(self.free & (out_of_range | double_free))

        grant = self.alloc & first_free.valid
        release = self.free & ~self.error
        for i in range(n):
            with m.If(release & selected[i]):
                m.d.sync += is_free[i].eq(1)
            with m.Elif(grant & (first_free.index == i)):
                m.d.sync += is_free[i].eq(0)

        fv = properties(platform)
        if fv is not None:
            free_bits = Cat(*is_free)
            fv.expose(self, is_free=free_bits)
            fv.check(m, self.free_count == sum(is_free), "free_count equals the free entries",
                     owner=self)
            fv.check(m, self.empty | free_bits.bit_select(self.alloc_index, 1),
                     "alloc_index is a free entry (never handed out twice)", owner=self)
            fv.check(m, self.empty == (free_bits == 0), "empty iff no entry is free", owner=self)
            fv.check(m, ~(grant & release & (self.free_index == self.alloc_index)),
                     "an accepted free never targets the entry granted that cycle", owner=self)
        return m
