"""Every formal job, primitives first (see docs/formal.md)."""

from __future__ import annotations

from tb.formal.flow import FormalJob


def all_jobs() -> list[FormalJob]:
    from tb.formal import (jobs_capri, jobs_common, jobs_darsie, jobs_gscalar, jobs_ilp,
                           jobs_uv, jobs_warpman)
    return (list(jobs_common.JOBS) + list(jobs_darsie.JOBS) + list(jobs_gscalar.JOBS)
            + list(jobs_ilp.JOBS) + list(jobs_capri.JOBS) + list(jobs_uv.JOBS)
            + list(jobs_warpman.JOBS))
