"""The main job (``simtlab report all``, ``make speedups``) as a list of jobs.

Every report's ``jobs(opts)`` together: :func:`main_job` is every distinct timing
simulation it runs, :func:`report_configs` the (configuration, overrides) pairs it runs one
workload on. The register table (:mod:`golden.report.registers`) and the workload tests
read them to know which configurations matter for a workload.
"""

from __future__ import annotations

from golden.report import available_reports
from golden.report.runner import ReportOptions, TimingJob

__all__ = ["main_job", "report_configs"]


def report_configs(workload: str, size: str = "small",
                   papers_only: bool = False) -> list[tuple[str, tuple]]:
    """``(config, overrides)`` pairs the main job (every report of ``simtlab report all``)
    runs ``workload`` on at ``size``, in first-seen order. ``papers_only`` leaves out the
    cross-paper studies (reports whose module sets ``CROSS_PAPER_STUDY = True``, such as the
    composition study), which run each paper's workloads on a common GPU."""
    opts = ReportOptions(size=size)
    out: dict = {}
    for rep in available_reports().values():
        if papers_only and getattr(rep, "CROSS_PAPER_STUDY", False):
            continue
        for j in rep.jobs(opts):
            # concurrent sessions (golden.report.hetero.ConcurrentJob) run the same kernels
            # on partitions of GPUs whose lone runs are TimingJobs of the same report;
            # functional studies (golden.report.uv.LimitJob) have no GPU
            if isinstance(j, TimingJob) and j.workload == workload:
                out.setdefault((j.config, j.overrides), None)
    return list(out)


def main_job(size: str, seed: int = 0) -> list:
    """Every distinct :class:`TimingJob` of ``simtlab report all`` at ``size`` (concurrent
    sessions left out)."""
    opts = ReportOptions(size=size, seed=seed)
    jobs = {}
    for rep in available_reports().values():
        for j in rep.jobs(opts):
            if isinstance(j, TimingJob):
                jobs.setdefault(j.key, j)
    return list(jobs.values())
