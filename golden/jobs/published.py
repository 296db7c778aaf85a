"""Reports at ``--size published``: run each job at ``paper`` where that is the same run.

A report asked for at ``published`` (issue 68) builds its jobs with ``size="published"``.
For a job whose workloads all lack a ``published`` size of their own
(:func:`golden.workloads.registry.resolve_size`), the run at ``published`` *is* the run at
``paper``: :func:`published_plan` puts the ``paper`` job in its place, so the result cache
and the committed ``paper`` archive answer it, and maps the report's own key to it
(:meth:`PublishedPlan.view`), the way :class:`golden.jobs.sampled.SamplePlan` maps a timing
job to its sampled run. Any dataclass job with a ``size`` field and a ``workload`` (or
``kernels``) field is handled; other jobs are left as they are.

Kept out of :mod:`golden.jobs.job`: full runs must not depend on it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from golden.workloads.published import PUBLISHED

__all__ = ["PublishedPlan", "published_plan"]


@dataclass
class PublishedPlan:
    """``jobs``: what to run; ``alias``: ``{report's key: key of the paper-size job that
    answers it}``; ``own``: workloads run at their own published input; ``at_paper``:
    workloads run at ``paper`` (no published input of their own)."""

    jobs: list
    alias: dict
    own: list = field(default_factory=list)
    at_paper: list = field(default_factory=list)

    def map(self, jobs) -> list:
        """``jobs`` with each aliased job replaced by the one that answers it."""
        by_key = {j.key: j for j in self.jobs}
        return [by_key.get(self.alias.get(j.key), j) for j in jobs]

    def view(self, results: dict) -> dict:
        """``results`` (by the keys of :attr:`jobs`) also under the report's own keys."""
        out = dict(results)
        for mine, key in self.alias.items():
            if key in results:
                out[mine] = results[key]
        return out

    def note(self) -> str:
        """The line a report at ``published`` begins with."""
        own = ", ".join(self.own) or "none"
        paper = ", ".join(self.at_paper) or "none"
        return (f"> **Size `published`**: at the input their paper names "
                f"(golden/workloads/published.yaml): {own}. At `paper` (the paper size is the "
                f"named input, or no paper names one): {paper}.\n\n")


def _workloads_of(job) -> tuple | None:
    if hasattr(job, "kernels"):
        return tuple(job.kernels)
    if hasattr(job, "workload"):
        return (job.workload,)
    return None


def published_plan(jobs) -> PublishedPlan:
    """The :class:`PublishedPlan` of a report's ``jobs`` built at ``published`` (module
    docstring); jobs at other sizes pass unchanged."""
    from golden.workloads.registry import resolve_size
    memo: dict[str, str] = {}

    def size_of(name: str) -> str:
        if name not in memo:
            memo[name] = resolve_size(name, PUBLISHED)
        return memo[name]

    out, alias = [], {}
    for j in jobs:
        names = _workloads_of(j)
        if (getattr(j, "size", None) != PUBLISHED or names is None
                or not dataclasses.is_dataclass(j)
                or any(size_of(n) == PUBLISHED for n in names)):
            out.append(j)
            continue
        p = dataclasses.replace(j, size="paper")
        alias[j.key] = p.key
        out.append(p)
    own = sorted(n for n, s in memo.items() if s == PUBLISHED)
    return PublishedPlan(out, alias, own, sorted(n for n in memo if n not in own))
