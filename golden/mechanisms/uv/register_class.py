"""Static classes of a kernel's PTX registers for the scalar-RF (SRF) design's occupancy
(seed 002 ch. 2, §2.4.2; paper-facts §2.5; issue 67 point 4).

The chapter's hardware ran GT200 SASS, where kernel parameters are memory operands (sm_1x
passes them in shared memory; later SASS reads them from constant bank ``c[0x0][...]``),
not registers. Our PTX loads every parameter into a register with ``ld.param`` and keeps
pointers and bounds derived from it in registers for the whole kernel. These classes tell
which SRF entries that costs:

``PARAM`` -- parameter-derived: a register with exactly **one** static definition, which is
    an ``ld.param`` or a scalarisable (ALU/SFU, not cross-lane) instruction whose sources
    are immediates, symbols (a shared or constant variable's address), *launch-constant*
    special registers (:data:`LAUNCH_CONSTANTS`: the same value in every thread of the
    launch) or ``PARAM`` registers, and whose guard, if any, is a ``PARAM`` predicate. Such
    a value is one number for the whole launch: an SASS-level design would read it as a
    constant operand. The single-definition rule keeps out loop counters (``mov i, 0`` /
    ``add i, i, 1``) and values chosen by control flow (two definitions on two paths of a
    thread-dependent branch). A least fixpoint, so a definition that reads its own
    destination never qualifies.
``OTHER`` -- depends on a memory value: some definition is a load other than ``ld.param``
    (or an atomic or cross-lane operation), or reads an ``OTHER`` register (least fixpoint
    of "may depend on memory"). In the SRF these come from the broadcast path (every lane
    read one address) and from uniform arithmetic on such values.
``COMPUTED`` -- every other register: uniform values computed from ``%ctaid``, ``%warpid``
    and the like, loop counters and bounds, and (never uniform, so never in the SRF)
    thread-indexed values.

:func:`register_classes` returns the class of every register index (the program's sorted
register table, as :class:`~golden.timing.sm.DecodedInst` numbers them).
"""

from __future__ import annotations

from golden.mechanisms.uv.decode import IMM, REG
from golden.ptx.ir import SpecialReg

__all__ = ["PARAM", "COMPUTED", "OTHER", "CLASS_NAMES", "LAUNCH_CONSTANTS",
           "register_classes"]

PARAM, COMPUTED, OTHER = 0, 1, 2
CLASS_NAMES = ("param", "computed", "other")
#: special registers with one value for every thread of a launch (``%ctaid`` differs per
#: TB, ``%warpid`` / ``%smid`` per warp: those make a value COMPUTED)
LAUNCH_CONSTANTS = frozenset({"ntid", "nctaid", "gridid", "nsmid"})


def _param_source(kind, leaf) -> bool:
    """An IMM-kind leaf that is one value for the whole launch."""
    return kind == IMM and (not isinstance(leaf, SpecialReg) or leaf.name in LAUNCH_CONSTANTS)


def register_classes(program, dec) -> list[int]:
    """Class (:data:`PARAM`, :data:`COMPUTED`, :data:`OTHER`) of every register index of
    ``program``; ``dec`` is :func:`golden.mechanisms.uv.decode.decode_uv` of it."""
    nregs = len(program.reg_types)
    defs: list[list[int]] = [[] for _ in range(nregs)]
    for i, u in enumerate(dec):
        for r in u.dsts:
            defs[r].append(i)

    def pure(i: int) -> bool:
        u = dec[i]
        return u.param_load or (u.eligible and not u.thread_special)

    param: set[int] = set()
    changed = True
    while changed:
        changed = False
        for r in range(nregs):
            if r in param or len(defs[r]) != 1:
                continue
            u = dec[defs[r][0]]
            if (pure(defs[r][0])
                    and all(k == REG or _param_source(k, leaf) for k, leaf in u.leaves)
                    and all(s in param for s in u.src_regs)
                    and (u.guard is None or u.guard in param)):
                param.add(r)
                changed = True

    other: set[int] = set()
    changed = True
    while changed:
        changed = False
        for r in range(nregs):
            if r in other or r in param:
                continue
            for i in defs[r]:
                u = dec[i]
                memory = not u.eligible and not u.param_load
                if memory or any(s in other for s in u.src_regs):
                    other.add(r)
                    changed = True
                    break
    return [PARAM if r in param else OTHER if r in other else COMPUTED for r in range(nregs)]
