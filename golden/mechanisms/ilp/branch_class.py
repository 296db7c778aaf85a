"""Static classes of conditional branches for the branch-prediction accuracy breakdown
(seed 002 ch. 4, §4.4.3-§4.4.4, Fig. 47).

The chapter reports one accuracy over the non-divergent conditional branches of each
benchmark. To see *which* branches our predictors miss, each conditional ``bra`` of a
linked program is given one structural class from the program's layout (no profiling):

* ``loop-end`` -- a backward branch (target <= its own PC): the branch that closes a
  loop, predicted taken by backward-taken / forward-not-taken;
* ``loop-exit`` -- a forward branch whose target lies past the end of a loop that encloses
  it (a loop = the PC range ``[target, pc]`` of some backward ``bra``, conditional or not):
  the test that leaves a loop (``while`` tests at the loop top, ``break``);
* ``data`` -- every other forward branch: an ``if``/``else`` on data, predicted not taken.

PTX branch-over-jump: NVVM lays out an ``if`` with both successors as
``@p bra A; bra.uni B; A:``, a pair no machine code contains (ptxas folds it into one
``@!p bra B`` that falls through to ``A``; the Open64 NVCC of the chapter's time wrote the
negated branch itself; which block ptxas puts on the fall-through is not checked here).
:func:`folded_branches` finds these pairs; the class of such a branch follows the folded
branch's target ``B`` (a zero-trip loop guard jumping over ``bra.uni`` to the loop exit
is then a forward data branch, not a jump into the loop), and so does the static
prediction under ``ilp-bp-static:layout=folded``.

Unconditional branches are not classed (the chapter: they cause no hazard). Whether one
dynamic instance diverged (split its warp: never mispredicted) or was uniform is counted
by the mechanism beside the class.
"""

from __future__ import annotations

__all__ = ["BRANCH_CLASSES", "branch_classes", "folded_branches"]

#: class names, in report order
BRANCH_CLASSES = ("loop-end", "loop-exit", "data")


def _bras(program) -> list:
    return [s for s in program.slots
            if s.inst is not None and s.inst.opcode == "bra" and s.target is not None]


def folded_branches(program) -> dict[int, int]:
    """PTX branch-over-jump pairs of ``program``: ``{pc: B}`` for every conditional
    ``bra`` at ``pc`` whose next instruction is an unconditional ``bra`` to ``B`` and whose
    own target is the instruction after that one (the pair is ``@!p bra B``)."""
    slots = program.slots
    out = {}
    for s in _bras(program):
        i = s.pc >> 3
        if s.inst.guard is None or i + 1 >= len(slots):
            continue
        j = slots[i + 1]
        if (j.inst is not None and j.inst.opcode == "bra" and j.inst.guard is None
                and j.target is not None and s.target == s.pc + 16):
            out[s.pc] = j.target
    return out


def branch_classes(program) -> dict[int, str]:
    """Class of every conditional ``bra`` of ``program`` (a linked
    :class:`golden.simt.program.Program`), by PC; a branch-over-jump pair is classed by
    the folded branch's target."""
    bras = _bras(program)
    loops = [(s.target, s.pc) for s in bras if s.target <= s.pc]
    folded = folded_branches(program)
    out = {}
    for s in bras:
        if s.inst.guard is None:
            continue
        target = folded.get(s.pc, s.target)
        if target <= s.pc:
            out[s.pc] = "loop-end"
        elif any(top <= s.pc <= end < target for top, end in loops):
            out[s.pc] = "loop-exit"
        else:
            out[s.pc] = "data"
    return out
