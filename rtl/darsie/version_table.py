"""DARSIE version table of one TB: <reg, version> -> physical register (seed 000 §4.3.1, §6.3).

Reference model: :class:`golden.structures.darsie.version_table.VersionTable`. A fully
associative key store without replacement state (the table cannot overflow when it has
as many entries as the freelist has registers, so :class:`rtl.common.cam.CAM`'s true LRU
would be dead weight: 496 flip-flops at 32 entries); the lowest free entry is found with
:class:`rtl.common.leading_one.LeadingOneDetector`.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.leading_one import LeadingOneDetector
from rtl.common.properties import properties

from ._util import any_of, check_int, encode, index_width, select

__all__ = ["VersionTable"]


class VersionTable(wiring.Component):
    """``entries`` x (reg, version) -> physical tag.

    Latency 0 (combinational outputs), updates at the next ``sync`` edge. Per cycle: one
    read, one flush, one remove, one insert, in that order, each seeing the previous
    ones. State: ``entries * (reg_width + version_width + phys_width + 1)`` bits (the
    paper's 21 bits per entry plus a valid bit).

    Parameters
    ----------
    entries : int
        Entries (32).
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
        Entry used by the insert (0 when refused or without ``ins_en``).
    ins_hit : Signal(1), out
        The key was present and is overwritten in place.
    ins_full : Signal(1), out
        The key is absent and no entry is free: the insert is refused.
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
        self._entries = check_int("VersionTable", "entries", entries, 1)
        self._reg_width = check_int("VersionTable", "reg_width", reg_width, 1)
        self._version_width = check_int("VersionTable", "version_width", version_width, 1)
        self._phys_width = check_int("VersionTable", "phys_width", phys_width, 1)
        super().__init__({
            "rd_reg": In(reg_width), "rd_version": In(version_width),
            "rd_hit": Out(1), "rd_phys": Out(phys_width),
            "ins_en": In(1), "ins_reg": In(reg_width), "ins_version": In(version_width),
            "ins_phys": In(phys_width),
            "ins_index": Out(index_width(entries)), "ins_hit": Out(1), "ins_full": Out(1),
            "rm_en": In(1), "rm_reg": In(reg_width), "rm_version": In(version_width),
            "rm_hit": Out(1), "flush": In(1), "valid": Out(entries),
        })

    @property
    def entries(self) -> int:
        return self._entries

    def elaborate(self, platform):
        m = Module()
        n = self._entries
        kw = self._reg_width + self._version_width
        keys = [Signal(kw, name=f"key_{i}") for i in range(n)]
        valid = [Signal(name=f"valid_{i}") for i in range(n)]
        phys = [Signal(self._phys_width, name=f"phys_{i}") for i in range(n)]
        rd_key, rm_key, ins_key = (Cat(self.rd_version, self.rd_reg),
                                   Cat(self.rm_version, self.rm_reg),
                                   Cat(self.ins_version, self.ins_reg))
        m.d.comb += self.valid.eq(Cat(*valid))

        # (1) read on the start-of-cycle contents.
        rd_match = [Signal(name=f"rd_match_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += rd_match[i].eq(valid[i] & (keys[i] == rd_key))
        m.d.comb += [self.rd_hit.eq(any_of(rd_match)),
                     self.rd_phys.eq(select(rd_match, phys, self._phys_width))]

        # (2) flush, (3) remove.
        rm_match = [Signal(name=f"rm_match_{i}") for i in range(n)]
        kept = [Signal(name=f"kept_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += [
                rm_match[i].eq(self.rm_en & valid[i] & ~self.flush & (keys[i] == rm_key)),
                kept[i].eq(valid[i] & ~self.flush & ~rm_match[i]),
            ]
        m.d.comb += self.rm_hit.eq(any_of(rm_match))

        # (4) insert: the entry holding the key, else the lowest free entry, else refused.
        ins_match = [Signal(name=f"ins_match_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += ins_match[i].eq(kept[i] & (keys[i] == ins_key))
        m.submodules.free = free = LeadingOneDetector(width=n)
        m.d.comb += free.bits.eq(~Cat(*kept))
        hit = Signal()
        m.d.comb += hit.eq(any_of(ins_match))
        sel = [Signal(name=f"ins_sel_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += sel[i].eq(self.ins_en & Mux(hit, ins_match[i], free.onehot[i]))
        m.d.comb += [
            self.ins_index.eq(encode(sel)),
            self.ins_hit.eq(self.ins_en & hit),
            self.ins_full.eq(self.ins_en & ~hit & ~free.valid),
        ]
        for i in range(n):
            m.d.sync += valid[i].eq(kept[i] | sel[i])
            with m.If(sel[i]):
                m.d.sync += [keys[i].eq(ins_key), phys[i].eq(self.ins_phys)]

        fv = properties(platform)
        if fv is not None:
            fv.expose(self, keys=keys, valid=valid, phys=phys)
            for i in range(n):
                for j in range(i + 1, n):
                    fv.check(m, ~(valid[i] & valid[j] & (keys[i] == keys[j])),
                             "at most one valid entry per <reg, version>", owner=self)
            fv.check(m, ~self.ins_full | (Cat(*kept).all() & ~hit),
                     "an insert is refused only when the key is absent and no entry is free",
                     owner=self)
            fv.check(m, ~(self.rm_hit & self.flush), "a remove during a flush finds nothing",
                     owner=self)
            fv.check(m, self.rd_hit == any_of([valid[i] & (keys[i] == rd_key) for i in range(n)]),
                     "a read hits iff a valid entry holds the key", owner=self)
            # After an accepted insert the key maps to the inserted register.
            done = fv.past(m, self.ins_en & ~self.ins_full, "ins_done")
            was_key, was_phys = fv.past(m, ins_key, "ins_key"), fv.past(m, self.ins_phys, "ins_phys")
            was_idx = fv.past(m, self.ins_index, "ins_index")
            fv.check(m, ~done | any_of([(was_idx == i) & valid[i] & (keys[i] == was_key)
                                        & (phys[i] == was_phys) for i in range(n)]),
                     "an accepted insert is readable with its register next cycle", owner=self)
        return m
