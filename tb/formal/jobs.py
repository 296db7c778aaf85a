"""Every formal job, primitives first (see docs/formal.md)."""

from __future__ import annotations

from tb.formal.flow import FormalJob


def all_jobs() -> list[FormalJob]:
    from tb.formal import jobs_common
    return list(jobs_common.JOBS)
