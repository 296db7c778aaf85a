"""What a mechanism takes over in the SM, what it needs left alone, and the order in which
the mechanisms of one run are called: the rules that let several mechanisms compose.

Every mechanism declares ``claims``: a small frozenset of the parts of the pipeline it
owns (:class:`golden.timing.hooks.Mechanism` declares the empty set; a passive observer
claims nothing). A mechanism may also declare ``assumes``: parts it needs to behave as the
baseline's, because it reads or waits on what they do (a branch predictor reads per-warp
SIMT stacks, so it assumes static warps). The parts, and what owning one means, are
:data:`MEANING`; what assuming one means is :data:`ASSUMED`.

Two mechanisms cannot run together when both claim a part (both would steer it; the
timing model would let one of them win and the run would mean something neither
describes), or when one claims a part the other assumes. :func:`conflicts` finds the first
such pair; :func:`golden.mechanisms.registry.make_mechanisms` refuses the set before the
run with the two names and the reason. Claims and assumptions are read from the instance,
so a configuration of a mechanism may claim more (UV's ``eliminate=true`` claims
:data:`ELIMINATION`).

Composition order (:data:`CHAIN`, applied by :func:`ordered`)
-------------------------------------------------------------
In *time*, an instruction meets the mechanisms in pipeline order: a fetch-stage mechanism
(DARSIE, DAC-IDEAL) may skip it at fetch, and then it never issues, so no issue-stage
mechanism (G-Scalar, UV) decides anything about it; they learn about it only through
:meth:`~golden.timing.hooks.Mechanism.on_skip` (its results arrived in the warp's
registers without issue) and keep their per-register state right. An instruction that
issues is seen by every mechanism's ``on_issue``; an ``"eliminate"`` from any of them
stands, and no two mechanisms that both set how an instruction executes (:data:`ISSUE`)
may be combined, so at most one answer is not None.

Within one hook, the SM calls the mechanisms in list order and passes a list-valued
hook's answer (registers read, registers written) from one to the next. The registry puts
every set in :data:`CHAIN` order, from the register file outward:

1. :data:`DEPENDENCE_TRACKING` -- operands a mechanism serves itself (ILP's shared
   scoreboard value entries) leave the list first, so later mechanisms count only what
   the register file really reads;
2. :data:`ISSUE`, :data:`ELIMINATION`, :data:`REGISTER_STORAGE` -- the issue decision and
   where values live (UV, G-Scalar): they name registers as the program does and read the
   issued instruction's own results in ``after_step``;
3. :data:`L1`, :data:`TB_DISPATCH`, :data:`WARP_FORMATION` -- memory and dispatch, which
   touch no register list;
4. :data:`FETCH`, :data:`REGISTER_RENAMING` -- the front end: DARSIE maps the registers
   left to read onto its physical registers' banks (last, so everyone before it saw
   architectural names), and its ``after_step`` applies skips of *younger* instructions,
   which must come after every other mechanism has seen the issued one's results;
5. passive observers (no claims), which see everything the others decided.

A mechanism's place is the latest stage among its claims (DARSIE, which also claims warp
formation, belongs to the front end); ties keep the order given.
"""

from __future__ import annotations

FETCH = "fetch"
ISSUE = "issue"
ELIMINATION = "elimination"
DEPENDENCE_TRACKING = "dependence tracking"
WARP_FORMATION = "warp formation"
REGISTER_STORAGE = "register storage"
REGISTER_RENAMING = "register renaming"
TB_DISPATCH = "TB dispatch"
L1 = "L1"

#: claim -> what a mechanism that owns it does (the reason given when two claim it)
MEANING: dict[str, str] = {
    FETCH: "decides what a warp fetches next, skipping instructions or predicting branches",
    ISSUE: "decides how an issued instruction executes (scalar lanes, pipeline occupancy "
           "and latency, injected micro-ops)",
    ELIMINATION: "removes issued instructions' execution and write-back",
    DEPENDENCE_TRACKING: "replaces the per-warp dependence tracker that gates issue",
    WARP_FORMATION: "forms a TB's warps itself (compaction: its own grouping of the TB's "
                    "threads) and holds warps at branches",
    REGISTER_STORAGE: "changes where register values live or which RF reads and writes happen "
                      "(compressed RF, scalar RF, uniform lanes)",
    REGISTER_RENAMING: "renames warps' registers onto shared physical registers",
    TB_DISPATCH: "decides when a TB's warps are dispatched and their resources freed",
    L1: "sets the L1's fetch granularity",
}

