"""Cosimulation on real traces: every DARSIE structure's RTL replays the transactions the
golden DARSIE mechanism performed while running MM, DCT and HS (small) on the timing
model (:mod:`tb.darsie.golden_traces`), scored cycle by cycle against the recorded
outputs and a fresh golden model. Traces are generated into ``build/darsie_traces`` at
test time (reused while present). Slow: three timing runs plus five simulator builds."""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

from golden.structures.darsie import STRUCTURES, read_trace
from tb.darsie import cocotb_bench as bench
from tb.darsie.golden_traces import WORKLOADS, record_workload_traces

OUT = Path(__file__).resolve().parents[2] / "build" / "darsie_traces"


@pytest.fixture(scope="module")
def trace_root():
    # pytest-xdist workers share build/: one records while the others wait on the lock,
    # then find the stamp and reuse the traces (no reader sees a half-written file).
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            for w in WORKLOADS:
                record_workload_traces(w, OUT)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return OUT


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(STRUCTURES))
def test_real_workload_traces_cocotb(name, trace_root, monkeypatch):
    found = {read_trace(p).meta.get("workload") for p in trace_root.rglob("*.jsonl")
             if read_trace(p).structure == name}
    assert set(WORKLOADS) <= found, f"{name}: traces missing for {set(WORKLOADS) - found}"
    monkeypatch.setenv(bench.ENV_TRACE_DIR, str(trace_root))
    assert bench.run_trace_dir(name, f"tb.darsie.test_{name}") >= len(WORKLOADS)
