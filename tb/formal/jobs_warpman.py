"""Formal jobs of WarpMan (seed 002 ch. 3): the dispatch resource check and the workload
buffer, at small sizes."""

from __future__ import annotations

from amaranth.hdl import Signal

from rtl.warpman.dispatch_check import DispatchCheck
from rtl.warpman.workload_buffer import WorkloadBuffer
from tb.formal.flow import FormalJob
from tb.formal.harness import Harness, ports

MAX_WARPS = 4


def _dispatch(fv):
    dut = DispatchCheck(warp_slots=6, tb_slots=2, registers=64, shared_bytes=16,
                        max_warps_per_tb=MAX_WARPS)

    def props(m, fv, dut, state):
        # The ports' contract: every count within its declared range (range(max + 1)).
        fv.assume(m, (dut.warps_per_tb <= MAX_WARPS) & (dut.free_warps <= 6) & (dut.free_tbs <= 2)
                  & (dut.free_regs <= 64) & (dut.regs_per_warp <= 64) & (dut.free_shared <= 16)
                  & (dut.shared_per_tb <= 16), "inputs within their declared ranges")
        fv.cover(m, ~dut.tb_ok & dut.warp_ok & (dut.n_warps == 2) & (dut.warps_per_tb == 4),
                 "TB too big: two of four warps fit (warp-level dispatch)")
        fv.cover(m, dut.tb_ok & (dut.n_warps == MAX_WARPS), "a full-size TB fits")
    return Harness(dut, props), ports(dut)


def _workload_buffer(fv):
    dut = WorkloadBuffer(tb_slots=2, max_warps_per_tb=MAX_WARPS, l_tbid_bits=2)

    def props(m, fv, dut, state):
        fv.assume(m, ~dut.load_en | (dut.load_start_wid <= dut.load_end_wid),
                  "a loaded TB's warp range is not empty")
        # Shadow of the loaded TB: its range and the warps issued so far.
        end = Signal(range(MAX_WARPS), name="loaded_end")
        start = Signal(range(MAX_WARPS), name="loaded_start")
        p_tbid = Signal(1, name="loaded_p_tbid")
        issued = Signal(range(MAX_WARPS + 1), name="issued")
        with m.If(dut.load_ok):
            m.d.sync += [end.eq(dut.load_end_wid), start.eq(dut.load_start_wid),
                         p_tbid.eq(dut.load_p_tbid), issued.eq(0)]
        with m.Elif(dut.issue_ok):
            m.d.sync += issued.eq(issued + 1)
        fv.check(m, ~dut.valid | ((dut.wid <= end) & (state["end_wid"] == end)),
                 "issued warp ids stay within the loaded TB's range")
        fv.check(m, ~dut.valid | (dut.p_tbid == p_tbid), "the TB slot stays fixed while loaded")
        fv.check(m, ~dut.issue_last | (dut.wid == end),
                 "the last warp issued is the TB's last warp")
        fv.check(m, ~dut.valid | ((dut.wid == start + issued) & (start + issued <= end)),
                 "warps are issued in order, each once, and no more than the TB has")
        fv.cover(m, dut.issue_last & (issued == MAX_WARPS - 1), "a four-warp TB fully issued")
        fv.cover(m, dut.load_err, "a load refused while a TB is buffered")
    return Harness(dut, props), ports(dut)


JOBS = [
    FormalJob("dispatch_check", "DispatchCheck",
              f"warp_slots=6, tb_slots=2, registers=64, shared=16, max_warps={MAX_WARPS}",
              _dispatch, depth=2, cover_depth=2, rtl_files=("rtl/warpman/dispatch_check.py",)),
    FormalJob("workload_buffer", "WorkloadBuffer", f"tb_slots=2, max_warps={MAX_WARPS}, l_tbid=2",
              _workload_buffer, depth=3, cover_depth=8,
              rtl_files=("rtl/warpman/workload_buffer.py",)),
]
