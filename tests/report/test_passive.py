"""Plain runs derived from passive observer runs (golden.jobs.passive)."""

import pytest

from golden.jobs import executors
from golden.jobs.cache import ResultCache
from golden.jobs.passive import PASSIVE, derive, is_observer_run, observer_for
from golden.report.runner import TimingJob, run_job

CASES = [("BFS", "quadro_fx5800", "capri-oracle:sweep=true"),
         ("HS", "gtx480_warpman", "warp-lifetimes")]


def _timeless(r):
    return {k: v for k, v in r.items() if k not in ("cpu_seconds", "wall_seconds", "derived_from")}


@pytest.mark.parametrize("workload,config,observer", CASES)
def test_observer_runs_are_passive_so_derivation_is_exact(workload, config, observer):
    """Every field of the plain run (cycles, stalls, energy, counters, outputs) equals the
    one derived from the observer run: the observers are passive on real kernels."""
    plain = TimingJob(workload, config, size="small")
    obs = TimingJob(workload, config, size="small", mechanisms=(observer,))
    o = run_job(obs)
    assert o["timing"]["mechanism"], "the observer counted nothing: the case tests nothing"
    d = derive(o, plain)
    assert d["derived_from"] == obs.key and d["cpu_seconds"] == 0.0
    assert _timeless(d) == _timeless(run_job(plain))


def test_only_all_passive_runs_answer_plain_runs():
    assert PASSIVE == {"capri-oracle", "warp-lifetimes"}
    plain = TimingJob("HS", "gtx480_warpman", size="small")
    lone = TimingJob("HS", "gtx480_warpman", size="small", mechanisms=("warp-lifetimes",))
    mixed = TimingJob("HS", "gtx480_warpman", size="small",
                      mechanisms=("warpman-duel", "warp-lifetimes"))
    other = TimingJob("HS", "gtx480", size="small", mechanisms=("warp-lifetimes",))
    assert is_observer_run(lone) and not is_observer_run(mixed) and not is_observer_run(plain)
    deps = {j.key: {"a.py": "1"} for j in (plain, lone, mixed, other)}
    assert observer_for(plain, [mixed, other, lone], deps) is lone
    assert observer_for(plain, [mixed, other], deps) is None
    assert observer_for(lone, [lone], deps) is None            # only plain runs are derived
    assert observer_for(plain, [lone], {**deps, lone.key: {"a.py": "2"}}) is None  # other source
    assert observer_for(plain, [lone], {lone.key: deps[lone.key]}) is None         # unknown deps
    failed = derive({"key": lone.key, "error": "boom"}, plain)
    assert failed["key"] == plain.key and "boom" in failed["error"]


def test_a_batch_simulates_the_observer_run_only_and_caches_both(tmp_path, monkeypatch, capsys):
    ran = []
    real = executors.run_job_safe
    monkeypatch.setattr(executors, "run_job_safe", lambda j: (ran.append(j.key), real(j))[1])
    plain = TimingJob("BP", "quadro_fx5800", size="small")
    obs = TimingJob("BP", "quadro_fx5800", size="small", mechanisms=("capri-oracle",))
    cache = ResultCache(tmp_path, archive=[])
    res = executors.run_jobs([plain, obs], workers=1, progress=False, cache=cache)
    assert ran == [obs.key]
    assert res[plain.key]["derived_from"] == obs.key and res[plain.key]["cycles"] == res[obs.key]["cycles"]
    assert cache.get(plain)["derived_from"] == obs.key             # stored like a simulation
    again = executors.run_jobs([plain, obs], workers=1, progress=False, cache=cache)
    assert ran == [obs.key] and again[plain.key]["from_cache"]
    # a plain result derived from a cached observer run is stored too
    for f in tmp_path.glob("*.json"):
        if '"key": "BP/quadro_fx5800/baseline/' in f.read_text():
            f.unlink()
    assert cache.get(plain) is None
    executors.run_jobs([plain, obs], workers=1, progress=False, cache=cache)
    assert ran == [obs.key] and cache.get(plain)["derived_from"] == obs.key
    # without the observer run in the batch the plain run is simulated (or read from cache)
    executors.run_jobs([TimingJob("FFT", "quadro_fx5800", size="small")], workers=1,
                       progress=False, cache=cache)
    assert ran[-1] == "FFT/quadro_fx5800/baseline/small/s0"
