"""DARSIE register rename table of one TB: <warp, reg> -> version (seed 000 §4.3.1).

Reference model, organisation and bit count: :class:`golden.structures.darsie.rename_table.RenameTable`.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .ops import RenameOp
from rtl.common.leading_one import LeadingOneDetector
from rtl.common.properties import properties

from ._util import any_of, check_int, index_width, select

__all__ = ["RenameTable"]


class RenameTable(wiring.Component):
    """``entries`` named-register entries, each with a per-warp renamed bit and version.

    An entry is in use while any of its renamed bits is set (no separate valid bit). A
    new register takes the lowest free entry (a :class:`~rtl.common.leading_one.LeadingOneDetector`).

    Latency 0 (combinational outputs on the start-of-cycle state); updates at the next
    ``sync`` edge. Per cycle: one read, one write-port operation (set or drop), one
    clear-warp, one flush, applied in that order.

    Parameters
    ----------
    warps : int
        Warps per TB (32).
    entries : int
        Renamed registers per TB (32).
    reg_width : int
        Named-register width (8).
    version_width : int
        Version width (5).
    per_warp_versions : bool
        True (default): per-warp renamed bits and versions. False: the paper's §6.3
        21-bit organisation (issue 69 item 4): per entry a tag, one version for every warp
        and a used bit (see the golden model's "Paper organisation"; elaborated by
        :meth:`_elaborate_paper`).

    Attributes
    ----------
    rd_warp : Signal(warp_width), in
        Reading warp.
    rd_reg : Signal(reg_width), in
        Register read.
    rd_hit : Signal(1), out
        The warp has renamed the register.
    rd_version : Signal(version_width), out
        The version it reads (0 on a miss).
    wr_op : Signal(RenameOp), in
        :class:`rtl.darsie.ops.RenameOp`, 2 bits: 0 none, 1 set, 2 drop (3 does nothing).
    wr_warp : Signal(warp_width), in
        Writing warp.
    wr_reg : Signal(reg_width), in
        Register written.
    wr_version : Signal(version_width), in
        New version (set).
    clr_en : Signal(1), in
        Clear every mapping of warp ``clr_warp``.
    clr_warp : Signal(warp_width), in
        Warp leaving the majority path.
    flush : Signal(1), in
        Clear every mapping.
    wr_hit : Signal(1), out
        An entry holds ``wr_reg``.
    wr_full : Signal(1), out
        Set of an absent register with no free entry: dropped.
    wr_old_valid : Signal(1), out
        The warp had a mapping for ``wr_reg``.
    wr_old_version : Signal(version_width), out
        That mapping's version.
    wr_old_shared : Signal(1), out
        Another warp maps ``wr_reg`` to the same old version.
    valid : Signal(entries), out
        Entries in use.
    """

    def __init__(self, *, warps: int = 32, entries: int = 32, reg_width: int = 8,
                 version_width: int = 5, per_warp_versions: bool = True):
        if not isinstance(per_warp_versions, bool):
            raise TypeError(f"RenameTable: per_warp_versions must be a bool, not {per_warp_versions!r}")
        self._per_warp = per_warp_versions
        self._warps = check_int("RenameTable", "warps", warps, 1)
        self._entries = check_int("RenameTable", "entries", entries, 1)
        self._reg_width = check_int("RenameTable", "reg_width", reg_width, 1)
        self._version_width = check_int("RenameTable", "version_width", version_width, 1)
        ww = index_width(warps)
        super().__init__({
            "rd_warp": In(ww), "rd_reg": In(reg_width),
            "rd_hit": Out(1), "rd_version": Out(version_width),
            "wr_op": In(RenameOp), "wr_warp": In(ww), "wr_reg": In(reg_width),
            "wr_version": In(version_width),
            "clr_en": In(1), "clr_warp": In(ww), "flush": In(1),
            "wr_hit": Out(1), "wr_full": Out(1), "wr_old_valid": Out(1),
            "wr_old_version": Out(version_width), "wr_old_shared": Out(1),
            "valid": Out(entries),
        })

    @property
    def warps(self) -> int:
        return self._warps

    @property
    def entries(self) -> int:
        return self._entries

    @property
    def reg_width(self) -> int:
        return self._reg_width

    @property
    def version_width(self) -> int:
        return self._version_width

    @property
    def per_warp_versions(self) -> bool:
        return self._per_warp

    def elaborate(self, platform):
        if not self._per_warp:
            return self._elaborate_paper(platform)
        m = Module()
        n, nw, vw = self._entries, self._warps, self._version_width
        tags = [Signal(self._reg_width, name=f"reg_{e}") for e in range(n)]
        renamed = [Signal(nw, name=f"renamed_{e}") for e in range(n)]
        versions = [[Signal(vw, name=f"version_{e}_w{w}") for w in range(nw)] for e in range(n)]
        used = [Signal(name=f"used_{e}") for e in range(n)]
        for e in range(n):
            m.d.comb += used[e].eq(renamed[e].any())
        m.d.comb += self.valid.eq(Cat(*used))

        def warp_onehot(warp, name):
            sig = Signal(nw, name=name)
            m.d.comb += sig.eq(Cat(*[warp == w for w in range(nw)]))
            return sig

        rd_w = warp_onehot(self.rd_warp, "rd_warp_onehot")
        wr_w = warp_onehot(self.wr_warp, "wr_warp_onehot")
        clr_w = warp_onehot(self.clr_warp, "clr_warp_onehot")

        # (1) read.
        rd_match = [Signal(name=f"rd_match_{e}") for e in range(n)]
        rd_row_version = []
        for e in range(n):
            m.d.comb += rd_match[e].eq(used[e] & (tags[e] == self.rd_reg) & (renamed[e] & rd_w).any())
            rd_row_version.append(select([rd_w[w] for w in range(nw)], versions[e], vw))
        m.d.comb += [
            self.rd_hit.eq(any_of(rd_match)),
            self.rd_version.eq(select(rd_match, rd_row_version, vw)),
        ]

        # (2) write port.
        is_set = self.wr_op == RenameOp.SET
        is_drop = self.wr_op == RenameOp.DROP
        active = (is_set | is_drop) & wr_w.any()
        wr_match, hit, free = self._write_lookup(m, tags, used, active, is_set)
        old_valid = Signal()
        old_version = Signal(vw)
        m.d.comb += [
            old_valid.eq(any_of([wr_match[e] & (renamed[e] & wr_w).any() for e in range(n)])),
            old_version.eq(select(wr_match, [select([wr_w[w] for w in range(nw)], versions[e], vw)
                                             for e in range(n)], vw)),
        ]
        shared_rows = []
        for e in range(n):
            others = [renamed[e][w] & ~wr_w[w] & (versions[e][w] == old_version) for w in range(nw)]
            shared_rows.append(wr_match[e] & any_of(others))
        m.d.comb += [
            self.wr_old_valid.eq(active & old_valid),
            self.wr_old_version.eq(Mux(active & old_valid, old_version, 0)),
            self.wr_old_shared.eq(active & old_valid & any_of(shared_rows)),
        ]

        for e in range(n):
            target = Signal(name=f"wr_target_{e}")
            m.d.comb += target.eq(active & Mux(hit, wr_match[e], is_set & free.onehot[e]))
            row = Signal(nw, name=f"renamed_next_{e}")
            m.d.comb += row.eq(Mux(target & is_set, renamed[e] | wr_w,
                                   Mux(target & is_drop, renamed[e] & ~wr_w, renamed[e])))
            # (3) clear-warp, (4) flush.
            m.d.sync += renamed[e].eq(Mux(self.flush, 0, Mux(self.clr_en, row & ~clr_w, row)))
            with m.If(target & is_set & ~hit):
                m.d.sync += tags[e].eq(self.wr_reg)
            for w in range(nw):
                with m.If(target & is_set & wr_w[w]):
                    m.d.sync += versions[e][w].eq(self.wr_version)

        fv = properties(platform)
        if fv is not None:
            for e in range(n):
                for f in range(e + 1, n):
                    fv.check(m, ~(used[e] & used[f] & (tags[e] == tags[f])),
                             "at most one entry per named register", owner=self)
            fv.check(m, ~self.wr_full | (Cat(*used).all() & ~hit),
                     "a set reports full only for a new register when every entry is used",
                     owner=self)
            fv.check(m, ~self.wr_old_shared | self.wr_old_valid,
                     "a shared old version is a valid old version", owner=self)
            fv.check(m, self.rd_hit == any_of([used[e] & (tags[e] == self.rd_reg)
                                               & (renamed[e] & rd_w).any() for e in range(n)]),
                     "a read hits iff the warp renamed the register", owner=self)
            flushed = fv.past(m, self.flush, "flush")
            fv.check(m, ~flushed | ~Cat(*used).any(), "a flush frees every entry", owner=self)
            # A set is readable by its warp with its version in the next cycle.
            set_done = fv.past(m, active & is_set & ~self.wr_full & ~self.flush
                               & ~(self.clr_en & (self.clr_warp == self.wr_warp)), "set_done")
            was_w, was_r = fv.past(m, self.wr_warp, "wr_warp"), fv.past(m, self.wr_reg, "wr_reg")
            was_v = fv.past(m, self.wr_version, "wr_version")
            readback = any_of([used[e] & (tags[e] == was_r)
                               & select([was_w == w for w in range(nw)],
                                        [renamed[e][w] & (versions[e][w] == was_v)
                                         for w in range(nw)], 1)
                               for e in range(n)])
            fv.check(m, ~set_done | readback,
                     "a set maps <warp, reg> to its version in the next cycle", owner=self)
        return m

    def _write_lookup(self, m, tags, used, active, is_set):
        """The write port's tag match and free-entry pick, shared by both organisations:
        ``(wr_match, hit, free)``, driving ``wr_hit`` and ``wr_full`` (a set to a register
        not in the table finds no free entry)."""
        n = self._entries
        wr_match = [Signal(name=f"wr_match_{e}") for e in range(n)]
        for e in range(n):
            m.d.comb += wr_match[e].eq(used[e] & (tags[e] == self.wr_reg))
        hit = Signal()
        m.d.comb += hit.eq(any_of(wr_match))
        free = LeadingOneDetector(width=n)
        m.submodules.free = free
        m.d.comb += free.bits.eq(~Cat(*used))
        m.d.comb += [
            self.wr_hit.eq(active & hit),
            self.wr_full.eq(active & is_set & ~hit & ~free.valid),
        ]
        return wr_match, hit, free

    def _elaborate_paper(self, platform):
        """The paper's 21-bit organisation: tag + one version + used bit per entry; every
        warp reads the entry's one version, a drop frees the entry, clear-warp is a no-op."""
        m = Module()
        n, nw, vw = self._entries, self._warps, self._version_width
        tags = [Signal(self._reg_width, name=f"reg_{e}") for e in range(n)]
        version = [Signal(vw, name=f"version_{e}") for e in range(n)]
        used = [Signal(name=f"used_{e}") for e in range(n)]
        m.d.comb += self.valid.eq(Cat(*used))

        rd_ok = self.rd_warp < nw
        rd_match = [used[e] & (tags[e] == self.rd_reg) for e in range(n)]
        m.d.comb += [
            self.rd_hit.eq(rd_ok & any_of(rd_match)),
            self.rd_version.eq(Mux(rd_ok, select(rd_match, version, vw), 0)),
        ]

        is_set = self.wr_op == RenameOp.SET
        is_drop = self.wr_op == RenameOp.DROP
        active = (is_set | is_drop) & (self.wr_warp < nw)
        wr_match, hit, free = self._write_lookup(m, tags, used, active, is_set)
        m.d.comb += [
            self.wr_old_valid.eq(active & hit),
            self.wr_old_version.eq(Mux(active & hit, select(wr_match, version, vw), 0)),
            # every warp maps to the one version: "shared" whenever another warp exists
            self.wr_old_shared.eq(active & hit & (nw > 1)),
        ]
        for e in range(n):
            target = Signal(name=f"wr_target_{e}")
            m.d.comb += target.eq(active & Mux(hit, wr_match[e], is_set & free.onehot[e]))
            nxt = Mux(target & is_set, 1, Mux(target & is_drop, 0, used[e]))
            m.d.sync += used[e].eq(Mux(self.flush, 0, nxt))
            with m.If(target & is_set):
                m.d.sync += version[e].eq(self.wr_version)
                with m.If(~hit):
                    m.d.sync += tags[e].eq(self.wr_reg)

        fv = properties(platform)
        if fv is not None:
            for e in range(n):
                for f in range(e + 1, n):
                    fv.check(m, ~(used[e] & used[f] & (tags[e] == tags[f])),
                             "at most one entry per named register", owner=self)
        return m
