"""Run many timing-mode simulations in parallel worker processes (the reports' engine).

A report (``golden/report/<name>.py``) declares the simulations it needs as
:class:`TimingJob` values (``jobs(opts)``) and turns their results into Markdown and
JSON (``render(results, opts)``). :func:`run_jobs` runs the union of every requested
report's jobs once (the baseline runs are shared by all reports), in ``workers``
processes, each job with its own fresh device, so results do not depend on the number of
workers or on the order jobs finish (deterministic).

A job's result is a dict: the job's fields, ``outputs_match`` (kernel outputs equal the
numpy reference), ``cycles``, ``ipc``, ``timing`` (merged :class:`TimingStats` of all
launches, as a dict), ``energy`` (:class:`EnergyReport` dict), ``stall_fractions``,
``wall_seconds``, ``cpu_seconds`` (process time) and ``output_digest`` (SHA-256 over the raw output arrays, so reports can
check a mechanism left outputs bit-identical to the baseline).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import asdict, dataclass, field
from typing import ClassVar

import numpy as np


@dataclass(frozen=True)
class ReportOptions:
    """What the user asked for: input size, seed, worker processes."""

    size: str = "small"
    seed: int = 0
    jobs: int = 1
    #: baseline report: every workload on every config, not only each seed's workloads
    all_configs: bool = False


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


def standing_for(prefix: str) -> list[str]:
    """Workloads with a ``stands_for`` entry that begins with ``prefix`` (a seed's name as
    the entries write it: ``"UV"``, ``"WarpMan"``, ``"CAPRI"``...), sorted."""
    from golden.workloads import registry
    return sorted(n for n, w in registry.all_workloads().items()
                  if any(s.startswith(prefix) for s in w.stands_for))


def stands_for_entry(workload: str, prefix: str) -> str | None:
    """The text after the colon of ``workload``'s first ``stands_for`` entry that begins
    with ``prefix`` (e.g. ``"RayTracing (RAY), 6 warps per TB"``), or None."""
    from golden.workloads import registry
    for s in registry.get(workload).stands_for:
        if s.startswith(prefix):
            return s.split(":", 1)[1].strip()
    return None


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
        md.append(f"| {w} | " + " | ".join(cells) + " |")
    gm = {p: geomean(v) for p, v in cols.items()}
    md.append("| **geomean** | " + " | ".join(f"**{gm[p]:.3f}**" for p in points) + " |")
    return md, rows, gm


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
    (e.g. :class:`golden.report.hetero.ConcurrentJob`) carry their own ``run()``."""
    if not isinstance(job, TimingJob):
        return job.run()
    from golden.configs import load_config
    from golden.mechanisms.registry import make_mechanisms
    from golden.timing.stats import TimingStats
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry

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


def run_jobs(jobs, workers: int = 1, progress: bool = True, cache=None, executor: str = "local",
             scheduler: str | None = None) -> dict[str, dict]:
    """Run every distinct job once; see :func:`golden.report.executors.run_jobs`."""
    from golden.report.executors import run_jobs as run
    return run(jobs, workers=workers, progress=progress, cache=cache, executor=executor,
               scheduler=scheduler)


def geomean(values) -> float:
    """Geometric mean of positive values (nan if there are none)."""
    v = np.asarray([x for x in values if x is not None and x > 0], dtype=float)
    return float(np.exp(np.log(v).mean())) if v.size else float("nan")
