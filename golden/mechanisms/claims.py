"""What a mechanism takes over in the SM, so that the registry can refuse sets that fight.

Every mechanism class declares ``claims``: a small frozenset of the parts of the pipeline
it owns (:class:`golden.timing.hooks.Mechanism` declares the empty set; a passive
observer claims nothing). Two mechanisms that claim the same part would both steer it, and
the timing model would let the first one in the list win -- the run would then mean
something neither mechanism describes. :func:`conflicts` finds such a pair;
:func:`golden.mechanisms.registry.make_mechanisms` refuses the set before the run with
the two names and the reason. The parts, and what owning one means, are :data:`MEANING`.
"""

from __future__ import annotations

FETCH = "fetch"
ISSUE = "issue"
WARP_FORMATION = "warp formation"
REGISTER_STORAGE = "register storage"
TB_DISPATCH = "TB dispatch"
L1 = "L1"

#: claim -> what a mechanism that owns it does (the reason given when two claim it)
MEANING: dict[str, str] = {
    FETCH: "decides what a warp fetches next, skipping instructions or predicting branches",
    ISSUE: "decides whether and how an instruction issues (eliminating, scalarising or "
           "re-tracking its dependences)",
    WARP_FORMATION: "assumes its own grouping of a TB's threads into warps and holds warps "
                    "at branches (compacted warps, or the static warps a skip table tracks)",
    REGISTER_STORAGE: "changes where register values live or which RF reads and writes happen",
    TB_DISPATCH: "decides when a TB's warps are dispatched and their resources freed",
    L1: "sets the L1's fetch granularity",
}

ALL: frozenset = frozenset(MEANING)


def conflicts(named: list) -> tuple[str, str, frozenset] | None:
    """The first pair of ``(name, mechanism)`` entries whose classes claim a common part:
    ``(name_a, name_b, shared claims)``; None if every claim has one owner."""
    for i, (na, a) in enumerate(named):
        for nb, b in named[i + 1:]:
            shared = frozenset(type(a).claims) & frozenset(type(b).claims)
            if shared:
                return na, nb, shared
    return None


def describe(shared: frozenset) -> str:
    """``"both claim L1: each sets the L1's fetch granularity"`` for a set of shared
    claims (in the order of :data:`MEANING`)."""
    cs = [c for c in MEANING if c in shared]
    return f"both claim {' and '.join(cs)}: " + "; ".join(f"each {MEANING[c]}" for c in cs)
