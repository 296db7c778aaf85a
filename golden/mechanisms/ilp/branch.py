"""Branch prediction for SIMT shader cores in the timing model (seed 002 ch. 4, §4.4.3,
Fig. 41): mechanisms ``ilp-bp-static``, ``ilp-bp-gshare`` and ``ilp-bp-perfect``.

The SM speculates past a ``bra`` when a mechanism predicts it at fetch
(:meth:`~golden.timing.hooks.Mechanism.predict_fetch`): fetch goes on at the predicted
target, and at issue :meth:`speculate_branch` says whether the warp may go on without
waiting for the branch to resolve. The chapter's rules:

* **no BTB**: the target is computed during the 4-cycle IF window, so an unconditional
  branch is always followed at fetch and never causes a hazard;
* **divergent branches never mispredict**: the branch's lane mask guards the predicted
  path; the predictor is updated as if its prediction were right;
* **non-divergent mispredictions** hold only the mispredicting warp until the branch
  resolves (``pipelines.control_latency`` -- the chapter's study lowers the branch latency
  to 1); its fetched wrong path is flushed. Wrong-path instructions never issue in our
  model (the chapter issues and nullifies them; the issue slots they would waste are not
  charged to other warps);
* **branches that depend on a long-latency operation are not predicted** (the warp is
  stalled anyway): a branch whose warp waited on a memory dependence before it issued
  (``warp.mem_wait``) waits to resolve like the baseline, does not update the predictor
  and is left out of the accuracy;
* predictors: **static** backward-taken / forward-not-taken (BTFN, target compared with
  the PC: no table; on the PTX ``bra`` as written; ``ilp-bp-static:layout=folded`` reads
  a PTX branch-over-jump pair ``@p bra A; bra.uni B; A:`` as one ``@!p bra B``, see
  :mod:`golden.mechanisms.ilp.branch_class`), **gshare** with 1 k bits shared by all warps of the SM
  (:class:`golden.structures.ilp.Gshare`, the class the RTL is checked against; one
  history register shared by the SM, or per warp with ``ilp-bp-gshare-warp``), and
  **perfect** (an oracle for reference: the warp never waits; fetch follows BTFN and a
  wrong guess only costs the refetch).

Counters (``mechanism_counters``): ``bp.correct`` / ``bp.mispredict`` (non-divergent
conditional branches: the chapter's accuracy), ``bp.divergent``, ``bp.unconditional``,
``bp.not_predicted`` (long-latency dependence, or a prediction the front end lost when the
same branch sat twice in one I-buffer). Each conditional branch is counted a second time
under its static class (:mod:`golden.mechanisms.ilp.branch_class`: ``loop-end``,
``loop-exit``, ``data``) as ``bp_class.<class>.<outcome>`` with the same outcomes
(``correct``, ``mispredict``, ``divergent``, ``not_predicted``), so the accuracy of
loop and data-dependent branches, and the share of divergent ones, can be read apart.

Simplification: gshare predicts at fetch with the history as it stands and is updated
when the branch issues (in program order per warp, interleaved across warps); the index a
prediction used is kept with the fetched branch, as a front end would keep it in the
I-buffer.
"""

from __future__ import annotations

from golden.mechanisms.claims import FETCH, WARP_FORMATION
from golden.errors import ConfigError
from golden.mechanisms.ilp.branch_class import branch_classes, folded_branches
from golden.structures.ilp import Gshare, GshareOps, GshareParams
from golden.timing.hooks import Mechanism

__all__ = ["BranchPredictionMechanism", "PREDICTORS", "make_ilp_bp_static",
           "make_ilp_bp_gshare", "make_ilp_bp_gshare_warp", "make_ilp_bp_perfect"]

#: predictor kinds
PREDICTORS = ("static", "gshare", "perfect")
#: how BTFN reads a PTX branch-over-jump pair (branch_class.py): ``ptx`` = the PTX ``bra``
#: as written (default: the chapter's simulator also ran PTX), ``folded`` = as one
#: ``@!p bra B`` falling through to ``A`` (a guess at ptxas's layout: unverified, no SASS
#: disassembler here; it helps MM's loop guard and hurts NQU's ``d == last`` test)
LAYOUTS = ("ptx", "folded")


class _SMState:
    """One SM's predictor and the predictions of branches fetched but not yet issued."""

    __slots__ = ("gshare", "pending")

    def __init__(self, gshare):
        self.gshare = gshare
        self.pending: dict = {}     # (warp slot, pc) -> (predicted taken, table index)


