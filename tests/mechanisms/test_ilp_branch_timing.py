"""Branch prediction in the timing model (seed 002 ch. 4, §4.4.3): the SM's speculation
capability (hooks predict_fetch / speculate_branch, pipelines.control_latency) and the
``ilp-bp-*`` mechanisms."""

import pytest

from golden.mechanisms.ilp.branch import BranchPredictionMechanism
from golden.mechanisms.registry import names
from golden.report.runner import TimingJob, run_job
from golden.timing.hooks import Mechanism

#: the chapter's branch-prediction study: BP+SC with the branch latency lowered to 1
STUDY = (("pipelines.bypass", True), ("pipelines.control_latency", 1))
BP = ("ilp-bp-static", "ilp-bp-gshare", "ilp-bp-gshare-warp", "ilp-bp-perfect")


def test_registered():
    assert set(BP) <= set(names())


def test_control_latency_one_resolves_branches_sooner():
    base = run_job(TimingJob("SCAN", "gtx280"))
    fast = run_job(TimingJob("SCAN", "gtx280", overrides=(("pipelines.control_latency", 1),)))
    assert fast["output_digest"] == base["output_digest"]
    assert fast["cycles"] < base["cycles"]


def test_control_latency_is_inert_without_control_tracking():
    """The Pascal scoreboard does not hold warps on branches: the option changes nothing."""
    a = run_job(TimingJob("SCAN", "pascal"))
    b = run_job(TimingJob("SCAN", "pascal", overrides=(("pipelines.control_latency", 1),)))
    assert a["timing"] == b["timing"]


def test_outputs_identical_and_perfect_never_mispredicts(shrink_small):
    """Every workload x predictor: make test-sweep (tests/timing/test_sweep_configs.py)."""
    workload = "SCAN"
    shrink_small.tiny(workload)
    base = run_job(TimingJob(workload, "gtx280", mechanisms=("ilp-sc",), overrides=STUDY))
    for bp in BP:
        r = run_job(TimingJob(workload, "gtx280", mechanisms=("ilp-sc", bp), overrides=STUDY))
        assert r["outputs_match"] and r["output_digest"] == base["output_digest"], bp
        m = r["timing"]["mechanism"]
        kinds = ("bp.correct", "bp.mispredict", "bp.divergent", "bp.unconditional",
                 "bp.not_predicted")
        assert sum(m.get(k, 0) for k in kinds) > 0
        if bp == "ilp-bp-perfect":
            assert m.get("bp.mispredict", 0) == 0


class _CountBra(Mechanism):
    name = "count"

    def __init__(self):
        self.n = 0

    def on_branch(self, sm, warp, pc, record, diverged):
        if sm.launch.program.slots[pc >> 3].inst.opcode == "bra":
            self.n += 1


def _run(cfg_over, mechs):
    from golden.configs import load_config
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry
    cfg = load_config("gtx280", dict(cfg_over))
    dev = TimingDevice(cfg, mechanisms=mechs, echo_printf=False)
    run = registry.run_workload(registry.get("SCAN"), size="small", seed=0, device=dev)
    assert not run.mismatches()
    return run.stats


def test_each_issued_branch_is_classified_once():
    from golden.mechanisms.registry import make_mechanisms
    from golden.configs import load_config
    counter = _CountBra()
    bp = make_mechanisms(["ilp-bp-gshare"], load_config("gtx280"))[0]
    stats = _run(STUDY, [bp, counter])
    m = {}
    for s in stats:
        for k, v in s.timing.mechanism.items():
            m[k] = m.get(k, 0) + v
    assert sum(v for k, v in m.items() if k.startswith("bp.")) == counter.n > 0


class _NeverSpeculate(BranchPredictionMechanism):
    """Predicts at fetch (sequential path only) but never lets a warp go on: the SM must
    behave exactly like the baseline."""

    def predict_fetch(self, sm, warp, pc, inst):
        return None

    def speculate_branch(self, sm, warp, pc, record, fetched_next, next_pc):
        return False


def test_a_predictor_that_never_speculates_is_the_baseline():
    from golden.configs import load_config
    base = _run(STUDY, [])
    same = _run(STUDY, [_NeverSpeculate(load_config("gtx280"))])
    assert [s.timing.to_dict() for s in base] == [s.timing.to_dict() for s in same]


def test_static_predictor_is_btfn():
    """A backward branch is predicted taken (fetch redirected), a forward one not."""
    from types import SimpleNamespace
    from golden.configs import load_config
    m = BranchPredictionMechanism(load_config("gtx280"), "static")
    slots = [SimpleNamespace(target=None) for _ in range(8)]
    slots[5].target = 8          # backward
    slots[2].target = 48         # forward
    sm = SimpleNamespace(launch=SimpleNamespace(program=SimpleNamespace(slots=slots)), id=0)
    warp = SimpleNamespace(slot=0)
    cond = SimpleNamespace(guard=object())
    assert m.predict_fetch(sm, warp, 40, cond) == 8
    assert m.predict_fetch(sm, warp, 16, cond) is None
    assert m.predict_fetch(sm, warp, 16, SimpleNamespace(guard=None)) == 48  # unconditional


def test_deterministic(shrink_small):
    shrink_small.tiny("SCAN")
    job = TimingJob("SCAN", "gtx280", mechanisms=("ilp-sc", "ilp-bp-gshare-warp"), overrides=STUDY)
    assert run_job(job)["timing"] == run_job(job)["timing"]
