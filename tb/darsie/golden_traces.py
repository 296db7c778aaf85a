"""Record DARSIE structure traces from golden timing runs of real 2D workloads.

:func:`record_workload_traces` runs a workload (size ``small``) on the ``pascal`` timing
model with the DARSIE mechanism recording JSON-lines traces (SM 0's PC skip table and PC
coalescer, TB slot 0's rename table, version table and physical register freelist; see
:class:`golden.mechanisms.darsie.skip.DarsieParams`) over the whole run (the kernel's
outputs are checked), in one of :data:`VARIANTS`:

* ``paper``: the paper's sizes everywhere (32 TB banks of 8 entries, 48-bit PCs, 32 warps,
  32 renaming registers, 5-bit versions);
* ``stress``: the same kernels with small tables (2 skip entries per TB, 6 renaming
  registers and rename entries, dead versions kept, polling followers, LRU replacement in
  a full skip-table bank), which drives the mechanism into its rare paths: TB
  synchronisation points, the last free register, full tables, evictions;
* ``rename-full``: a 2-entry rename table beside the paper's 32-register freelist, so the
  rename table (not the freelist) is what fills: SETs refused by a full table.

Each trace is cut to its first ``max_cycles`` cycles (a prefix of a trace from reset is a
trace): :data:`MAX_CYCLES` by default, so ``make test`` replays the first 600 transaction
cycles of each of the 27 trace files (about 21 k cycles instead of 75 k for whole runs);
``test_real_traces_reach_the_rare_states`` checks that the prefixes still reach every rare
state it lists. ``SIMTLAB_DARSIE_TRACE_CYCLES=0`` replays whole runs (``N`` keeps ``N``).
The files go to ``<out>/<variant>/<workload>/`` and are generated at test time
(``build/``), never committed. A ``stamp.json`` per run lets a second call reuse them.
"""

from __future__ import annotations

import json
from pathlib import Path

#: Workloads whose traces the cosimulation replays (2D TBs, DARSIE §6.1).
WORKLOADS = ("MM", "DCT", "HS")
#: Cycles kept per trace file by default (None: the whole run); see :func:`trace_cycles`.
MAX_CYCLES: int | None = 600
#: Environment variable overriding :data:`MAX_CYCLES` (``0``: the whole run).
CYCLES_ENV = "SIMTLAB_DARSIE_TRACE_CYCLES"


def trace_cycles() -> int | None:
    """Cycles kept per trace file: ``$SIMTLAB_DARSIE_TRACE_CYCLES`` (``0`` = the whole run)
    when set, else :data:`MAX_CYCLES`."""
    import os
    raw = os.environ.get(CYCLES_ENV, "").strip()
    if not raw:
        return MAX_CYCLES
    try:
        n = int(raw)
    except ValueError:
        raise ValueError(f"{CYCLES_ENV}={raw!r}: expected a whole number of cycles (0 = the "
                         "whole run)") from None
    if n < 0:
        raise ValueError(f"{CYCLES_ENV}={raw!r}: must not be negative (0 = the whole run)")
    return n or None


#: DarsieParams overrides of each recording variant.
VARIANTS: dict[str, dict] = {
    "paper": {},
    "stress": {"entries": 2, "freelist": 6, "rename_entries": 6, "free_dead": False,
               "wait_for_wb": False, "replace_when_full": True},
    "rename-full": {"rename_entries": 2, "free_dead": False},
}


def _cut(path: Path, max_cycles: int | None) -> None:
    if max_cycles is None:
        return
    lines = path.read_text(encoding="utf-8").splitlines()
    if len(lines) > max_cycles + 1:
        path.write_text("\n".join(lines[:max_cycles + 1]) + "\n", encoding="utf-8")


def _recorder_source(workload: str, seed: int) -> str:
    """Digest of every file the recording run depends on: the result cache's dependency
    map (:meth:`golden.jobs.deps.DependencyFinder.job_dependencies`) of the same timing
    job, so traces recorded by older code are recorded again, never reused."""
    import hashlib

    from golden.jobs.deps import default_finder
    from golden.report.runner import TimingJob
    deps = default_finder().job_dependencies(
        TimingJob(workload, "pascal", size="small", seed=seed, mechanisms=("darsie",)))
    return hashlib.sha256(json.dumps(deps, sort_keys=True).encode()).hexdigest()[:16]


def record_workload_traces(workload: str, out: str | Path, seed: int = 0,
                           max_cycles: int | None = MAX_CYCLES,
                           variant: str = "paper") -> list[Path]:
    """Record (or reuse) the traces of ``workload`` in ``variant``; return the trace files.
    ``max_cycles``: cycles kept per file (None: the whole run)."""
    from golden.configs import load_config
    from golden.mechanisms.darsie.skip import DarsieMechanism, DarsieParams
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry

    d = Path(out) / variant / workload
    stamp = d / "stamp.json"
    want = {"workload": workload, "seed": seed, "max_cycles": max_cycles, "format": 2,
            "variant": variant, "params": VARIANTS[variant],
            "source": _recorder_source(workload, seed)}
    if stamp.exists() and json.loads(stamp.read_text()) == want:
        return sorted(d.glob("*.jsonl"))
    d.mkdir(parents=True, exist_ok=True)
    for old in d.glob("*.jsonl"):
        old.unlink()
    cfg = load_config("pascal")
    params = DarsieParams(trace_dir=str(d), **VARIANTS[variant],
                          trace_meta={"workload": workload, "seed": seed, "size": "small",
                                      "variant": variant})
    dev = TimingDevice(cfg, mechanisms=[DarsieMechanism(cfg, params)], echo_printf=False)
    run = registry.run_workload(registry.get(workload), "small", seed, device=dev)
    bad = run.mismatches()
    if bad:
        raise AssertionError(f"{workload}: outputs differ while recording traces: {bad[:2]}")
    files = sorted(d.glob("*.jsonl"))
    for f in files:
        _cut(f, max_cycles)
    stamp.write_text(json.dumps(want))
    return files