class BranchPredictionMechanism(Mechanism):
    """Predict conditional branches at fetch (see module docstring)."""

    name = "bp"
    #: reads no register value (register-only work may run deferred)
    reads_wave_registers = False
    #: steers fetch past branches by prediction
    claims = frozenset({FETCH})
    #: predicts from and speculates past each static warp's own SIMT stack
    assumes = frozenset({WARP_FORMATION})

    #: sampled timing (whole-launch): the predictors' history is kept per (launch, SM) and spans the TBs of an SM
    sampling = "whole-launch"
    sampling_reason = "the predictors' history is kept per (launch, SM) and spans the TBs of an SM"

    def __init__(self, config, kind: str = "static", params: GshareParams | None = None,
                 recorder_factory=None, layout: str = "ptx"):
        if kind not in PREDICTORS:
            raise ValueError(f"branch predictor must be one of {PREDICTORS}, not {kind!r}")
        if layout not in LAYOUTS:
            raise ConfigError(f"ilp-bp-{kind}: layout must be one of {', '.join(LAYOUTS)}, "
                              f"not {layout!r}")
        self.config = config
        self.layout = layout
        self.kind = kind
        self.params = params or GshareParams()
        self.recorder_factory = recorder_factory   # (sm_id, params) -> recorder | None
        self.states: dict = {}
        self.classes: dict = {}     # id(program) -> {pc: class} (branch_class.py)
        self.folded: dict = {}      # id(program) -> {pc: B} branch-over-jump pairs

    def btfn(self, program, pc: int) -> bool:
        """Backward-taken / forward-not-taken for the conditional ``bra`` at ``pc``: the
        PTX target compared with the PC, or with ``layout`` ``folded`` a branch-over-jump
        pair ``@p bra A; bra.uni B; A:`` read as ``@!p bra B`` (taken to ``A`` exactly
        when ``B`` is forward)."""
        if self.layout == "folded":
            folded = self.folded.get(id(program))
            if folded is None:
                folded = self.folded[id(program)] = folded_branches(program)
            b = folded.get(pc)
            if b is not None:
                return b > pc
        return program.slots[pc >> 3].target <= pc

    def _count(self, sm, pc: int, outcome: str) -> None:
        """Count ``outcome`` of the conditional branch at ``pc`` in total and per class."""
        count = sm.stats.count_mechanism
        count("bp." + outcome)
        prog = sm.launch.program
        cls = self.classes.get(id(prog))
        if cls is None:
            cls = self.classes[id(prog)] = branch_classes(prog)
        count(f"bp_class.{cls[pc]}.{outcome}")

    def _state(self, sm) -> _SMState:
        key = sm.id   # per-launch state: cleared when the launch ends (on_complete)
        s = self.states.get(key)
        if s is None:
            g = None
            if self.kind == "gshare":
                rec = self.recorder_factory(sm.id, self.params) if self.recorder_factory else None
                g = Gshare(self.params, recorder=rec, check=False)
            s = self.states[key] = _SMState(g)
        return s

    # ------------------------------------------------------------------ fetch
    def predict_fetch(self, sm, warp, pc, inst):
        target = sm.launch.program.slots[pc >> 3].target
        if inst.guard is None:            # unconditional: the target is known at IF
            return target
        st = self._state(sm)
        if self.kind == "gshare":
            out = st.gshare.step(GshareOps(
                pr_en=1, pr_pc=(pc >> 3) & ((1 << self.params.pc_width) - 1),
                pr_warp=self._history(warp)))
            taken, idx = bool(out.pr_taken), out.pr_idx
        else:                              # static BTFN (perfect fetches the same way)
            taken, idx = self.btfn(sm.launch.program, pc), 0
        st.pending[(warp.slot, pc)] = (taken, idx)
        return target if taken else None

    # ------------------------------------------------------------------ issue
    def speculate_branch(self, sm, warp, pc, record, fetched_next, next_pc):
        slot = sm.launch.program.slots[pc >> 3]
        if slot.inst.guard is None:
            sm.stats.count_mechanism("bp.unconditional")
            return True
        st = self._state(sm)
        taken, idx = st.pending.pop((warp.slot, pc), (None, 0))
        if self.kind == "perfect":
            self._count(sm, pc, "divergent" if record.diverged else "correct")
            return True
        if taken is None or warp.mem_wait:
            # fetched before an earlier prediction was flushed, or waiting on a long-latency
            # operand: not predicted, the warp waits for the branch (chapter §4.4.3)
            self._count(sm, pc, "not_predicted")
            return False
        if record.diverged:
            self._count(sm, pc, "divergent")
            self._update(st, warp, idx, taken)   # as if the prediction were right
            return True
        # a branch to the next instruction goes the same way taken or not
        actual = taken if slot.target == pc + 8 else next_pc == slot.target
        self._update(st, warp, idx, actual)
        if actual == taken:
            self._count(sm, pc, "correct")
            return True
        self._count(sm, pc, "mispredict")
        return False

    def _history(self, warp) -> int:
        """The gshare history register ``warp`` uses: its own, or the SM's single one."""
        return warp.slot if self.params.histories > 1 else 0

    def _update(self, st: _SMState, warp, idx: int, taken: bool) -> None:
        if st.gshare is not None:
            st.gshare.step(GshareOps(up_en=1, up_idx=idx, up_taken=int(taken),
                                     up_warp=self._history(warp)))

    def on_complete(self, stats) -> None:
        self.states.clear()
        self.classes.clear()
        self.folded.clear()


def make_ilp_bp_static(config, layout: str = "ptx") -> BranchPredictionMechanism:
    """``ilp-bp-static``: backward-taken / forward-not-taken on the PTX ``bra`` as written
    (``ilp-bp-static:layout=folded``: branch-over-jump pairs read as one negated branch)."""
    return BranchPredictionMechanism(config, "static", layout=layout)


def make_ilp_bp_gshare(config) -> BranchPredictionMechanism:
    """``ilp-bp-gshare``: 1 k-bit gshare shared by the SM's warps."""
    return BranchPredictionMechanism(config, "gshare")


def make_ilp_bp_gshare_warp(config) -> BranchPredictionMechanism:
    """``ilp-bp-gshare-warp``: 1 k-bit gshare table shared by the SM's warps, one
    history register per warp."""
    return BranchPredictionMechanism(
        config, "gshare", GshareParams(histories=config.core.max_warps_per_sm))


def make_ilp_bp_perfect(config, layout: str = "ptx") -> BranchPredictionMechanism:
    """``ilp-bp-perfect``: oracle reference (a warp never waits for a branch; its fetch
    guesses like ``ilp-bp-static``)."""
    return BranchPredictionMechanism(config, "perfect", layout=layout)
