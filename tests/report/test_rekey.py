"""Verified re-keying (``simtlab cache rekey``): stale results move to today's dependency
map only when a witness of their group reproduces its stored result exactly."""

from __future__ import annotations

import json

import pytest

from golden.jobs.cache import ResultCache, cache_info
from golden.jobs.rekey import digests_at_commit, first_differences, plan_rekey, rekey, \
    simulation_part
from golden.report.runner import TimingJob, run_job


def _in_process(jobs, workers):
    return {j.key: run_job(j) for j in jobs}


def _store(cache: ResultCache, result: dict, edit: dict) -> None:
    """Store ``result`` as if it had been simulated on a source where the files of ``edit``
    had other digests."""
    deps = cache.dependencies(TimingJob(result["workload"], result["config"], result["size"],
                                        result["seed"]))
    cache.put(result, {**deps, **edit})


def test_rekey_moves_a_group_on_a_matching_witness_and_keeps_a_differing_one_stale(tmp_path):
    d = tmp_path / "arch"
    cache = ResultCache(d, archive=[])
    a = run_job(TimingJob("VA", "gtx285"))                      # the witness (cheapest)
    b = {**run_job(TimingJob("VA", "gtx285", seed=1)), "cpu_seconds": 1e6}
    c = run_job(TimingJob("VA", "gtx285", seed=2))
    c = {**c, "cycles": c["cycles"] + 1,                          # not what today's model gives
         "timing": {**c["timing"], "cycles": c["cycles"] + 1}}    # (consistent: a valid entry)
    edit_core = {"timing/sm.py": "0" * 20}
    _store(cache, a, edit_core)
    _store(cache, b, edit_core)
    _store(cache, c, {"timing/gpu.py": "1" * 20})
    assert (cache_info(d)["valid"], cache_info(d)["stale"]) == (0, 3)

    plan = plan_rekey(d)
    groups = {g.changed: g for g in plan.groups}
    assert plan.stale == 3 and set(groups) == {("timing/sm.py",), ("timing/gpu.py",)}
    core = groups[("timing/sm.py",)]
    assert [w.job.key for w in core.witnesses] == [a["key"]] and len(core.members) == 2

    n, problems = rekey(plan, runner=_in_process)
    assert n == 2
    assert len(problems) == 1 and c["key"] in problems[0] and "cycles" in problems[0]
    info = cache_info(d)
    assert (info["valid"], info["stale"]) == (2, 1)
    stored_b = cache.get(TimingJob("VA", "gtx285", seed=1))
    assert stored_b["rekeyed"][0]["witnesses"] == [a["key"]]
    assert stored_b["rekeyed"][0]["changed"] == ["timing/sm.py"]
    assert stored_b["cpu_seconds"] == 1e6                        # B itself was not re-run
    assert simulation_part(cache.get(TimingJob("VA", "gtx285"))) == simulation_part(a)
    assert cache.get(TimingJob("VA", "gtx285", seed=2)) is None   # still stale
    assert plan_rekey(d).stale == 1


def test_a_changed_kernel_makes_each_result_its_own_witness(tmp_path):
    d = tmp_path / "arch"
    cache = ResultCache(d, archive=[])
    ptx = sorted(cache.finder.workload_files("VA"))
    assert any(p.endswith(".ptx") for p in ptx)
    for seed in (0, 1):
        r = run_job(TimingJob("VA", "gtx285", seed=seed))
        _store(cache, r, {p: "2" * 20 for p in ptx})
    plan = plan_rekey(d)
    assert len(plan.groups) == 2 and all(len(g.witnesses) == 1 for g in plan.groups)


