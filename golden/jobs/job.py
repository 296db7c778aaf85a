"""What a job of the engine is, and how one job runs in this process.

A **job** is a frozen dataclass with a stable ``key`` (the name its result is stored
under) and either is a :class:`TimingJob` (one timing-mode simulation: a workload on a
configuration with mechanisms, run by :func:`run_job`) or carries its own ``run() ->
dict`` (:class:`WorkloadProbe` and the reports' own kinds: functional probes, concurrent
sessions, occupancy and locality tables). The rest of the engine (:mod:`golden.jobs.executors`
runs many, :mod:`golden.jobs.cache` stores them, :mod:`golden.jobs.deps` names the files a
result depends on, :mod:`golden.jobs.rekey` carries results across edits) only needs this.

A timing job's result is a dict: the job's fields, ``outputs_match`` (kernel outputs equal
the numpy reference), ``cycles``, ``ipc``, ``timing`` (merged :class:`TimingStats` of all
launches, as a dict), ``energy`` (:class:`EnergyReport` dict), ``stall_fractions``,
``wall_seconds``, ``cpu_seconds`` (process time) and ``output_digest`` (SHA-256 over the
raw output arrays, so reports can check a mechanism left outputs bit-identical to the
baseline). Each job runs on its own fresh device, so results do not depend on the number
of workers or on the order jobs finish (deterministic).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import asdict, dataclass, field
from typing import ClassVar

import numpy as np

from golden.configs import load_config
from golden.mechanisms.registry import make_mechanisms
from golden.workloads import registry

__all__ = ["TimingJob", "WorkloadProbe", "output_digest", "run_job", "timed_run"]


@dataclass(frozen=True)
class TimingJob:
    """One timing-mode simulation: a workload on a configuration with mechanisms."""

    workload: str
    config: str
    size: str = "small"
    seed: int = 0
    mechanisms: tuple = ()
    #: config overrides as ``(("core.scheduler", "gto"), ...)`` (see golden.configs.loader)
    overrides: tuple = field(default=())

    @property
    def key(self) -> str:
        """Stable name of the job (used to find its result)."""
        mech = "+".join(self.mechanisms) or "baseline"
        ov = "".join(f",{k}={v}" for k, v in self.overrides)
        return f"{self.workload}/{self.config}/{mech}/{self.size}/s{self.seed}{ov}"


def timed_run(job, compute) -> dict:
    """Result record of a job kind that is not a :class:`TimingJob` (a functional probe, a
    recorded timing run...): ``compute()``'s dict with the job's fields, its key and the
    wall and CPU seconds it took."""
    t0, c0 = time.perf_counter(), time.process_time()
    d = compute()
    return {**asdict(job), "key": job.key, **d, "wall_seconds": time.perf_counter() - t0,
            "cpu_seconds": time.process_time() - c0}


@dataclass(frozen=True)
class WorkloadProbe:
    """A per-workload job that is not a timing simulation (a functional run, an analysis),
    run in the worker pool and cached like one. Subclasses name their ``KIND`` (the key's
    first part) and implement ``compute() -> dict``; the result is :func:`timed_run`'s."""

    KIND: ClassVar[str] = ""
    workload: str
    size: str = "small"
    seed: int = 0

    @property
    def key(self) -> str:
        return f"{self.KIND}/{self.workload}/{self.size}/s{self.seed}"

    def compute(self) -> dict:
        raise NotImplementedError

    def run(self) -> dict:
        return timed_run(self, self.compute)


def output_digest(outputs: dict) -> str:
    """SHA-256 over the output arrays' names, dtypes, shapes and raw bytes."""
    h = hashlib.sha256()
    for name in sorted(outputs):
        a = np.ascontiguousarray(np.asarray(outputs[name]))
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def run_job(job) -> dict:
    """Run one :class:`TimingJob` in this process; return its result dict. Other job kinds
    (e.g. the reports' :class:`golden.report.hetero.ConcurrentJob`) carry their own ``run()``."""
    if not isinstance(job, TimingJob):
        return job.run()
    # lazy only for start-up speed (about 0.9 s): the cache commands and cached-only
    # reports import the engine without ever simulating
    from golden.timing.stats import TimingStats
    from golden.timing.timing_device import TimingDevice

    cfg = load_config(job.config, dict(job.overrides) if job.overrides else None)
    mechs = make_mechanisms(job.mechanisms, cfg)
    dev = TimingDevice(cfg, mechanisms=mechs, echo_printf=False)
    t0, c0 = time.perf_counter(), time.process_time()
    run = registry.run_workload(registry.get(job.workload), size=job.size, seed=job.seed, device=dev)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    total = TimingStats.merged([s.timing for s in run.stats], concurrent=False)
    energy = dev.energy_model.compute(total, cfg)
    return {**asdict(job), "key": job.key, "config_name": cfg.name,
            "outputs_match": not run.mismatches(), "output_digest": output_digest(run.outputs),
            "launches": len(run.stats), "cycles": total.cycles, "ipc": total.ipc,
            "timing": total.to_dict(), "stall_fractions": total.stall_fractions(),
            "energy": energy.to_dict(), "wall_seconds": wall, "cpu_seconds": cpu}
