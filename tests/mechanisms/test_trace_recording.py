"""golden/mechanisms/ilp/trace.py ``_record``, the recording run every real-kernel trace
recorder shares (ILP scoreboard and gshare, UV, CAPRI, WarpMan): it stops the timing run
once the trace holds ``max_cycles`` cycles, and checks the outputs of a run that ends
before the cap."""

from __future__ import annotations

import pytest

from golden.errors import SimtlabError
from golden.mechanisms.ilp import trace as ilp_trace
from golden.structures.trace import read_trace
from golden.structures.ilp import Scoreboard


def _count_launch_ends(monkeypatch):
    """Count completed ``run_workload`` calls (a stopped run never returns)."""
    from golden.workloads import registry
    done = []
    real = registry.run_workload

    def counting(*a, **k):
        run = real(*a, **k)
        done.append(run)
        return run
    monkeypatch.setattr(registry, "run_workload", counting)
    return done


def test_a_full_trace_stops_the_run_and_replays_on_golden(tmp_path, monkeypatch):
    done = _count_launch_ends(monkeypatch)
    path = ilp_trace.record_scoreboard_trace("BS", tmp_path / "sb.jsonl", max_cycles=40,
                                             overrides={"core.num_sms": 1})
    assert done == []                       # the run was stopped, not finished
    tr = read_trace(path)
    assert len(tr.cycles) == 40 and tr.meta["workload"] == "BS"
    golden = Scoreboard(tr.params)
    for ops, out in tr.cycles:
        assert golden.step(ops) == out


def test_a_run_that_ends_before_the_cap_is_checked_against_the_reference(tmp_path, monkeypatch):
    done = _count_launch_ends(monkeypatch)
    path = ilp_trace.record_scoreboard_trace("VA", tmp_path / "sb.jsonl", max_cycles=10**9)
    assert len(done) == 1 and not done[0].mismatches()
    assert 0 < len(read_trace(path).cycles) < 10**9

    class _Wrong:                           # a run whose outputs differ is refused
        def __init__(self, run):
            self._run = run

        def __getattr__(self, a):
            return getattr(self._run, a)

        def mismatches(self):
            return ["out: 1 of 1 elements differ"]
    from golden.workloads import registry
    real = registry.run_workload
    monkeypatch.setattr(registry, "run_workload", lambda *a, **k: _Wrong(real(*a, **k)))
    with pytest.raises(SimtlabError, match="outputs differ"):
        ilp_trace.record_scoreboard_trace("VA", tmp_path / "x.jsonl", max_cycles=10**9)
