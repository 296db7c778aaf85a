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
  stalled anyway): such a branch waits to resolve like the baseline, does not update the
  predictor and is left out of the accuracy. Which branches depend on one is ``deps``,
  all following the guard predicate's register dependence chain: a register is marked
  long-latency when the instruction writing it waited on a memory operand
  (``warp.mem_wait``) or read a marked register, and unmarked when rewritten without one;
  a branch whose guard is marked, or which itself waited on memory, is not predicted.
  ``block`` (default) clears a warp's marks at each of its branches, so only a stall
  since the warp's previous branch (its basic block) counts (the chapter's reason: the
  stall "prevents the branch from entering the pipeline"; a trip count loaded before a
  loop does not make the loop's branch unpredictable); ``chain`` never clears them (any value ever loaded);
  ``direct`` (the rule before issue 67) asks only whether the ``bra`` itself waited on
  memory, which a PTX ``bra`` (it reads a predicate written by ``setp``) almost never
  does, so nearly every data-dependent branch was predicted and counted;
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
#: which branches count as dependent on a long-latency operation (not predicted):
#: ``block`` = through the guard predicate's register dependence chain within the basic
#: block (default), ``chain`` = through it since the warp began, ``direct`` = only a
#: ``bra`` that itself waited on a memory operand (the old rule)
DEPS = ("block", "chain", "direct")
#: how BTFN reads a PTX branch-over-jump pair (branch_class.py): ``ptx`` = the PTX ``bra``
#: as written (default: the chapter's simulator also ran PTX), ``folded`` = as one
#: ``@!p bra B`` falling through to ``A`` (a guess at ptxas's layout: unverified, no SASS
#: disassembler here; it helps MM's loop guard and hurts NQU's ``d == last`` test)
LAYOUTS = ("ptx", "folded")


class _SMState:
    """One SM's predictor and the predictions of branches fetched but not yet issued."""

    __slots__ = ("gshare", "pending", "marked")

    def __init__(self, gshare):
        self.gshare = gshare
        self.pending: dict = {}     # (warp slot, pc) -> (predicted taken, table index)
        self.marked: dict = {}      # warp slot -> register indices holding long-latency values


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
                 recorder_factory=None, layout: str = "ptx", deps: str = "block"):
        if kind not in PREDICTORS:
            raise ValueError(f"branch predictor must be one of {PREDICTORS}, not {kind!r}")
        if layout not in LAYOUTS:
            raise ConfigError(f"ilp-bp-{kind}: layout must be one of {', '.join(LAYOUTS)}, "
                              f"not {layout!r}")
        if deps not in DEPS:
            raise ConfigError(f"ilp-bp-{kind}: deps must be one of {', '.join(DEPS)}, "
                              f"not {deps!r}")
        self.config = config
        self.layout = layout
        self.deps = deps
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
    def on_issue(self, sm, warp, pc, inst):
        """``deps`` block/chain: mark the registers ``inst`` writes as long-latency values
        when it waited on a memory operand or read a marked register; unmark them
        otherwise."""
        if self.deps != "direct" and self.kind != "perfect":
            d = sm.decoded[pc >> 3]
            if d.dsts:
                marked = self._state(sm).marked.setdefault(warp.slot, set())
                if warp.mem_wait or not marked.isdisjoint(d.srcs):
                    marked.update(d.dsts)
                else:
                    marked.difference_update(d.dsts)
        return None

    def long_latency(self, sm, warp, pc) -> bool:
        """Whether the conditional branch at ``pc`` depends on a long-latency operation
        (``deps``; see module docstring)."""
        if warp.mem_wait:
            return True
        if self.deps == "direct":
            return False
        marked = self._state(sm).marked.get(warp.slot)
        return bool(marked) and not marked.isdisjoint(sm.decoded[pc >> 3].srcs)

    def _end_block(self, sm, warp) -> None:
        """``deps=block``: a branch ends the warp's basic block; forget its marks."""
        if self.deps == "block":
            marked = self._state(sm).marked.get(warp.slot)
            if marked:
                marked.clear()

    def speculate_branch(self, sm, warp, pc, record, fetched_next, next_pc):
        slot = sm.launch.program.slots[pc >> 3]
        if slot.inst.guard is None:
            sm.stats.count_mechanism("bp.unconditional")
            self._end_block(sm, warp)
            return True
        st = self._state(sm)
        taken, idx = st.pending.pop((warp.slot, pc), (None, 0))
        if self.kind == "perfect":
            self._count(sm, pc, "divergent" if record.diverged else "correct")
            return True
        waits = self.long_latency(sm, warp, pc)
        self._end_block(sm, warp)
        if taken is None or waits:
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


def make_ilp_bp_static(config, layout: str = "ptx", deps: str = "block") -> BranchPredictionMechanism:
    """``ilp-bp-static``: backward-taken / forward-not-taken on the PTX ``bra`` as written
    (``ilp-bp-static:layout=folded``: branch-over-jump pairs read as one negated branch;
    ``deps=direct``: the old long-latency rule)."""
    return BranchPredictionMechanism(config, "static", layout=layout, deps=deps)


def make_ilp_bp_gshare(config, deps: str = "block") -> BranchPredictionMechanism:
    """``ilp-bp-gshare``: 1 k-bit gshare shared by the SM's warps (``deps=direct``: the
    old long-latency rule)."""
    return BranchPredictionMechanism(config, "gshare", deps=deps)


def make_ilp_bp_gshare_warp(config, deps: str = "block") -> BranchPredictionMechanism:
    """``ilp-bp-gshare-warp``: 1 k-bit gshare table shared by the SM's warps, one
    history register per warp."""
    return BranchPredictionMechanism(
        config, "gshare", GshareParams(histories=config.core.max_warps_per_sm), deps=deps)


def make_ilp_bp_perfect(config, layout: str = "ptx") -> BranchPredictionMechanism:
    """``ilp-bp-perfect``: oracle reference (a warp never waits for a branch; its fetch
    guesses like ``ilp-bp-static``)."""
    return BranchPredictionMechanism(config, "perfect", layout=layout)