def test_shared_only_leaves_results_whose_own_workload_files_changed(tmp_path):
    d = tmp_path / "arch"
    cache = ResultCache(d, archive=[])
    ptx = sorted(cache.finder.workload_files("VA"))
    _store(cache, run_job(TimingJob("VA", "gtx285")), {p: "2" * 20 for p in ptx})
    _store(cache, run_job(TimingJob("VA", "gtx285", seed=1)), {"timing/sm.py": "0" * 20})
    assert plan_rekey(d).stale == 2
    plan = plan_rekey(d, shared_only=True)
    assert plan.stale == 1 and plan.other == 1
    assert [g.changed for g in plan.groups] == [("timing/sm.py",)]


def test_first_differences_names_the_leaves():
    old = {"cycles": 10, "timing": {"a": 1, "b": [1, 2]}}
    new = {"cycles": 10, "timing": {"a": 2, "b": [1, 3]}}
    assert first_differences(old, new) == ["timing.a: 1 -> 2", "timing.b: [1, 2] -> [1, 3]"]
    assert simulation_part({"cycles": 1, "cpu_seconds": 3, "rekeyed": []}) == {"cycles": 1}
    assert json.dumps(simulation_part({"x": (1, 2)})) == '{"x": [1, 2]}'


def test_rekey_command_runs_the_witnesses_and_exits_non_zero_on_a_difference(tmp_path, capsys):
    from golden.cli import main
    d = tmp_path / "arch"
    cache = ResultCache(d, archive=[])
    r = run_job(TimingJob("VA", "gtx285"))
    _store(cache, r, {"timing/sm.py": "0" * 20})
    assert main(["cache", "rekey", "--dir", str(d), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "0 valid, 1 stale result(s) in 1 group(s)" in out and "gtx285/baseline" in out
    assert cache_info(d)["stale"] == 1                            # a dry run changes nothing
    w = ["--witness-cache", str(tmp_path / "witnesses")]
    assert main(["cache", "rekey", "--dir", str(d), "-j", "1", *w]) == 0
    assert "re-keyed 1 of 1" in capsys.readouterr().out and cache_info(d)["valid"] == 1
    assert not list((tmp_path / "witnesses").glob("*.json"))     # consumed by its group
    _store(cache, {**r, "ipc": 0.5}, {"timing/sm.py": "0" * 20})
    assert main(["cache", "rekey", "--dir", str(d), "-j", "1", *w]) == 1
    assert "ipc: 0.5 ->" in capsys.readouterr().err
    # the differing witness's run is kept: today's source gives it, whatever was stored
    assert cache_info(tmp_path / "witnesses")["valid"] == 1


def test_witnesses_cover_every_statistic_the_group_counts():
    """A cheap result that never takes some path cannot vouch alone for results that do."""
    from pathlib import Path
    from golden.jobs.rekey import _Stale, choose_witnesses

    def member(name, cost, **counters):
        entry = {"timing": {"cycles": 10, "mechanism": counters}}
        return _Stale(Path(name), entry, TimingJob(name, "x"), {}, (), cost)

    cheap = member("FFT", 30, formed=4)                       # no bypass ever
    mid = member("BP", 50, formed=4, bypass=2)
    big = member("BFS", 1000, formed=4, bypass=9, stall=3)
    other = member("LIB", 400, formed=4, bypass=1)
    chosen = choose_witnesses([big, other, mid, cheap])
    assert [m.job.workload for m in chosen] == ["BFS"]  # alone counts `stall`, covers the rest
    assert [m.job.workload for m in choose_witnesses([cheap, mid], minimum=2)] == ["FFT", "BP"]
    assert [m.job.workload for m in choose_witnesses([cheap, mid])] == ["BP"]


def test_rekey_can_be_limited_to_some_configs(tmp_path):
    d = tmp_path / "arch"
    cache = ResultCache(d, archive=[])
    for config in ("gtx285", "gtx480"):
        _store(cache, run_job(TimingJob("VA", config)), {"timing/sm.py": "0" * 20})
    assert plan_rekey(d).stale == 2
    only = plan_rekey(d, configs=["gtx480"])
    assert only.stale == 1 and only.other == 1
    assert [g.members[0].job.config for g in only.groups] == ["gtx480"]


def test_valid_at_keeps_only_results_that_an_earlier_tree_still_held(tmp_path):
    d = tmp_path / "arch"
    cache = ResultCache(d, archive=[])
    _store(cache, run_job(TimingJob("VA", "gtx285")), {"timing/sm.py": "0" * 20})
    _store(cache, run_job(TimingJob("VA", "gtx480")), {"timing/sm.py": "1" * 20})
    earlier = {"timing/sm.py": "0" * 20}       # sm.py as the earlier tree had it
    plan = plan_rekey(d, digest_at=earlier.get)
    assert plan.stale == 1 and plan.other == 1
    assert [g.members[0].job.config for g in plan.groups] == ["gtx285"]


def test_digests_at_commit_reads_the_files_a_commit_has(tmp_path):
    import subprocess

    from golden.errors import SimtlabError
    from golden.jobs.deps import default_finder

    finder = default_finder()
    head = subprocess.run(["git", "-C", str(finder.root), "rev-parse", "HEAD"],
                          capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    at = digests_at_commit("HEAD", finder)
    clean = subprocess.run(["git", "-C", str(finder.root), "diff", "--quiet", "HEAD", "--",
                            "jobs/rekey.py"]).returncode == 0
    if clean:
        assert at("jobs/rekey.py") == finder.digest(finder.root / "jobs/rekey.py")
    assert at("no/such/file.py") is None
    with pytest.raises(SimtlabError, match="not a commit"):
        digests_at_commit("no-such-commit-name", finder)


def test_an_interrupted_rekey_resumes_from_its_witness_cache(tmp_path, monkeypatch):
    """A witness stored by an earlier, interrupted rekey is not simulated again."""
    import pytest

    import golden.jobs.executors as executors
    d, w = tmp_path / "arch", tmp_path / "witnesses"
    cache = ResultCache(d, archive=[])
    job = TimingJob("VA", "gtx285")
    r = run_job(job)
    _store(cache, r, {"timing/sm.py": "0" * 20})
    # the first attempt finished the witness's run, then the machine went away
    executors.run_jobs([job], cache=ResultCache(w, archive=[]), progress=False,
                       derive_passive=False)
    ran_at = json.loads(next(w.glob("*.json")).read_text())["simulated_at"]
    monkeypatch.setattr(executors, "run_job_safe",
                        lambda j: pytest.fail(f"{j.key} simulated again"))
    n, problems = rekey(plan_rekey(d), progress=False, witness_cache=w)
    assert (n, problems) == (1, [])
    stored = cache.get(job)
    assert simulation_part(stored) == simulation_part(r) and stored["simulated_at"] == ran_at
    assert not list(w.glob("*.json"))


def test_witnesses_are_simulated_not_derived_from_an_observer_run(tmp_path):
    """run_jobs(derive_passive=False) simulates a plain run even beside its passive observer run."""
    from golden.jobs.executors import run_jobs
    from golden.jobs.passive import observer_for
    plain = TimingJob("VA", "quadro_fx5800", "small", 0)
    observer = TimingJob("VA", "quadro_fx5800", "small", 0, ("capri-oracle:sweep=true",))
    cache = ResultCache(tmp_path / "c", archive=[])
    deps = {j.key: cache.dependencies(j) for j in (plain, observer)}
    assert observer_for(plain, [plain, observer], deps) == observer
    out = run_jobs([plain, observer], cache=cache, progress=False, derive_passive=False)
    assert "derived_from" not in out[plain.key]


def test_every_archived_result_names_a_job_kind():
    """Each committed result rebuilds to the job that made it (rekey covers every kind)."""
    from pathlib import Path

    from golden.jobs.kinds import job_kinds, job_of
    kinds = job_kinds()
    assert kinds[0] is TimingJob
    names = {c.__name__ for c in kinds}
    assert {"FunctionalJob", "ConcurrentJob", "OccupancyJob", "LocalityJob"} <= names
    runs = sorted((Path(__file__).parents[2] / "results" / "runs").glob("*.json"))
    assert runs
    for p in runs:
        entry = json.loads(p.read_text())
        job = job_of(entry, kinds)
        assert job is not None and job.key == entry["key"], p.name


def test_job_of_rejects_a_record_whose_fields_do_not_give_its_key():
    r = {"workload": "VA", "config": "gtx285", "size": "small", "seed": 0,
         "key": "VA/gtx480/baseline/small/s0"}
    from golden.jobs.kinds import job_of
    assert job_of(r) is None
    assert job_of({**r, "key": "VA/gtx285/baseline/small/s0"}) == TimingJob("VA", "gtx285")


def test_rekey_moves_other_job_kinds_too(tmp_path):
    """A functional probe's stale result is re-keyed once its witness reproduces it; a cheap
    group is re-run entirely."""
    from golden.report.baseline import FunctionalJob
    d = tmp_path / "arch"
    cache = ResultCache(d, archive=[])
    jobs = [FunctionalJob("VA"), FunctionalJob("VA", seed=1)]
    for j in jobs:
        cache.put(j.run(), {**cache.dependencies(j), "simt/engine.py": "0" * 20})
    assert cache_info(d)["stale"] == 2
    plan = plan_rekey(d)
    assert plan.stale == 2 and plan.other == 0
    (g,) = plan.groups
    assert g.label == "FunctionalJob" and len(g.witnesses) == 2      # cheap: everyone
    assert [len(x.witnesses) for x in plan_rekey(d, rerun_below=0).groups] == [1]
    n, problems = rekey(plan, runner=_in_process)
    assert (n, problems) == (2, [])
    assert cache_info(d)["valid"] == 2


def test_host_fields_of_a_job_kind_are_not_compared(tmp_path):
    """A value-statistics probe records the host seconds it took; rekey ignores them (its
    HOST_FIELDS) but still compares what it measured."""
    from golden.report.gscalar import ValueStatsJob
    assert simulation_part({"row": {"seconds": 1.0, "x": 2}}, ("row.seconds",)) == {"row": {"x": 2}}
    d = tmp_path / "arch"
    cache = ResultCache(d, archive=[])
    job = ValueStatsJob("VA")
    r = job.run()
    stored = {**r, "row": {**r["row"], "seconds": r["row"]["seconds"] + 100.0}}
    cache.put(stored, {**cache.dependencies(job), "simt/engine.py": "0" * 20})
    n, problems = rekey(plan_rekey(d), runner=_in_process)
    assert (n, problems) == (1, [])
    wrong = {**r, "row": {**r["row"], "seconds": 0.0}}
    wrong["row"][next(k for k, v in r["row"].items()
                      if isinstance(v, int) and not isinstance(v, bool) and v)] += 1
    cache.put(wrong, {**cache.dependencies(job), "simt/engine.py": "0" * 20})
    n, problems = rekey(plan_rekey(d), runner=_in_process)
    assert n == 0 and len(problems) == 1 and "row." in problems[0]


def test_a_lone_kernel_and_a_mix_are_never_one_group():
    # a mix's witness cannot vouch for a kernel alone (a lone kernel on GPU-H spans both
    # sides, a mix splits them): the group label counts the kernels
    from golden.jobs.rekey import _label
    from golden.report.hetero import ConcurrentJob
    alone = _label(ConcurrentJob(("NQU",), "H", "paper", 0))
    mix = _label(ConcurrentJob(("NQU", "MM"), "H", "paper", 0))
    assert alone != mix and alone.endswith("kernels=1") and mix.endswith("kernels=2")
    assert mix == _label(ConcurrentJob(("STO", "DT"), "H", "paper", 0))
