"""Golden WarpMan workload buffer (seed 002 ch. 3, §3.2 "B", §3.3 step 3)."""

import io

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.trace import TraceRecorder, read_trace
from golden.structures.warpman import (WorkloadBuffer, WorkloadBufferOps, WorkloadBufferParams,
                                       l_tbid_bits_for)
from golden.structures.warpman.workload_buffer import GRID_LIMIT_L_TBID_BITS


def drain(wb: WorkloadBuffer) -> list:
    out = []
    while (warp := wb.issue()) is not None:
        out.append(warp)
        assert len(out) <= 64, "the buffer never empties"
    return out


def test_paper_entry_is_40_bits():
    p = WorkloadBufferParams()
    assert (p.p_tbid_bits, p.l_tbid_bits, p.wid_bits) == (3, 26, 5)
    assert p.entry_bits == p.state_bits == 40


def test_off_by_one_fix_issues_every_unissued_warp_including_end_wid():
    wb = WorkloadBuffer()
    wb.load(p_tbid=5, l_tbid=77, start_wid=2, end_wid=7)
    assert wb.unissued == 6
    assert [w for _, _, w in drain(wb)] == [2, 3, 4, 5, 6, 7]
    assert wb.issue() is None and not wb.valid
    # the paper's literal rule (clear valid when the incremented start_wid == end_wid)
    # would have stopped after warp 6


def test_issue_returns_slot_and_logical_tb():
    wb = WorkloadBuffer()
    wb.load(3, (1 << 26) - 1, 30, 31)
    assert drain(wb) == [(3, (1 << 26) - 1, 30), (3, (1 << 26) - 1, 31)]


def test_single_warp_partial_tb_and_end_wid_31():
    wb = WorkloadBuffer()
    wb.load(7, 0, 31, 31)
    out = wb.step(WorkloadBufferOps(issue_en=1))
    assert (out.issue_ok, out.issue_last, out.wid, out.p_tbid) == (1, 1, 31, 7)
    assert not wb.valid and wb.issue() is None


def test_whole_tb_and_read_port():
    wb = WorkloadBuffer()
    assert wb.read().as_dict() == dict(valid=0, p_tbid=0, l_tbid=0, wid=0, issue_ok=0,
                                       issue_last=0, load_ok=0, load_err=0)
    wb.load(0, 9, 0, 31)
    r = wb.read()
    assert (r.valid, r.p_tbid, r.l_tbid, r.wid) == (1, 0, 9, 0)
    assert wb.next_warp == (0, 9, 0)
    assert [w for _, _, w in drain(wb)] == list(range(32))
    assert wb.next_warp is None and wb.unissued == 0


def test_issue_of_empty_buffer_is_none():
    wb = WorkloadBuffer()
    out = wb.step(WorkloadBufferOps(issue_en=1))
    assert (out.issue_ok, out.issue_last) == (0, 0)
    assert wb.issue() is None


def test_load_while_valid_is_an_error_and_changes_nothing():
    wb = WorkloadBuffer()
    wb.load(1, 10, 4, 5)
    with pytest.raises(SimtlabError, match="at most one partial TB"):
        wb.load(2, 11, 0, 3)
    assert wb.next_warp == (1, 10, 4) and wb.unissued == 2
    # at the port level (the RTL's behaviour) it is refused and flagged, not raised
    out = wb.step(WorkloadBufferOps(load_en=1, load_p_tbid=2, load_l_tbid=11, load_end_wid=3))
    assert (out.load_ok, out.load_err) == (0, 1)
    # refused even in the cycle whose issue empties the entry (start-of-cycle state)
    wb.issue()
    out = wb.step(WorkloadBufferOps(issue_en=1, load_en=1, load_p_tbid=2, load_l_tbid=11,
                                    load_end_wid=3))
    assert (out.issue_last, out.load_err, out.load_ok) == (1, 1, 0) and not wb.valid
    wb.load(2, 11, 0, 3)
    assert wb.next_warp == (2, 11, 0)


def test_load_with_issue_of_the_empty_buffer_in_one_cycle():
    wb = WorkloadBuffer()
    out = wb.step(WorkloadBufferOps(issue_en=1, load_en=1, load_p_tbid=4, load_l_tbid=2,
                                    load_start_wid=6, load_end_wid=6))
    assert (out.issue_ok, out.load_ok, out.valid) == (0, 1, 0)
    assert wb.issue() == (4, 2, 6) and wb.issue() is None


