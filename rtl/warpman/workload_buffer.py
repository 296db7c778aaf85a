"""WarpMan workload buffer of one SM (seed 002 ch. 3, §3.2 "B", issue rule of §3.3 step 3
with the off-by-one fix of paper-facts §3.3).

Reference model, port for port and cycle for cycle:
:class:`golden.structures.warpman.workload_buffer.WorkloadBuffer` (its docstring gives the
per-cycle rules). Storage: one entry of flip-flops, ``p_tbid`` (log2 tb_slots), ``l_tbid``
(``l_tbid_bits``), ``start_wid`` and ``end_wid`` (log2 max_warps_per_tb each) and
``valid``: 3 + 26 + 5 + 5 + 1 = 40 at the paper's sizes. Only ``valid`` is reset; the
data fields are written by every accepted load and their outputs are forced to 0 while
the entry is not valid, so they need no reset.

Logic: a ``wid_bits`` equality comparator (start_wid == end_wid: the warp being issued is
the last), a ``wid_bits`` incrementer, and the load/issue enables. A load while valid is
ignored and flagged on ``load_err`` (the golden ``load`` raises on it); a load with
start_wid > end_wid is outside the contract and not guarded.

Latency: every output is combinational on the start-of-cycle state (0 cycles); a load or
an issue is visible from the next cycle. Throughput: one load or one issue per cycle.
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.properties import properties
from rtl.darsie._util import check_int, index_width

__all__ = ["WorkloadBuffer"]


class WorkloadBuffer(wiring.Component):
    """Workload buffer (see module docstring).

    Parameters
    ----------
    tb_slots : int
        Physical TB slots of the SM (8); P_TBid has log2(tb_slots) bits.
    max_warps_per_tb : int
        Warps of the largest TB (32); start_wid/end_wid have log2 bits.
    l_tbid_bits : int
        Width of L_TBid (26, the paper's; it must cover the launch's TB count).

    Ports
    -----
    load_en, load_p_tbid, load_l_tbid, load_start_wid, load_end_wid : In
        Record a partial TB's unissued warps start..end (inclusive), accepted if not valid.
    issue_en : In(1)
        Issue the next unissued warp (a warp of the SM released its resources).
    valid, p_tbid, l_tbid, wid : Out
        Read port: the entry and its next unissued warp (start_wid); 0 while not valid.
    issue_ok, issue_last : Out(1)
        The issue took warp ``wid``; it was end_wid, so the entry empties.
    load_ok, load_err : Out(1)
        The load was accepted; the load was refused because the entry was valid.

    The ports are the fields of :class:`golden.structures.warpman.WorkloadBufferOps`
    (inputs) and :class:`golden.structures.warpman.WorkloadBufferOutputs` (outputs).
    """

    def __init__(self, *, tb_slots: int = 8, max_warps_per_tb: int = 32, l_tbid_bits: int = 26):
        self._tb_slots = check_int("WorkloadBuffer", "tb_slots", tb_slots, 1)
        self._max_warps = check_int("WorkloadBuffer", "max_warps_per_tb", max_warps_per_tb, 1)
        self._l_bits = check_int("WorkloadBuffer", "l_tbid_bits", l_tbid_bits, 1)
        pb, wb = index_width(tb_slots), index_width(max_warps_per_tb)
        super().__init__({
            "load_en": In(1), "load_p_tbid": In(pb), "load_l_tbid": In(l_tbid_bits),
            "load_start_wid": In(wb), "load_end_wid": In(wb), "issue_en": In(1),
            "valid": Out(1), "p_tbid": Out(pb), "l_tbid": Out(l_tbid_bits), "wid": Out(wb),
            "issue_ok": Out(1), "issue_last": Out(1), "load_ok": Out(1), "load_err": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        pb, wb = index_width(self._tb_slots), index_width(self._max_warps)
        valid = Signal(name="wb_valid")
        p_tbid = Signal(pb, name="wb_p_tbid", reset_less=True)
        l_tbid = Signal(self._l_bits, name="wb_l_tbid", reset_less=True)
        start_wid = Signal(wb, name="wb_start_wid", reset_less=True)
        end_wid = Signal(wb, name="wb_end_wid", reset_less=True)

        issue_ok = Signal()
        last = Signal()
        load_ok = Signal()
        m.d.comb += [
            issue_ok.eq(self.issue_en & valid),
            last.eq(start_wid == end_wid),
            load_ok.eq(self.load_en & ~valid),
            self.valid.eq(valid),
            self.p_tbid.eq(Mux(valid, p_tbid, 0)),
            self.l_tbid.eq(Mux(valid, l_tbid, 0)),
            self.wid.eq(Mux(valid, start_wid, 0)),
            self.issue_ok.eq(issue_ok),
            self.issue_last.eq(issue_ok & last),
            self.load_ok.eq(load_ok),
            self.load_err.eq(self.load_en & valid),
        ]
        with m.If(issue_ok):
            m.d.sync += start_wid.eq(start_wid + 1)
            with m.If(last):
                m.d.sync += valid.eq(0)
        with m.If(load_ok):
            m.d.sync += [valid.eq(1), p_tbid.eq(self.load_p_tbid), l_tbid.eq(self.load_l_tbid),
                         start_wid.eq(self.load_start_wid), end_wid.eq(self.load_end_wid)]

        fv = properties(platform)
        if fv is not None:
            fv.expose(self, end_wid=end_wid)
            fv.check(m, ~issue_ok | valid, "a warp is issued only from a loaded TB", owner=self)
            fv.check(m, ~(load_ok & self.load_err), "a load is accepted or refused, not both",
                     owner=self)
            fv.check(m, self.load_err == (self.load_en & valid),
                     "a load is refused iff the buffer holds a TB", owner=self)
        return m
