"""Cosimulation on real traces: every DARSIE structure's RTL replays the transactions the
golden DARSIE mechanism performed while running MM, DCT and HS (small) on the timing
model (:mod:`tb.darsie.golden_traces`: whole runs, paper sizes, a small-table stress
variant and a 2-entry rename table; each trace file cut to its first 600 cycles unless
``SIMTLAB_DARSIE_TRACE_CYCLES`` says otherwise, 0 = whole runs), scored cycle by cycle
against the recorded outputs and a fresh golden model.
Traces are generated into ``build/darsie_traces`` at test time (reused while present).
Part of ``make test``: nine timing runs (~45 s) plus one replay per structure and size."""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

from golden.structures.darsie import STRUCTURES
from golden.structures.trace import read_trace
from tb.darsie import cocotb_bench as bench
from tb.darsie.golden_traces import VARIANTS, WORKLOADS, record_workload_traces, trace_cycles

OUT = Path(__file__).resolve().parents[2] / "build" / "darsie_traces"


@pytest.fixture(scope="module")
def trace_root():
    # pytest-xdist workers share build/: each (variant, workload) recording has its own lock.
    # A first pass records the ones no other worker is recording (so two workers split the
    # nine runs); a second pass waits for the rest. A finished recording leaves a stamp that
    # the others reuse; no reader sees a half-written file.
    OUT.mkdir(parents=True, exist_ok=True)
    pending = [(v, w) for v in VARIANTS for w in WORKLOADS]
    for flags in (fcntl.LOCK_EX | fcntl.LOCK_NB, fcntl.LOCK_EX):
        for variant, w in list(pending):
            with open(OUT / f".lock-{variant}-{w}", "w") as lock:
                try:
                    fcntl.flock(lock, flags)
                except BlockingIOError:
                    continue                      # another worker records it: later
                try:
                    record_workload_traces(w, OUT, max_cycles=trace_cycles(), variant=variant)
                finally:
                    fcntl.flock(lock, fcntl.LOCK_UN)
            pending.remove((variant, w))
    return OUT


@pytest.mark.parametrize("name", sorted(STRUCTURES))
def test_real_workload_traces_cocotb(name, trace_root, monkeypatch):
    found = {read_trace(p).meta.get("workload") for p in trace_root.rglob("*.jsonl")
             if read_trace(p).structure == name}
    assert set(WORKLOADS) <= found, f"{name}: traces missing for {set(WORKLOADS) - found}"
    monkeypatch.setenv(bench.ENV_TRACE_DIR, str(trace_root))
    assert bench.run_trace_dir(name, f"tb.darsie.test_{name}") >= len(WORKLOADS) * len(VARIANTS)


#: Rare states the real traces must reach (a regression guard on the recording). What they
#: do not reach -- the skip table's second read port hitting (the mechanism steps the table
#: one transaction at a time on port 0; the two-port arbitration is the PC coalescer's
#: trace) -- is covered by the random and directed runs only. Evictions come from the
#: stress variant, which replaces in a full bank; a full rename table from rename-full.
REAL_TRACE_GOALS = {
    "skip_table": ("rd0_hit", "rd_sync", "rd_leader_wb", "arrive_done", "full", "store",
                   "majority_write", "flush_tb", "alloc_evict"),
    "pc_coalescer": ("all_ports", "merged", "leftover"),
    "rename_table": ("set_hit", "old_shared", "old_private", "drop", "clear", "full",
                     "all_used"),
    "version_table": ("ins_new", "rm_hit"),
    "phys_freelist": ("alloc", "alloc_last", "free_ok"),
}


def test_real_traces_reach_the_rare_states(trace_root):
    from collections import Counter

    from tb.darsie.benches import BENCHES
    cov: dict[str, Counter] = {name: Counter() for name in STRUCTURES}
    for path in sorted(trace_root.rglob("*.jsonl")):
        trace = read_trace(path)
        bench_ = BENCHES[trace.structure]
        count, golden = bench_.cover(trace.params), bench_.golden(trace.params)
        for ops, _ in trace.cycles:
            count(golden.step(ops), ops, cov[trace.structure])
    missing = {name: [g for g in goals if cov[name][g] == 0] for name, goals in REAL_TRACE_GOALS.items()}
    assert not any(missing.values()), f"real traces no longer reach {missing}; counts {cov}"


def test_trace_cycles_follow_the_environment(monkeypatch):
    from tb.darsie.golden_traces import CYCLES_ENV, MAX_CYCLES, trace_cycles
    monkeypatch.delenv(CYCLES_ENV, raising=False)
    assert trace_cycles() == MAX_CYCLES == 600
    monkeypatch.setenv(CYCLES_ENV, "0")
    assert trace_cycles() is None                     # whole runs
    monkeypatch.setenv(CYCLES_ENV, " 250 ")
    assert trace_cycles() == 250
    for bad in ("lots", "-3"):
        monkeypatch.setenv(CYCLES_ENV, bad)
        with pytest.raises(ValueError, match=CYCLES_ENV):
            trace_cycles()
