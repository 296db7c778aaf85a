"""The job kinds the engine knows, and a job rebuilt from a stored result.

A stored result carries its job's fields and key, so the engine can tell which job it came
from (:func:`job_of`) without knowing the reports: the job kinds are :class:`TimingJob` and
every job dataclass that the modules of :data:`JOB_PACKAGES` define (looked up by name at
run time, as :data:`golden.report.REPORTS` names the reports). The cache uses this to check
an entry's dependencies as its job has them today; re-keying uses it to group and re-run
stale results.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pkgutil

from golden.jobs.job import TimingJob
from golden.jobs.sampled import SampledTimingJob

#: packages whose modules may define job kinds (dataclasses with a ``key`` property and
#: a ``run()``): the reports' own measurement jobs
JOB_PACKAGES = ("golden.report",)
#: modules of those packages that define no job kind and are not imported to look
NOT_JOB_MODULES = frozenset({"golden.report.cli", "golden.report.campaign"})

__all__ = ["JOB_PACKAGES", "job_kinds", "job_of"]


@functools.lru_cache(maxsize=1)
def job_kinds() -> tuple:
    """Every job class: :class:`TimingJob`, :class:`SampledTimingJob` and the dataclasses of the modules of
    :data:`JOB_PACKAGES` whose instances name their result with a ``key`` property and
    carry a ``run()`` (the functional probes, concurrent-kernel runs, occupancy and
    locality tables of the reports...)."""
    out = [TimingJob, SampledTimingJob]
    for package_name in JOB_PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            if info.ispkg or f"{package_name}.{info.name}" in NOT_JOB_MODULES:
                continue
            out += _job_classes(importlib.import_module(f"{package_name}.{info.name}"))
    return tuple(sorted(set(out), key=lambda c: (c.__module__ != "golden.jobs.job", c.__module__, c.__name__)))


def _job_classes(mod) -> list:
    out = []
    for obj in vars(mod).values():
        if isinstance(obj, type) and obj.__module__ == mod.__name__ \
                and dataclasses.is_dataclass(obj) and isinstance(getattr(obj, "key", None), property) \
                and callable(getattr(obj, "run", None)):
            out.append(obj)
    return out


def _tuples(v):
    """JSON lists back to the tuples a frozen job's fields hold."""
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def job_of(entry: dict, kinds: tuple | None = None):
    """The report job a stored result came from (rebuilt from the job's fields, which every
    result record carries, and checked against its key), or None when no job kind names
    it."""
    key = entry.get("key")
    if not isinstance(key, str):
        return None
    for cls in kinds if kinds is not None else job_kinds():
        fields = {}
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            if f.name in entry:
                fields[f.name] = _tuples(entry[f.name])
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                break
        else:
            try:
                job = cls(**fields)
                if job.key == key:
                    return job
            except (TypeError, ValueError, KeyError):
                continue
    return None