#: claim -> why a mechanism that assumes it needs the baseline's behaviour of that part
ASSUMED: dict[str, str] = {
    FETCH: "it needs every instruction fetched and issued",
    ELIMINATION: "it waits for issued instructions' write-backs (DARSIE's LeaderWB)",
    DEPENDENCE_TRACKING: "it writes registers outside the dependence tracker (skipped "
                         "instructions, copy-backs into the per-warp tracker), which a "
                         "shared scoreboard's in-order commit never sees (HS deadlocks)",
    WARP_FORMATION: "it reads or steps each static warp's own SIMT stack and registers, or "
                    "tracks its dependences (formed warps have their own: "
                    "golden/timing/dynamic_warps.py)",
    TB_DISPATCH: "it needs every warp of a TB resident from dispatch to the TB's end",
}

ALL: frozenset = frozenset(MEANING)

#: the order of the mechanisms of one run (see the module docstring): stage by stage
CHAIN: tuple = ((DEPENDENCE_TRACKING,), (ISSUE, ELIMINATION, REGISTER_STORAGE),
                (L1, TB_DISPATCH, WARP_FORMATION), (FETCH, REGISTER_RENAMING))


def claims_of(mechanism) -> frozenset:
    """The parts ``mechanism`` (an instance) owns."""
    return frozenset(getattr(mechanism, "claims", ()))


def assumes_of(mechanism) -> frozenset:
    """The parts ``mechanism`` needs left as the baseline's."""
    return frozenset(getattr(mechanism, "assumes", ()))


def stage(mechanism) -> int:
    """Position of ``mechanism`` in :data:`CHAIN` (the latest stage among its claims);
    passive mechanisms come after every stage."""
    cs = claims_of(mechanism)
    at = [i for i, parts in enumerate(CHAIN) if cs.intersection(parts)]
    return max(at) if at else len(CHAIN)


def ordered(named: list) -> list:
    """``(name, mechanism)`` entries in :data:`CHAIN` order (stable: ties keep the order
    given)."""
    return sorted(named, key=lambda e: stage(e[1]))


def conflict(a, b) -> tuple[str, frozenset] | None:
    """Why mechanisms ``a`` and ``b`` cannot run together: ``("both", parts)`` when both
    claim ``parts``, ``("a", parts)`` when ``a`` claims parts ``b`` assumes, ``("b",
    parts)`` the other way round; None if they compose."""
    ca, cb = claims_of(a), claims_of(b)
    shared = ca & cb
    if shared:
        return "both", shared
    if ca & assumes_of(b):
        return "a", ca & assumes_of(b)
    if cb & assumes_of(a):
        return "b", cb & assumes_of(a)
    return None


def conflicts(named: list) -> tuple[str, str, str] | None:
    """The first pair of ``(name, mechanism)`` entries that cannot run together:
    ``(name_a, name_b, reason)`` with :func:`describe`'s reason; None if they compose."""
    for i, (na, a) in enumerate(named):
        for nb, b in named[i + 1:]:
            c = conflict(a, b)
            if c is not None:
                return na, nb, describe(c, na, nb)
    return None


def _parts(parts) -> list:
    return [c for c in MEANING if c in parts]


def describe(why, name_a: str = "the first", name_b: str = "the second") -> str:
    """The reason two mechanisms cannot run together, for :func:`conflict`'s answer (or a
    bare set of shared claims): ``"both claim L1: each sets the L1's fetch granularity"``
    or ``"'tbc' claims warp formation: it ...; 'ilp-bp-static' assumes the baseline's warp
    formation: it reads each static warp's own SIMT stack"``."""
    if not isinstance(why, tuple):
        why = ("both", frozenset(why))
    kind, parts = why
    cs = _parts(parts)
    if kind == "both":
        return f"both claim {' and '.join(cs)}: " + "; ".join(f"each {MEANING[c]}" for c in cs)
    owner, other = (name_a, name_b) if kind == "a" else (name_b, name_a)
    what = " and ".join(cs)
    return (f"'{owner}' claims {what}: it " + "; ".join(MEANING[c] for c in cs)
            + f"; '{other}' assumes the baseline's {what}: "
            + "; ".join(ASSUMED.get(c, "it relies on it") for c in cs))

