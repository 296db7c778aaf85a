"""DARSIE version table of one TB: <reg, version> -> physical register (seed 000 §4.3.1, §6.3).

Reference model: :class:`golden.structures.darsie.version_table.VersionTable`. The key
store is :class:`rtl.common.cam.CAM` (tag = reg, version); the physical tags are a
payload array indexed by the CAM entry.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.cam import CAM

from ._util import check_int, index_width

__all__ = ["VersionTable"]


class VersionTable(wiring.Component):
    """``entries`` x (reg, version) -> physical tag, on the common CAM.

    Latency 0 (combinational outputs), updates at the next ``sync`` edge. Per cycle: one
    read (no LRU touch), one flush, one remove, one insert, in that order (the CAM's
    same-cycle order). State: CAM (``entries * (key_width + 1)`` + LRU
    ``entries * (entries - 1) / 2`` bits) + ``entries * phys_width`` payload bits. The LRU
    only matters if more versions than ``entries`` are live, which a mechanism whose
    freelist has ``entries`` registers never does.

    Parameters
    ----------
    entries : int
        Entries (32), at least 2.
    reg_width : int
        Named-register width (8).
    version_width : int
        Version width (5).
    phys_width : int
        Physical tag width (8).

    Attributes
    ----------
    rd_reg, rd_version : Signal, in
        Key read.
    rd_hit : Signal(1), out
        The key is present.
    rd_phys : Signal(phys_width), out
        Its physical tag (0 on a miss).
    ins_en : Signal(1), in
        Insert ``(ins_reg, ins_version) -> ins_phys``.
    ins_reg, ins_version, ins_phys : Signal, in
        Insert operands.
    ins_index : Signal(index_width), out
        Entry used by the insert (0 without ``ins_en``).
    ins_hit : Signal(1), out
        The key was present and is overwritten in place.
    ins_evict : Signal(1), out
        The insert replaced another valid key (LRU).
    rm_en : Signal(1), in
        Remove ``(rm_reg, rm_version)``.
    rm_reg, rm_version : Signal, in
        Key removed.
    rm_hit : Signal(1), out
        It was present.
    flush : Signal(1), in
        Remove every key.
    valid : Signal(entries), out
        Valid entries at the start of the cycle.
    """

    def __init__(self, *, entries: int = 32, reg_width: int = 8, version_width: int = 5,
                 phys_width: int = 8):
        self._entries = check_int("VersionTable", "entries", entries, 2)
        self._reg_width = check_int("VersionTable", "reg_width", reg_width, 1)
        self._version_width = check_int("VersionTable", "version_width", version_width, 1)
        self._phys_width = check_int("VersionTable", "phys_width", phys_width, 1)
        super().__init__({
            "rd_reg": In(reg_width), "rd_version": In(version_width),
            "rd_hit": Out(1), "rd_phys": Out(phys_width),
            "ins_en": In(1), "ins_reg": In(reg_width), "ins_version": In(version_width),
            "ins_phys": In(phys_width),
            "ins_index": Out(index_width(entries)), "ins_hit": Out(1), "ins_evict": Out(1),
            "rm_en": In(1), "rm_reg": In(reg_width), "rm_version": In(version_width),
            "rm_hit": Out(1), "flush": In(1), "valid": Out(entries),
        })

    @property
    def entries(self) -> int:
        return self._entries

    def elaborate(self, platform):
        m = Module()
        n = self._entries
        m.submodules.cam = cam = CAM(entries=n, tag_width=self._reg_width + self._version_width)
        phys = [Signal(self._phys_width, name=f"phys_{i}") for i in range(n)]
        m.d.comb += [
            cam.lookup_tag.eq(Cat(self.rd_version, self.rd_reg)),
            cam.lookup_touch.eq(0),
            cam.flush.eq(self.flush),
            cam.inv_tag_en.eq(self.rm_en),
            cam.inv_tag.eq(Cat(self.rm_version, self.rm_reg)),
            cam.inv_index_en.eq(0),
            cam.insert_en.eq(self.ins_en),
            cam.insert_tag.eq(Cat(self.ins_version, self.ins_reg)),
            self.rd_hit.eq(cam.hit),
            self.rd_phys.eq(0),
            self.ins_index.eq(cam.insert_index),
            self.ins_hit.eq(cam.insert_hit),
            self.ins_evict.eq(cam.insert_evict),
            self.rm_hit.eq(cam.inv_tag_hit),
            self.valid.eq(cam.valid),
        ]
        for i in range(n):
            with m.If(cam.hit & (cam.hit_index == i)):
                m.d.comb += self.rd_phys.eq(phys[i])
            with m.If(self.ins_en & (cam.insert_index == i)):
                m.d.sync += phys[i].eq(self.ins_phys)
        return m
