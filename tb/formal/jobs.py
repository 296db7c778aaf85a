"""Every formal job, primitives first (see docs/formal.md)."""

from __future__ import annotations

from tb.formal.flow import FormalJob


def all_jobs(paper: bool = False) -> list[FormalJob]:
    """The jobs at small sizes (``make test``); with ``paper`` also the paper-size ones."""
    from tb.formal import (jobs_capri, jobs_common, jobs_darsie, jobs_gscalar, jobs_ilp,
                           jobs_uv, jobs_warpman)
    jobs = (list(jobs_common.JOBS) + list(jobs_darsie.JOBS) + list(jobs_gscalar.JOBS)
            + list(jobs_ilp.JOBS) + list(jobs_capri.JOBS) + list(jobs_uv.JOBS)
            + list(jobs_warpman.JOBS))
    return [job for job in jobs if paper or not job.paper]
