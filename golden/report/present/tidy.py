"""The reports' results as one tidy table: ``results.csv``.

One row per report x simulation x metric, so ``pandas.read_csv("build/results/results.csv")``
gives a long table ready for ``pivot_table`` / seaborn. Columns (:data:`COLUMNS`):

* ``report`` -- the report that asked for the simulation (a simulation shared by several
  reports appears once per report);
* ``kind`` -- ``timing`` for timing-mode simulations, else the job kind
  (``functional``, ``occupancy``, ``locality``, ``limit``, ``gscalar-stats``, ``concurrent``...);
* ``workload``, ``config``, ``mechanism`` (``baseline`` or ``a+b`` with arguments),
  ``size``, ``seed``, ``overrides`` (``key=value;...``);
* ``metric``, ``value`` (a number; booleans as 0/1).

Metrics of a timing simulation: ``cycles``, ``ipc``, every counter of its merged
:class:`~golden.timing.stats.TimingStats` that is a number (``instructions_issued``...),
``stall.<reason>`` (share of scheduler cycles), ``energy.total_j`` / ``dynamic_j`` /
``static_j`` and ``energy.component.<name>_j``, ``outputs_match``, ``outputs_identical_to_baseline``
and ``speedup`` (cycles of the same workload, config, size, seed and overrides without
mechanisms / cycles) when that baseline ran. Mechanism counters appear as
``mechanism.<name>``. Other job kinds contribute their numeric top-level fields.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import replace

from golden.report.present.estimates import Estimate
from golden.report.runner import TimingJob

COLUMNS = ("report", "kind", "workload", "config", "mechanism", "size", "seed", "overrides",
           "metric", "value")

#: top-level fields of a result that describe the job, not a measurement
_JOB_FIELDS = {"workload", "config", "size", "seed", "mechanisms", "overrides", "key",
               "config_name", "wall_seconds", "cpu_seconds", "output_digest", "from_cache",
               "launches", "simulated_at"}


def _num(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)) and math.isfinite(v):
        return v
    return None


def _kind(job) -> str:
    return "timing" if isinstance(job, TimingJob) else job.key.split("/", 1)[0]


def _base_key(job) -> str | None:
    """Key of the baseline of a timing job (same everything, no mechanisms)."""
    if not isinstance(job, TimingJob) or not job.mechanisms:
        return None
    return replace(job, mechanisms=()).key


def metrics_of(result: dict, base: dict | None) -> list[tuple[str, float]]:
    """``(metric, value)`` pairs of one result (see the module docstring)."""
    out: list[tuple[str, float]] = []
    if "timing" in result:
        t = result["timing"]
        for k in ("cycles", "ipc"):  # other job kinds with a timing dict may lack them
            if _num(result.get(k)) is not None:
                out.append((k, result[k]))
        for k, v in sorted(t.items()):
            if k == "mechanism" and isinstance(v, dict):
                out += [(f"mechanism.{mk}", _num(mv)) for mk, mv in sorted(v.items())
                        if _num(mv) is not None]
            elif _num(v) is not None and k not in ("cycles",):
                out.append((k, _num(v)))
        for k, v in sorted(result.get("stall_fractions", {}).items()):
            out.append((f"stall.{k}", v))
        e = result.get("energy", {})
        for k in ("total_j", "dynamic_j", "static_j"):
            if _num(e.get(k)) is not None:
                out.append((f"energy.{k}", e[k]))
        for name, comp in sorted(e.get("components", {}).items()):
            if isinstance(comp, dict) and _num(comp.get("joules")) is not None:
                out.append((f"energy.component.{name}_j", comp["joules"]))
        out.append(("outputs_match", int(bool(result.get("outputs_match")))))
        if base is not None and "timing" in base and "error" not in base:
            if result.get("output_digest") is not None:
                out.append(("outputs_identical_to_baseline",
                            int(result["output_digest"] == base.get("output_digest"))))
            if result.get("cycles") and base.get("cycles"):
                out.append(("speedup", base["cycles"] / result["cycles"]))
        return out + interval_bounds(out)
    for k, v in sorted(result.items()):
        if k in _JOB_FIELDS:
            continue
        if _num(v) is not None:
            out.append((k, _num(v)))
    return out


def interval_bounds(metrics: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """``(<metric>.low, lo)``, ``(<metric>.high, hi)`` of every sampled estimate among
    ``metrics`` (``simtlab report --sample``: :mod:`golden.report.present.estimates`) whose
    95% interval is known; nothing for plain numbers."""
    out = []
    for m, v in metrics:
        if isinstance(v, Estimate) and v.low is not None and v.high is not None:
            out += [(f"{m}.low", v.low), (f"{m}.high", v.high)]
    return out


def tidy_rows(results: dict, jobs_of: dict) -> list[dict]:
    """Rows of :data:`COLUMNS` for every successful result of every report's jobs."""
    rows = []
    for report, jobs in jobs_of.items():
        seen = set()
        for job in jobs:
            if job.key in seen:
                continue
            seen.add(job.key)
            r = results.get(job.key)
            if r is None or "error" in r:
                continue
            bk = _base_key(job)
            base = results.get(bk) if bk else None
            mech = "+".join(getattr(job, "mechanisms", ()) or ()) or "baseline"
            ov = ";".join(f"{k}={v}" for k, v in (getattr(job, "overrides", ()) or ()))
            head = {"report": report, "kind": _kind(job),
                    "workload": getattr(job, "workload", ""), "config": getattr(job, "config", ""),
                    "mechanism": mech if _kind(job) == "timing" else "",
                    "size": getattr(job, "size", ""), "seed": getattr(job, "seed", ""),
                    "overrides": ov}
            for metric, value in metrics_of(r, base):
                rows.append({**head, "metric": metric, "value": value})
    return rows


def to_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for row in rows:
        w.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
    return buf.getvalue()
