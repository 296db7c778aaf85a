"""Deferred register-only execution (FunctionalLaunch.defer_registers, issue 12 item 2;
off by default, GPU.defer_registers) leaves every statistic and every output of the
timing model unchanged."""

import numpy as np
import pytest

from golden.report.runner import TimingJob, run_job
from golden.simt.engine import FunctionalLaunch
from golden.timing.gpu import GPU

# regular, divergent, predicated, atomic, multi-launch and carry-flag (64-bit division
# through libdevice) workloads on four GPUs
# (deferral is off by default: make test runs the first two cases, make test-sweep all)
_SWEEP = pytest.mark.sweep
CASES = [("MM", "pascal"), ("BFS", "pascal"),
         *(pytest.param(w, c, marks=_SWEEP) for w, c in (
             ("NQU", "gtx480"), ("MUM", "fx5800"), ("SP", "gtx285"), ("KMEANS", "pascal"),
             ("LBM", "gtx480"), ("STO", "gtx280")))]


def _strip(r):
    return {k: v for k, v in r.items() if k not in ("wall_seconds", "cpu_seconds")}


@pytest.mark.parametrize("workload,config", CASES)
def test_deferral_changes_no_statistic(workload, config, monkeypatch, shrink_small):
    shrink_small.tiny(workload)
    job = TimingJob(workload, config, size="small")
    monkeypatch.setattr(GPU, "defer_registers", True)
    lazy = run_job(job)
    monkeypatch.setattr(GPU, "defer_registers", False)
    eager = run_job(job)
    assert lazy["outputs_match"] and eager["outputs_match"]
    assert _strip(lazy) == _strip(eager)


# mechanisms that leave deferral on (reads_wave_registers False): they read no register
# value, or read them through FunctionalLaunch.warp_register, or write them (DARSIE's
# skips, which force the overwritten registers first); configs as their reports use them
MECH_CASES = [("MM", "pascal", ("darsie",)), ("HS", "pascal", ("darsie",)),
              ("BFS", "pascal", ("darsie-ignore-store",)), ("CP", "pascal", ("darsie-no-cf-sync",)),
              ("MM", "pascal", ("dac-ideal",)),
              ("HS", "gtx480_warpman", ("warpman-spatial",)),
              ("ST", "gtx480_warpman", ("warpman-duel", "warp-lifetimes")),
              ("MM", "gtx480", ("coarse4-duel",)),
              ("NQU", "gtx280_ilp", ("ilp-sc", "ilp-bp-gshare")),
              ("MUM", "fx5800", ("capri-oracle",))]
# make test-sweep only (deferral is off by default): HS-darsie (MM-darsie covers the
# mechanism), NQU-ilp, MUM-capri-oracle and the second WarpMan case, 0.5-1.5 min each
_SWEEP_MECH_IDS = {"HS-pascal-darsie", "NQU-gtx280_ilp-ilp-sc+ilp-bp-gshare",
                   "MUM-fx5800-capri-oracle", "ST-gtx480_warpman-warpman-duel+warp-lifetimes"}
# (TBC and CAPRI form every warp dynamically: FunctionalLaunch.step_threads runs eagerly)


def test_mechanisms_declare_how_they_read_registers():
    from golden.configs.loader import load_config
    from golden.mechanisms.registry import MECHANISMS, make_mechanisms
    cfg = load_config("pascal")
    lazy = {name for name in MECHANISMS
            if not any(m.reads_wave_registers for m in make_mechanisms((name,), cfg))}
    # G-Scalar and UV read every instruction's operand values: eager execution
    assert lazy == set(MECHANISMS) - {"gscalar", "gscalar-half", "alu-scalar", "uv"} - {
        n for n in MECHANISMS if n.startswith("uv-")}


@pytest.mark.parametrize("workload,config,mechs", [
    pytest.param(w, c, m, id=name, marks=[_SWEEP] if name in _SWEEP_MECH_IDS else [])
    for w, c, m in MECH_CASES for name in [f"{w}-{c}-{'+'.join(m)}"]])
def test_deferral_under_mechanisms_changes_no_statistic(workload, config, mechs, monkeypatch,
                                                        shrink_small):
    shrink_small.tiny(workload)
    job = TimingJob(workload, config, size="small", mechanisms=mechs)
    deferred = []
    defer = FunctionalLaunch._defer
    monkeypatch.setattr(FunctionalLaunch, "_defer",
                        lambda self, *a: (deferred.append(1), defer(self, *a))[1])
    monkeypatch.setattr(GPU, "defer_registers", True)
    lazy = run_job(job)
    assert deferred, "no instruction ran deferred: the case tests nothing"
    monkeypatch.setattr(GPU, "defer_registers", False)
    eager = run_job(job)
    assert lazy["outputs_match"] and eager["outputs_match"]
    assert _strip(lazy) == _strip(eager)
