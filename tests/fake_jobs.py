"""Cheap stand-in report jobs for tests of the orchestration around simulations: Ctrl-C,
worker pools, per-job claims and store faults (tests/test_interrupts.py,
tests/test_job_claims.py, tests/test_store_faults.py).

:class:`SleepJob` is a report job kind (a frozen dataclass with ``key`` and ``run()``)
that sleeps, appends one line ``<key> <pid>`` to its run log (so a test counts how often
each job really ran) and returns a result whose ``value`` is a checksum of its name (so
a test can tell a right result from a wrong one). Run as a script, this module is a tiny
``simtlab report``: it runs ``--n`` such jobs through :func:`golden.jobs.executors.run_jobs`
with a real :class:`ResultCache` and prints ``{key: value}`` as JSON."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

#: the dependency map every SleepJob result is stored with (no source file decides it)
FAKE_DEPS = {"fake/sleep_job.py": "1"}


def expected_value(name: str) -> str:
    return hashlib.sha256(f"value of {name}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class SleepJob:
    """Sleeps ``seconds``, logs the run, returns a checkable result."""

    name: str
    seconds: float = 0.2
    log: str = ""
    #: the result cache the job's result goes to: a run that starts while a valid result
    #: of this job is already stored there logs ``DUPLICATE <key>`` (a recomputation)
    cache: str = ""

    @property
    def key(self) -> str:
        return f"sleep/{self.name}"

    def already_stored(self) -> bool:
        """True when the cache holds a valid result of this job (schema, name, value)."""
        if not self.cache:
            return False
        from golden.jobs.cache import checked_entry
        from golden.jobs.entries import entry_name
        data, problem = checked_entry(Path(self.cache) / entry_name(self.key), self)
        return data is not None and data.get("value") == expected_value(self.name)

    def run(self) -> dict:
        if self.log:
            line = f"{self.key} {os.getpid()}\n"
            if self.already_stored():
                line += f"DUPLICATE {self.key}\n"
            fd = os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line.encode())
            finally:
                os.close(fd)
        t0 = time.perf_counter()
        time.sleep(self.seconds)
        return {"name": self.name, "seconds": self.seconds, "log": self.log, "cache": self.cache,
                "key": self.key,
                "outputs_match": True, "value": expected_value(self.name),
                "wall_seconds": time.perf_counter() - t0, "cpu_seconds": 0.0}


class FakeFinder:
    """Dependency finder of SleepJobs: the same fixed map for every job."""

    def job_dependencies(self, job) -> dict:
        return dict(FAKE_DEPS)


def jobs(n: int, seconds: float, log: str, cache: str = "") -> list[SleepJob]:
    return [SleepJob(f"j{i:03d}", seconds, log, cache) for i in range(n)]


def main(argv=None) -> int:
    from golden.jobs.cache import ResultCache
    from golden.jobs.executors import run_jobs
    from golden.errors import SimtlabError
    from golden.workers import Interrupted, interrupted_exit
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", required=True)
    ap.add_argument("--n", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=0.2)
    ap.add_argument("--log", default="")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--executor", default="local")
    ap.add_argument("--archive", action="append", default=[])
    a = ap.parse_args(argv)
    try:
        cache = ResultCache(a.cache, archive=a.archive, finder=FakeFinder())
        res = run_jobs(jobs(a.n, a.seconds, a.log, str(cache.root)), workers=a.j, cache=cache,
                       derive_passive=False, executor=a.executor)
    except (Interrupted, KeyboardInterrupt) as e:
        return interrupted_exit(e)
    except SimtlabError as e:
        print(f"simtlab: error: {e}", file=sys.stderr)
        return 2
    print(json.dumps({k: r.get("value", r.get("error")) for k, r in res.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
