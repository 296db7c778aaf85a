"""Compile-time marking of divergent writes that need no special move (seed 003 §3.3).

A divergent instruction writes only its active lanes, uncompressed. If its destination held
a compressed value, the inactive lanes' old values exist only through the base value
register; the hardware option inserts a **special move** that decompresses the destination
first. The paper's compiler-assisted option (citing Gebhart et al. [22]) uses register
lifetimes known at compile time to drop the move when the old value is dead: nobody will
read the inactive lanes' old values, so losing them is harmless.

Per-thread liveness at the instruction (:func:`golden.simt.liveness.live_registers`) is
**not** enough: the inactive threads are not at this PC. Under the PDOM stack
(:mod:`golden.simt.stack`) they wait at the start of a sibling path not yet run or at the
reconvergence PC of an enclosing divergent branch (or their guard is false here, or they
exited). Example: ``r = 5; if (tid < 16) r = 1; use(r)`` -- ``r`` is dead on entry to
``r = 1`` (it is overwritten), yet threads 16-31 read the old 5 at the join.

The rule implemented, for the destination ``r`` of the instruction at slot ``i``, is that the
old value is dead for every thread of the warp when ``r`` is not live on entry to

* ``i`` itself (covers threads whose guard is false: a guarded instruction kills nothing,
  so its live-in contains its live-out), and
* every PC where an inactive thread may wait while ``i`` runs: for every conditional
  ``bra`` whose divergent region contains ``i`` (``i`` reachable from one of its
  successors without passing its reconvergence PC), its reconvergence PC and the
  successor(s) from which ``i`` is not the only way on -- a successor from which ``i``
  is reachable while the other one cannot reach ``i`` is where the active threads came
  from, so no thread waits there for this branch.

Exited threads never read again. A kernel that calls device functions is not analysed
(liveness gives up on calls) and keeps every move. The rule is conservative (a region
found by reachability may be larger than the stack's), never optimistic; the timing
mechanism's test checks it against the live SIMT stack of real runs.
"""

from __future__ import annotations

from golden.simt.liveness import _NO_DST, live_registers, operand_regs
from golden.simt.program import NO_RECONVERGENCE

__all__ = ["move_free_destinations"]


def _successors(slots) -> list[tuple]:
    """Instruction-level CFG successors (slot indices), as the liveness analysis sees it."""
    n = len(slots)
    out = []
    for i, s in enumerate(slots):
        inst = s.inst
        nxt = (i + 1,) if i + 1 < n else ()
        if inst is None:
            out.append(())
        elif inst.opcode == "bra" and s.target is not None:
            out.append(((s.target >> 3),) + (nxt if inst.guard is not None else ()))
        elif inst.opcode in ("exit", "ret", "trap"):
            out.append(nxt if inst.guard is not None else ())
        else:
            out.append(nxt)
    return out


def _reach(succs, start: int, stop: int | None) -> set:
    """Slots reachable from ``start`` (inclusive) without entering ``stop``."""
    if start == stop:
        return set()
    seen = {start}
    work = [start]
    while work:
        i = work.pop()
        for j in succs[i]:
            if j != stop and j not in seen:
                seen.add(j)
                work.append(j)
    return seen


def move_free_destinations(program) -> list[frozenset] | None:
    """Per instruction slot (index = pc >> 3), the storage keys whose old value is dead for
    every thread of the warp when that instruction executes (divergently or not): a
    divergent write to one of them needs no special move. None when the kernel calls
    device functions (not analysed: every move stays)."""
    live = live_registers(program)
    if live is None:
        return None
    slots = program.slots
    n = len(slots)
    succs = _successors(slots)
    waiting: list[set] = [set() for _ in range(n)]   # live-in sets of PCs inactive threads wait at
    for b, s in enumerate(slots):
        inst = s.inst
        if inst is None or inst.opcode != "bra" or inst.guard is None or s.target is None:
            continue
        t, f = s.target >> 3, b + 1
        r = None if s.rpc == NO_RECONVERGENCE else s.rpc >> 3
        if r is not None and r >= n:
            r = None
        reach_t = _reach(succs, t, r)
        reach_f = _reach(succs, f, r) if f < n else set()
        at_r = live[r] if r is not None else frozenset()
        for i in reach_t | reach_f:
            w = waiting[i]
            w.update(at_r)
            if i not in reach_f and f < n:
                w.update(live[f])        # threads that fell through wait at f (or at r)
            if i not in reach_t:
                w.update(live[t])        # threads that took the branch wait at t (or at r)
    out = []
    for i, s in enumerate(slots):
        inst = s.inst
        if inst is None:
            out.append(frozenset())
            continue
        ops = inst.operands
        has_dst = inst.opcode not in _NO_DST and len(ops) > 0
        dsts = {s.regs[x.name] for x in (operand_regs(ops[0]) if has_dst else ())
                if x.name in s.regs}
        out.append(frozenset(k for k in dsts if k not in live[i] and k not in waiting[i]))
    return out
