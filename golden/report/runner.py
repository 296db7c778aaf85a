"""What a report module works with: the user's options, the job kinds and the helpers
that read results.

A report (``golden/report/<name>.py``) declares the simulations it needs as jobs
(``jobs(opts)``: :class:`TimingJob` values and its own job kinds, :mod:`golden.jobs.job`)
and turns their results into Markdown and JSON (``render(results, opts)``). The job
engine (:mod:`golden.jobs.executors`) runs the union of every requested report's jobs once
(the baseline runs are shared by all reports) and caches them (:mod:`golden.jobs.cache`).

The job kinds are named here too (:class:`TimingJob`, :class:`WorkloadProbe`,
:func:`timed_run`, :func:`run_job`, :func:`output_digest`): this module is the one import
a report, a mechanism's side study (``simtlab new mechanism``) or a notebook needs.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.jobs.job import TimingJob, WorkloadProbe, output_digest, run_job, timed_run
from golden.report.present.estimates import Estimate, geomean_estimate

__all__ = ["ReportOptions", "TimingJob", "WorkloadProbe", "geomean", "output_digest", "run_job",
           "same_outputs", "selects", "speedup_sweep", "standing_for", "stands_for_entry",
           "succeeded", "timed_run", "user_workloads", "workload_label"]


@dataclass(frozen=True)
class ReportOptions:
    """What the user asked for: input size, seed, worker processes, user workloads."""

    size: str = "small"
    seed: int = 0
    jobs: int = 1
    #: baseline report: every workload on every config, not only each seed's workloads
    all_configs: bool = False
    #: ``--workloads DIR`` (absolute): its user workloads join the reports that select
    #: workloads by ``stands_for`` (:func:`standing_for`), named in jobs by reference
    workloads: str | None = None


def standing_for(prefix: str, opts: ReportOptions | None = None) -> list[str]:
    """Workloads with a ``stands_for`` entry that begins with ``prefix`` (a seed's name as
    the entries write it: ``"UV"``, ``"WarpMan"``, ``"CAPRI"``...), sorted; then those of
    ``opts.workloads``, by reference ``NAME@FILE`` (:mod:`golden.workloads.user_ref`)."""
    from golden.workloads import registry
    return sorted(n for n, w in registry.all_workloads().items() if selects(prefix, w.stands_for)) \
        + user_workloads(prefix, opts)


def selects(prefix: str | None, stands_for) -> bool:
    """The one rule by which a report takes a workload: one of its ``stands_for`` entries
    begins with the report's prefix (its ``STANDS_FOR``); prefix None takes every workload
    (the baseline report's user workloads)."""
    return prefix is None or any(s.startswith(prefix) for s in stands_for)


def user_workloads(prefix: str | None, opts: ReportOptions | None) -> list[str]:
    """References ``NAME@FILE`` (:mod:`golden.workloads.user_ref`) of the user workloads of
    ``opts.workloads`` that :func:`selects` takes with ``prefix``, sorted by name; none
    without ``--workloads``."""
    if opts is None or not opts.workloads:
        return []
    return [r for r, w in _user_ref().refs_of_dir(opts.workloads).items()
            if selects(prefix, w.stands_for)]


def workload_label(name: str) -> str:
    """A workload as a report's table names it: ``NAME (user)`` for a user workload's
    reference, else the name."""
    return _user_ref().label(name)


def _user_ref():
    """:mod:`golden.workloads.user_ref`, looked up by name rather than imported: the
    reports' own job kinds (whose dependency sets hold this module's imports,
    :mod:`golden.jobs.deps`) do not depend on it unless their workload is a user one,
    and then :meth:`~golden.jobs.deps.DependencyFinder.job_roots` names it."""
    import importlib
    return importlib.import_module("golden.workloads.user_ref")


def stands_for_entry(workload: str, prefix: str) -> str | None:
    """The text after the colon of ``workload``'s first ``stands_for`` entry that begins
    with ``prefix`` (e.g. ``"RayTracing (RAY), 6 warps per TB"``), or None."""
    from golden.workloads import registry
    for s in registry.get(workload).stands_for:
        if s.startswith(prefix):
            return s.split(":", 1)[1].strip()
    return None


def succeeded(result) -> bool:
    """True for a result that exists and is not an ``error`` record."""
    return result is not None and "error" not in result


def same_outputs(result: dict, base: dict) -> bool:
    """True if ``result`` matched its reference and produced ``base``'s exact outputs."""
    return result["outputs_match"] and result["output_digest"] == base["output_digest"]


def speedup_sweep(results: dict, names, base_job, point_job, points) -> tuple[list, list, dict]:
    """Speedups of a parameter sweep: for every workload in ``names``, baseline cycles
    (``base_job(w)``) / cycles of ``point_job(w, p)`` for each point ``p``. A point whose run
    failed, is missing or changed the outputs shows as "error" / "missing". Return
    ``(markdown rows incl. the geomean row, data rows, {point: geomean})``."""
    cols = {p: [] for p in points}
    md, rows = [], []
    for w in names:
        base = results.get(base_job(w).key)
        cells, row = [], {"workload": w}
        for p in points:
            r = results.get(point_job(w, p).key)
            if not (succeeded(base) and succeeded(r)) or not same_outputs(r, base):
                cells.append("error" if r is not None else "missing")
                continue
            sp = base["cycles"] / r["cycles"]
            cols[p].append(sp)
            row[p] = sp
            cells.append(f"{sp:.3f}")
        rows.append(row)
        md.append(f"| {workload_label(w)} | " + " | ".join(cells) + " |")
    gm = {p: geomean(v) for p, v in cols.items()}
    md.append("| **geomean** | " + " | ".join(f"**{gm[p]:.3f}**" for p in points) + " |")
    return md, rows, gm


def geomean(values) -> float:
    """Geometric mean of positive values (nan if there are none). When some of them are
    sampled :class:`~golden.report.present.estimates.Estimate` figures, the mean is one
    too, its interval propagated in log space (``geomean_estimate``); with plain numbers
    it is the plain float it always was."""
    kept = [x for x in values if x is not None and x > 0]
    v = np.asarray(kept, dtype=float)
    g = float(np.exp(np.log(v).mean())) if v.size else float("nan")
    if any(isinstance(x, Estimate) for x in kept):
        return geomean_estimate(kept, g)
    return g
