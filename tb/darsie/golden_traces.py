"""Record DARSIE structure traces from golden timing runs of real 2D workloads.

:func:`record_workload_traces` runs a workload (size ``small``) on the ``pascal`` timing
model with the DARSIE mechanism recording JSON-lines traces (SM 0's PC skip table and PC
coalescer, TB slot 0's rename table, version table and physical register freelist; see
:class:`golden.mechanisms.darsie.skip.DarsieParams`). Sizes are reduced where the RTL
would otherwise be slow to simulate (4 skip-table TB slots, 16-bit PCs); the rest are the
paper's (8 entries per TB, 32 warps, 32 renaming registers, 5-bit versions). Each trace is
cut to its first ``max_cycles`` cycles (a prefix of a trace from reset is a trace).

The files go to ``<out>/<workload>/`` and are generated at test time (``build/``), never
committed. A ``stamp.json`` per workload lets a second call reuse them.
"""

from __future__ import annotations

import json
from pathlib import Path

#: Workloads whose traces the cosimulation replays (2D TBs, DARSIE §6.1).
WORKLOADS = ("MM", "DCT", "HS")
#: Cycles kept per trace file.
MAX_CYCLES = 1500


def _cut(path: Path, max_cycles: int) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    if len(lines) > max_cycles + 1:
        path.write_text("\n".join(lines[:max_cycles + 1]) + "\n", encoding="utf-8")


def record_workload_traces(workload: str, out: str | Path, seed: int = 0,
                           max_cycles: int = MAX_CYCLES) -> list[Path]:
    """Record (or reuse) the traces of ``workload``; return the trace files."""
    from golden.configs import load_config
    from golden.mechanisms.darsie.skip import DarsieMechanism, DarsieParams
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry

    d = Path(out) / workload
    stamp = d / "stamp.json"
    want = {"workload": workload, "seed": seed, "max_cycles": max_cycles, "format": 1}
    if stamp.exists() and json.loads(stamp.read_text()) == want:
        return sorted(d.glob("*.jsonl"))
    d.mkdir(parents=True, exist_ok=True)
    for old in d.glob("*.jsonl"):
        old.unlink()
    cfg = load_config("pascal")
    params = DarsieParams(skip_tbs=4, pc_width=16, trace_dir=str(d),
                          trace_meta={"workload": workload, "seed": seed, "size": "small"})
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
