"""Branch-prediction accuracy per branch class on a hand-made branch stream with known
answers (seed 002 ch. 4, §4.4.3; golden/mechanisms/ilp/branch.py, branch_class.py), the
long-latency rule (``deps``) and the ILP report's per-class and pooled accuracies."""

from types import SimpleNamespace

import pytest

from golden.configs import load_config
from golden.mechanisms.ilp.branch import BranchPredictionMechanism
from golden.report.ilp import class_accuracy, pooled_accuracy

CFG = load_config("gtx280")

# 0 ld r0 | 1 setp p0 <- r0 | 2 @p0 bra 6 (data) | 3 add | 4 setp p1 | 5 @p1 bra 3 (loop
# end) | 6 exit.  Register indices: r0 = 0, p0 = 1, p1 = 2.
#            opcode  cond  target  srcs  dsts
PROGRAM = [("ld", False, None, (), (0,)),
           ("setp", False, None, (0,), (1,)),
           ("bra", True, 6, (1,), ()),
           ("add", False, None, (), ()),
           ("setp", False, None, (), (2,)),
           ("bra", True, 3, (2,), ()),
           ("exit", False, None, (), ())]


class _Stats:
    def __init__(self):
        self.m = {}

    def count_mechanism(self, name, n=1):
        self.m[name] = self.m.get(name, 0) + n


def _sm():
    slots, decoded = [], []
    for i, (op, cond, tgt, srcs, dsts) in enumerate(PROGRAM):
        inst = SimpleNamespace(opcode=op, guard=object() if cond else None)
        slots.append(SimpleNamespace(inst=inst, pc=8 * i, target=None if tgt is None else 8 * tgt))
        decoded.append(SimpleNamespace(srcs=srcs, dsts=dsts))
    prog = SimpleNamespace(slots=slots)
    return SimpleNamespace(id=0, launch=SimpleNamespace(program=prog), decoded=decoded,
                           stats=_Stats())


def _branch(mech, sm, warp, pc, taken, diverged=False):
    """Fetch, issue and resolve the conditional branch at ``pc`` going ``taken``."""
    target = sm.launch.program.slots[pc >> 3].target
    mech.predict_fetch(sm, warp, pc, sm.launch.program.slots[pc >> 3].inst)
    mech.on_issue(sm, warp, pc, None)
    rec = SimpleNamespace(diverged=diverged)
    return mech.speculate_branch(sm, warp, pc, rec, None, target if taken else pc + 8)


def _issue(mech, sm, warp, pc, mem_wait=False):
    warp.mem_wait = mem_wait
    mech.on_issue(sm, warp, pc, None)
    warp.mem_wait = False


def test_static_accuracy_per_class_on_a_known_stream():
    """Loop of 4 trips (loop end taken 3 of 4: BTFN right 3 times, wrong once), the data
    branch taken twice (BTFN wrong twice), not taken once, divergent once."""
    mech, sm, warp = BranchPredictionMechanism(CFG, "static"), _sm(), SimpleNamespace(slot=0, mem_wait=False)
    for taken in (True, True, True, False):
        _branch(mech, sm, warp, 40, taken)
    for taken in (True, True, False):
        _branch(mech, sm, warp, 16, taken)
    _branch(mech, sm, warp, 16, True, diverged=True)
    m = sm.stats.m
    assert class_accuracy(m, "loop-end") == (0.75, 4, 0)
    assert class_accuracy(m, "data") == (pytest.approx(1 / 3), 3, 1)
    assert class_accuracy(m, "loop-exit") == (None, 0, 0)
    assert (m["bp.correct"], m["bp.mispredict"], m["bp.divergent"]) == (4, 3, 1)
    assert pooled_accuracy([m]) == pytest.approx(4 / 7)
    assert pooled_accuracy([m, m], "loop-end") == 0.75


def test_gshare_learns_a_loop_and_a_divergent_branch_trains_as_predicted():
    """A per-warp-history gshare on a loop end taken 7 times: the cold counter (weakly not
    taken) mispredicts while its history pattern is new; a divergent branch counts
    as divergent and never as a misprediction."""
    from golden.structures.ilp import GshareParams
    mech = BranchPredictionMechanism(CFG, "gshare", GshareParams(histories=2))
    sm, warp = _sm(), SimpleNamespace(slot=1, mem_wait=False)
    for _ in range(12):
        _branch(mech, sm, warp, 40, True)
    m = sm.stats.m
    # index = 5 XOR history: histories 0, 1, 3, ..., 255 (9 cold counters, all distinct),
    # then 511 stays: cold once more, then trained -> 10 wrong, 2 right
    assert (m["bp_class.loop-end.mispredict"], m["bp_class.loop-end.correct"]) == (10, 2)
    before = dict(m)
    assert _branch(mech, sm, warp, 16, False, diverged=True)
    assert m["bp.divergent"] == 1 and m.get("bp.mispredict") == before.get("bp.mispredict")


@pytest.mark.parametrize("deps,expect", [("block", "not_predicted"), ("chain", "not_predicted"),
                                         ("direct", "mispredict")])
def test_a_branch_on_a_loaded_value_the_warp_waited_for_is_not_predicted(deps, expect):
    """ld r0 (the setp waits for it) -> setp p0 -> @p0 bra: the chapter does not predict
    a branch dependent on a long-latency operation; ``direct`` only looks at the bra."""
    mech, sm = BranchPredictionMechanism(CFG, "static", deps=deps), _sm()
    warp = SimpleNamespace(slot=0, mem_wait=False)
    _issue(mech, sm, warp, 0)                   # ld r0
    _issue(mech, sm, warp, 8, mem_wait=True)    # setp p0 <- r0 waited on the load
    waits = not _branch(mech, sm, warp, 16, True)
    assert waits and sm.stats.m[f"bp_class.data.{expect}"] == 1


def test_block_rule_forgets_a_stall_before_the_previous_branch():
    """The predicate computed in an earlier basic block (before another branch) counts
    under ``chain`` but not under ``block``."""
    out = {}
    for deps in ("block", "chain"):
        mech, sm = BranchPredictionMechanism(CFG, "static", deps=deps), _sm()
        warp = SimpleNamespace(slot=0, mem_wait=False)
        _issue(mech, sm, warp, 8, mem_wait=True)   # p0 marked
        _branch(mech, sm, warp, 40, True)          # another branch ends the block
        _branch(mech, sm, warp, 16, False)         # @p0 bra, not taken: BTFN right
        out[deps] = sm.stats.m
    assert out["block"]["bp_class.data.correct"] == 1
    assert out["chain"]["bp_class.data.not_predicted"] == 1


def test_rewriting_a_register_without_a_stall_unmarks_it():
    mech, sm = BranchPredictionMechanism(CFG, "static", deps="chain"), _sm()
    warp = SimpleNamespace(slot=0, mem_wait=False)
    _issue(mech, sm, warp, 8, mem_wait=True)   # p0 marked
    _issue(mech, sm, warp, 8)                  # p0 rewritten from an unmarked r0
    _branch(mech, sm, warp, 16, False)
    assert sm.stats.m["bp_class.data.correct"] == 1


def test_unknown_deps_is_a_config_error():
    from golden.errors import ConfigError
    from golden.mechanisms.registry import make_mechanisms
    with pytest.raises(ConfigError, match="deps"):
        make_mechanisms(["ilp-bp-gshare:deps=sometimes"], CFG)
