"""Plain runs answered by passive observer runs of the same simulation.

A *passive* mechanism only watches a run: it adds its own counters under
``timing.mechanism`` and changes nothing else -- not a cycle, a stall, an energy figure or
an output byte. CAPRI's §5.1 oracle (``capri-oracle``, seed 004) and WarpMan's warp-lifetime
recorder (``warp-lifetimes``, dissertation ch. 3) are such observers, and the reports run
each of them on the very simulations they also need as plain baselines (WPDOM on the Quadro
FX 5800, the WarpMan GTX 480). A plain :class:`~golden.jobs.job.TimingJob` whose
observer run (same workload, config, size, seed and overrides; only passive mechanisms) is
in the same batch is therefore answered from that run instead of simulating it again:
:func:`derive` drops the observers' counters and the mechanism names. The result records
``derived_from`` (the observer run's key) and zero CPU / wall seconds of its own.

Passivity is a claim about the observers' code; ``tests/report/test_passive.py`` checks it
on real kernels by running both and comparing every field.
"""

from __future__ import annotations

from dataclasses import replace

from golden.jobs.job import TimingJob

#: mechanisms (registry names, before any ``:options``) that change nothing in a run
PASSIVE: frozenset = frozenset({"capri-oracle", "warp-lifetimes"})


def _base(name: str) -> str:
    return name.split(":", 1)[0]


def is_observer_run(job) -> bool:
    """A timing job whose mechanisms are all passive (at least one)."""
    return (isinstance(job, TimingJob) and bool(job.mechanisms)
            and all(_base(m) in PASSIVE for m in job.mechanisms))


def observer_for(plain, jobs, deps: dict) -> TimingJob | None:
    """The observer run among ``jobs`` that answers the plain job ``plain``, or None.

    ``deps`` maps job keys to dependency maps: the plain job's files must be among the
    observer run's with the same hashes (a plain run depends on no observer code, so this
    holds unless the dependency maps are unknown)."""
    if not isinstance(plain, TimingJob) or plain.mechanisms:
        return None
    mine = deps.get(plain.key)
    if mine is None:
        return None
    for o in jobs:
        if is_observer_run(o) and replace(o, mechanisms=()).key == plain.key:
            theirs = deps.get(o.key)
            if theirs is not None and all(theirs.get(f) == h for f, h in mine.items()):
                return o
    return None


def derive(observer_result: dict, plain) -> dict:
    """The result of the plain job ``plain`` from its passive observer run's result."""
    if "error" in observer_result:
        return {"key": plain.key, "error": f"observer run {observer_result.get('key')} "
                                           f"failed: {observer_result['error']}"}
    r = {k: v for k, v in observer_result.items() if k not in ("from_cache", "deps")}
    timing = dict(r["timing"])
    timing["mechanism"] = {}
    r.update(key=plain.key, mechanisms=tuple(plain.mechanisms), timing=timing,
             derived_from=observer_result["key"], cpu_seconds=0.0, wall_seconds=0.0)
    return r
