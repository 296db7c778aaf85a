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
    for bp in BP + ("ilp-bp-static:deps=direct", "ilp-bp-gshare:deps=chain"):
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


def _program(spec):
    """A linked-program stand-in: ``spec`` = [(opcode, conditional, target index)...]."""
    from types import SimpleNamespace
    slots = []
    for i, (op, cond, tgt) in enumerate(spec):
        inst = SimpleNamespace(opcode=op, guard=object() if cond else None)
        slots.append(SimpleNamespace(inst=inst, pc=8 * i,
                                     target=None if tgt is None else 8 * tgt))
    return SimpleNamespace(slots=slots)


#: 0 @p bra 2 (pair with 1) | 1 bra.uni 9 | 2 add | 3 add | 4 @p bra 8 (leaves the loop
#: 3..6) | 5 @p bra 6 (if inside the loop) | 6 @p bra 3 (loop end) | 7 add | 8 add | 9 exit
LAYOUT = [("bra", True, 2), ("bra", False, 9), ("add", False, None), ("add", False, None),
          ("bra", True, 8), ("bra", True, 6), ("bra", True, 3), ("add", False, None),
          ("add", False, None), ("exit", False, None)]


def test_branch_classes_loop_end_loop_exit_and_data():
    from golden.mechanisms.ilp.branch_class import branch_classes
    prog = _program(LAYOUT)
    assert branch_classes(prog) == {0: "data", 32: "loop-exit", 40: "data", 48: "loop-end"}


def test_branch_over_jump_pairs_are_found_and_classed_by_the_jump_target():
    from golden.mechanisms.ilp.branch_class import branch_classes, folded_branches
    prog = _program(LAYOUT)
    assert folded_branches(prog) == {0: 72}
    # the same pair jumping backward (bra.uni to 0's own loop) is a loop end
    back = _program([("add", False, None), ("bra", True, 3), ("bra", False, 0),
                     ("exit", False, None)])
    assert folded_branches(back) == {8: 0}
    assert branch_classes(back) == {8: "loop-end"}


def test_static_layouts_read_a_branch_over_jump_pair():
    """ptx (default): BTFN on the PTX target; folded: on the pair's jump target."""
    from types import SimpleNamespace
    from golden.configs import load_config
    cfg = load_config("gtx280")
    prog = _program(LAYOUT)
    sm = SimpleNamespace(launch=SimpleNamespace(program=prog), id=0)
    warp = SimpleNamespace(slot=0)
    cond = SimpleNamespace(guard=object())
    ptx = BranchPredictionMechanism(cfg, "static")
    folded = BranchPredictionMechanism(cfg, "static", layout="folded")
    assert ptx.predict_fetch(sm, warp, 0, cond) is None        # forward: not taken
    assert folded.predict_fetch(sm, warp, 0, cond) == 16       # @!p bra 9 (forward): falls to 2
    for m in (ptx, folded):                                    # no pair: same rule
        assert m.predict_fetch(sm, warp, 48, cond) == 24
        assert m.predict_fetch(sm, warp, 32, cond) is None


def test_unknown_layout_is_a_config_error():
    from golden.configs import load_config
    from golden.errors import ConfigError
    from golden.mechanisms.registry import make_mechanisms
    with pytest.raises(ConfigError, match="layout"):
        make_mechanisms(["ilp-bp-static:layout=sideways"], load_config("gtx280"))


def test_per_class_counts_add_up_to_the_totals(shrink_small):
    shrink_small.tiny("SCAN")
    for bp in ("ilp-bp-static", "ilp-bp-gshare", "ilp-bp-perfect"):
        m = run_job(TimingJob("SCAN", "gtx280", mechanisms=("ilp-sc", bp),
                              overrides=STUDY))["timing"]["mechanism"]
        for outcome in ("correct", "mispredict", "divergent", "not_predicted"):
            per_class = sum(v for k, v in m.items()
                            if k.startswith("bp_class.") and k.endswith("." + outcome))
            assert per_class == m.get("bp." + outcome, 0), (bp, outcome)
        assert any(k.startswith("bp_class.") for k in m), bp
