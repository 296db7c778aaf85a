"""DARSIE physical register freelist of one TB (seed 000 §4.3.1, §4.3.5).

Reference model: :class:`golden.structures.darsie.phys_freelist.PhysRegFreeList`. Built on
:class:`rtl.common.freelist.FreeList` with ``index_width = tag_width``; adds the
"last free register" flag (the allocation that empties the list makes the instruction a
TB synchronisation point) and the RF bank of the register offered (strided placement).
"""

from __future__ import annotations

from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.freelist import FreeList
from rtl.common.properties import properties

from ._util import check_int, index_width

__all__ = ["PhysRegFreeList"]


class PhysRegFreeList(wiring.Component):
    """Free list of the TB's ``entries`` renaming registers, lowest index first.

    Latency 0 (combinational outputs), updates at the next ``sync`` edge; one alloc and
    one free per cycle, both judged on the start-of-cycle state (rules of the common
    :class:`~rtl.common.freelist.FreeList`). State: ``entries`` flip-flops.

    Parameters
    ----------
    entries : int
        Renaming registers per TB (32).
    tag_width : int
        Physical tag width (8), at least enough for ``entries - 1``.
    banks : int
        RF banks, a power of two (32).

    Attributes
    ----------
    alloc : Signal(1), in
        Take ``alloc_index``.
    free : Signal(1), in
        Return ``free_index``.
    free_index : Signal(tag_width), in
        Register returned.
    alloc_index : Signal(tag_width), out
        Lowest free register (0 when empty).
    empty : Signal(1), out
        No register is free.
    error : Signal(1), out
        Double or out-of-range free (ignored).
    free_count : Signal(range(entries + 1)), out
        Free registers at the start of the cycle.
    alloc_last : Signal(1), out
        Exactly one register is free: allocating it empties the list (synchronise).
    alloc_bank : Signal(bank_width), out
        RF bank of ``alloc_index`` (``alloc_index mod banks``).
    """

    def __init__(self, *, entries: int = 32, tag_width: int = 8, banks: int = 32):
        self._entries = check_int("PhysRegFreeList", "entries", entries, 1)
        self._tag_width = check_int("PhysRegFreeList", "tag_width", tag_width,
                                    index_width(entries))
        self._banks = check_int("PhysRegFreeList", "banks", banks, 1)
        if banks & (banks - 1):
            raise ValueError(f"PhysRegFreeList banks must be a power of two, not {banks}")
        self._bank_width = index_width(banks)
        super().__init__({
            "alloc": In(1), "free": In(1), "free_index": In(tag_width),
            "alloc_index": Out(tag_width), "empty": Out(1), "error": Out(1),
            "free_count": Out(range(entries + 1)),
            "alloc_last": Out(1), "alloc_bank": Out(self._bank_width),
        })

    @property
    def entries(self) -> int:
        return self._entries

    def elaborate(self, platform):
        m = Module()
        m.submodules.list = fl = FreeList(entries=self._entries, index_width=self._tag_width)
        banks_bits = min((self._banks - 1).bit_length(), self._tag_width)
        m.d.comb += [
            fl.alloc.eq(self.alloc),
            fl.free.eq(self.free),
            fl.free_index.eq(self.free_index),
            self.alloc_index.eq(fl.alloc_index),
            self.empty.eq(fl.empty),
            self.error.eq(fl.error),
            self.free_count.eq(fl.free_count),
            self.alloc_last.eq(fl.free_count == 1),
            self.alloc_bank.eq(fl.alloc_index[:banks_bits] if banks_bits else 0),
        ]
        fv = properties(platform)
        if fv is not None:
            fv.expose(self, freelist=fl)
            fv.check(m, self.alloc_bank == (self.alloc_index % self._banks),
                     "alloc_bank is the offered register mod banks (strided placement)",
                     owner=self)
        return m
