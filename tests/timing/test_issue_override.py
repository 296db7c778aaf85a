"""Per-instruction pipeline use decided by a mechanism (golden.timing.hooks.IssueOverride)."""

import pytest

from golden.configs import load_config
from golden.configs.schema import PipelineConfig
from golden.timing.hooks import IssueOverride, Mechanism
from golden.timing.pipelines import PipelineClass
from golden.timing.stats import PIPE_ALU
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry


class _OverrideALU(Mechanism):
    """Returns the same IssueOverride for every ALU instruction with a destination."""

    def __init__(self, ov):
        self.ov = ov
        self.n = 0

    def on_issue(self, sm, warp, pc, inst):
        d = sm.decoded[pc >> 3]
        if d.pipe == PIPE_ALU and d.dsts and not d.is_control:
            self.n += 1
            return self.ov
        return None


@pytest.fixture(scope="module")
def gtx285():
    return load_config("gtx285")


@pytest.fixture(scope="module")
def base(gtx285):
    return registry.run_workload("MM", "small", device=TimingDevice(gtx285))


def _run(cfg, ov):
    m = _OverrideALU(ov)
    run = registry.run_workload("MM", "small", device=TimingDevice(cfg, mechanisms=[m]))
    assert run.mismatches() == []
    return m, run.stats[0].timing


def test_occupy_cycles_explicit_interval_latency_and_injected_work():
    p = PipelineClass(PipelineConfig(count=1, simd_width=8, latency=24), 32)
    assert p.interval == 4
    assert p.occupy_cycles(10, 1, 24) == 10 + 1 - 1 + 24   # a scalar: busy one cycle
    assert p.free_at == [11]
    assert p.occupy_cycles(10, 4, 1) == 11 + 4 - 1 + 1     # waits for the unit
    assert p.free_at == [15]
    # two injected cycles ahead of it: it enters at 17
    assert p.occupy_cycles(0, 1, 3, before=2) == 17 + 1 - 1 + 3
    assert p.free_at == [18]


def test_empty_override_is_the_baseline(gtx285, base):
    _, t = _run(gtx285, IssueOverride())
    assert t.to_dict() == base.stats[0].timing.to_dict()


def test_one_cycle_interval_speeds_up_a_simd8_gpu(gtx285, base):
    m, t = _run(gtx285, IssueOverride(interval=1, lanes=1))
    b = base.stats[0].timing
    assert m.n > 0
    assert t.cycles < b.cycles
    assert t.instructions_issued == b.instructions_issued
    assert t.thread_instructions == b.thread_instructions  # semantics unchanged
    # one lane charged per overridden instruction instead of its active lanes
    assert t.fu_lane_ops[PIPE_ALU] < b.fu_lane_ops[PIPE_ALU]


def test_zero_lanes_and_latency(gtx285, base):
    m, t = _run(gtx285, IssueOverride(latency=200, lanes=0))
    b = base.stats[0].timing
    assert t.cycles > b.cycles
    assert t.fu_lane_ops[PIPE_ALU] < b.fu_lane_ops[PIPE_ALU]
    _, slow = _run(gtx285, IssueOverride(inject_interval=8))
    assert slow.cycles > b.cycles


def test_occupy_before_keeps_the_instructions_own_timing():
    p = PipelineClass(PipelineConfig(count=1, simd_width=8, latency=24), 32)
    # an op class with latency 10, 8 cycles busy in 4-cycle lane groups, after 4
    # injected cycles
    assert p.occupy(0, (10, 8, 4), before=4) == 4 + 4 - 1 + 10
    assert p.free_at == [4 + 8]


def test_extra_latency_delays_results_not_throughput_or_lane_energy(gtx285, base):
    m, t = _run(gtx285, IssueOverride(extra_latency=80))  # MM hides a few cycles
    b = base.stats[0].timing
    assert m.n > 0
    assert t.cycles > b.cycles
    # the extra stages are the mechanism's logic: lane-cycles of the units are unchanged
    assert t.fu_lane_cycles == b.fu_lane_cycles and t.fu_lane_ops == b.fu_lane_ops
    m2, t2 = _run(gtx285, IssueOverride(extra_latency=80, inject_interval=4))
    assert t2.cycles > t.cycles


class _Eliminate(Mechanism):
    def on_issue(self, sm, warp, pc, inst):
        return "eliminate" if sm.decoded[pc >> 3].pipe == PIPE_ALU else None


def test_elimination_stands_against_a_later_override(gtx285):
    runs = {}
    for order in ("elim-first", "elim-last"):
        ms = [_Eliminate(), _OverrideALU(IssueOverride(latency=50))]
        if order == "elim-last":
            ms.reverse()
        run = registry.run_workload("MM", "small", device=TimingDevice(gtx285, mechanisms=ms))
        assert run.mismatches() == []
        runs[order] = run.stats[0].timing.to_dict()
    assert runs["elim-first"] == runs["elim-last"]


@pytest.mark.parametrize("kw", [{"interval": 0}, {"latency": -1}, {"lanes": -2},
                                {"inject_interval": -1}, {"extra_latency": -1},
                                {"pipe": "tensor"}])
def test_invalid_override(kw):
    with pytest.raises(ValueError):
        IssueOverride(**kw)