@pytest.mark.parametrize("ops", [
    WorkloadBufferOps(load_en=1, load_start_wid=3, load_end_wid=2),     # empty range
    WorkloadBufferOps(load_en=1, load_p_tbid=8),                        # no slot 8
    WorkloadBufferOps(load_en=1, load_end_wid=32),
    WorkloadBufferOps(load_en=2),
    WorkloadBufferOps(issue_en=1, load_l_tbid=-1),
])
def test_bad_requests_are_errors(ops):
    with pytest.raises(SimtlabError):
        WorkloadBuffer().step(ops)


def test_l_tbid_width_is_a_parameter_covering_the_grid():
    with pytest.raises(SimtlabError, match="for_launch"):
        WorkloadBuffer().load(0, 1 << 26, 0, 0)
    assert l_tbid_bits_for(1) == 1 and l_tbid_bits_for(1 << 26) == 26
    assert l_tbid_bits_for((1 << 26) + 1) == 27
    assert WorkloadBufferParams.for_launch(1000).l_tbid_bits == 26
    big = WorkloadBufferParams.for_launch((1 << 40) + 5, tb_slots=16)
    assert (big.l_tbid_bits, big.tb_slots, big.entry_bits) == (41, 16, 4 + 41 + 10 + 1)
    assert GRID_LIMIT_L_TBID_BITS == 63
    wb = WorkloadBuffer(WorkloadBufferParams(l_tbid_bits=GRID_LIMIT_L_TBID_BITS))
    wb.load(0, (1 << 63) - 1, 0, 0)
    assert wb.issue() == (0, (1 << 63) - 1, 0)


def test_non_power_of_two_sizes():
    p = WorkloadBufferParams(tb_slots=6, max_warps_per_tb=48)
    assert (p.p_tbid_bits, p.wid_bits) == (3, 6)
    wb = WorkloadBuffer(p)
    wb.load(5, 1, 40, 47)
    assert [w for _, _, w in drain(wb)] == list(range(40, 48))
    with pytest.raises(SimtlabError):
        wb.load(6, 1, 0, 0)


def test_bad_parameters_are_errors():
    for kw in ({"tb_slots": 0}, {"max_warps_per_tb": 0}, {"l_tbid_bits": 0},
               {"l_tbid_bits": 65}, {"tb_slots": 2.0}):
        with pytest.raises(ConfigError):
            WorkloadBufferParams(**kw)
    with pytest.raises(SimtlabError):
        WorkloadBuffer(object())
    with pytest.raises(SimtlabError):
        WorkloadBuffer().step(object())


def test_recorder_sees_every_cycle_including_the_refused_load(tmp_path):
    path = tmp_path / "wb.jsonl"
    with TraceRecorder.open(path, "warpman_wb", WorkloadBufferParams(), meta={"t": 1}) as rec:
        wb = WorkloadBuffer(recorder=rec)
        wb.load(1, 2, 6, 7)
        with pytest.raises(SimtlabError):
            wb.load(1, 3, 0, 0)
        drain(wb)
    trace = read_trace(path)
    assert trace.structure == "warpman_wb" and trace.params == WorkloadBufferParams()
    assert len(trace.cycles) == 5                      # load, refused load, 2 issues, None
    assert [o.load_err for _, o in trace.cycles] == [0, 1, 0, 0, 0]
    assert [o.issue_last for _, o in trace.cycles] == [0, 0, 0, 1, 0]
    fresh = WorkloadBuffer()
    assert [fresh.step(ops) for ops, _ in trace.cycles] == [o for _, o in trace.cycles]


def test_a_recorder_forces_the_checks():
    rec = TraceRecorder(io.StringIO(), "warpman_wb", WorkloadBufferParams())
    unchecked = WorkloadBuffer(check=False)
    unchecked.step(WorkloadBufferOps(load_en=1, load_start_wid=3, load_end_wid=2))
    with pytest.raises(SimtlabError):
        WorkloadBuffer(check=False, recorder=rec).step(
            WorkloadBufferOps(load_en=1, load_start_wid=3, load_end_wid=2))
