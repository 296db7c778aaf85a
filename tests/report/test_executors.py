"""Executors of the reports' simulations: local pool vs a real Dask LocalCluster, the
result cache they share, progress lines and the cache / dask-slurm commands."""

from __future__ import annotations

import io

import pytest

from golden.errors import SimtlabError
from golden.report.baseline import FunctionalJob
from golden.jobs.cache import ResultCache, archive_results, cache_info, clear_cache
from golden.jobs.deps import DependencyFinder
from golden.jobs.executors import Progress, run_jobs
from golden.report.runner import TimingJob

#: a small sweep: quick workloads on three configs, a mechanism and a non-timing job kind
SWEEP = [TimingJob("VA", "gtx285"), TimingJob("FFT", "fx5800"), TimingJob("MC", "gtx480"),
         TimingJob("VA", "gtx285", mechanisms=("uv-token-combined",)), FunctionalJob("VA")]

#: fields that measure the host, not the simulation
HOST = {"wall_seconds", "cpu_seconds", "from_cache"}


def _stored(key: str, cycles: int = 1, **fields) -> dict:
    """A timing job's result with every field the store's schema asks for
    (golden/jobs/entries.py), ``cycles`` consistent with its timing record."""
    return {"key": key, "outputs_match": True, "cycles": cycles, "ipc": 1.0, "launches": 1,
            "output_digest": "0" * 64, "timing": {"cycles": cycles}, "energy": {},
            "stall_fractions": {}, **fields}


def _sim(results: dict) -> dict:
    """The simulation part of results, as the cache stores it (JSON: tuples become lists)."""
    import json
    return json.loads(json.dumps({k: {f: v for f, v in r.items() if f not in HOST}
                                  for k, r in results.items()}, default=str))


def test_dask_local_cluster_gives_the_local_executors_results(tmp_path):
    pytest.importorskip("distributed")
    local = run_jobs(SWEEP, workers=1, progress=False)
    assert all("error" not in r for r in local.values()), local
    # a client whose copy of timing/sm.py differs from the workers': they refuse the job
    class OtherSource(ResultCache):
        def dependencies(self, job):
            return {**super().dependencies(job), "timing/sm.py": "0" * 20}
    refused = run_jobs(SWEEP[:1], workers=1, progress=False,
                       cache=OtherSource(tmp_path / "other", archive=[]), executor="dask")
    assert "differs from the client's in timing/sm.py" in next(iter(refused.values()))["error"]
    # 2 worker processes of a real distributed LocalCluster (no scheduler address given)
    cache = ResultCache(tmp_path / "cache", archive=[])
    dask = run_jobs(SWEEP, workers=2, progress=False, cache=cache, executor="dask")
    assert _sim(dask) == _sim(local)
    # results came back through the same cache: a second run simulates nothing
    assert len(list(cache.dir.glob("*.json"))) == len(SWEEP)
    again = run_jobs(SWEEP, workers=2, progress=False, cache=cache, executor="dask")
    assert all(r["from_cache"] for r in again.values()) and _sim(again) == _sim(local)


def test_executor_arguments_are_checked():
    with pytest.raises(SimtlabError, match="unknown executor 'slurm'"):
        run_jobs(SWEEP[:1], executor="slurm", progress=False)
    with pytest.raises(SimtlabError, match="--scheduler needs --executor dask"):
        run_jobs(SWEEP[:1], scheduler="tcp://x:1", progress=False)


def test_unreachable_scheduler_is_a_clear_error(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setenv("SIMTLAB_DASK_CONNECT_TIMEOUT", "3s")
    with pytest.raises(SimtlabError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        run_jobs(SWEEP[:1], executor="dask", scheduler="tcp://127.0.0.1:9", progress=False)


def test_progress_lines_with_count_and_eta_when_not_a_terminal():
    out = io.StringIO()
    p = Progress(total=2, cached=3, enabled=True, stream=out)
    p.update({"key": "a", "wall_seconds": 1.0})
    p.update({"key": "b", "error": "boom"})
    lines = out.getvalue().splitlines()
    assert lines[0] == "3 simulation(s) reused from the result cache, 2 to run"
    assert lines[1].startswith("[1/2] a: 1 s (") and "ETA 0:00:0" in lines[1]
    assert lines[2].startswith("[2/2] b: error: boom") and "ETA 0:00:00" in lines[2]


def _fake_package(root):
    """A two-module stand-in for the golden package: ``golden/a.py`` imports ``b``."""
    pkg = root / "golden"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from golden import b\n")
    (pkg / "b.py").write_text("X = 1\n")
    (pkg / "c.py").write_text("Y = 1\n")
    return pkg


def test_cache_info_clear_and_archive_follow_the_dependency_files(tmp_path):
    pkg = _fake_package(tmp_path)
    finder = DependencyFinder(pkg)
    deps_a = {str(p.relative_to(pkg)): finder.digest(p)
              for p in sorted(finder.closure(["golden.a"]))}
    assert sorted(deps_a) == ["__init__.py", "a.py", "b.py"]
    deps_c = {"c.py": finder.digest(pkg / "c.py")}
    job_a, job_c = TimingJob("A", "x", size="paper"), TimingJob("C", "x", size="paper")
    cache = ResultCache(tmp_path / "cache", archive=[], finder=finder)
    cache.put(_stored(job_a.key, size="paper"), deps_a)
    cache.put(_stored(job_c.key, 2, size="paper"), deps_c)
    cache.put({"key": "err", "error": "boom"}, deps_c)           # errors are never stored
    assert not list(tmp_path.rglob("*.tmp"))                     # atomic writes
    assert cache.get(job_a, deps_a)["cycles"] == 1 and cache.get(job_c, deps_c)["cycles"] == 2
    assert cache.get(job_a, deps_c) is None                      # other dependencies: a miss
    # an edit to b.py makes A's result stale, not C's
    (pkg / "b.py").write_text("X = 2\n")
    info = cache_info(tmp_path / "cache", finder=finder)
    assert (info["entries"], info["valid"], info["stale"]) == (2, 1, 1)
    # only valid results of the asked size are archived; the archive is read after the cache
    assert archive_results(tmp_path / "cache", tmp_path / "arch", "paper", finder=finder) == 1
    assert archive_results(tmp_path / "cache", tmp_path / "arch", "paper", finder=finder) == 0
    assert archive_results(tmp_path / "cache", tmp_path / "arch2", "small", finder=finder) == 0
    assert clear_cache(tmp_path / "cache", stale_only=True, finder=finder) == 1
    assert clear_cache(tmp_path / "cache", finder=finder) == 1
    from_archive = ResultCache(tmp_path / "cache", archive=[tmp_path / "arch"], finder=finder)
    assert from_archive.get(job_c, deps_c)["cycles"] == 2 and from_archive.get(job_a, deps_a) is None
    # the earlier per-fingerprint directories' entries are counted and removed by clear
    # --stale; a stray JSON file there is not an entry and stays (tests/report/test_store_safety.py)
    import json
    from golden.jobs.cache import entry_name
    old = tmp_path / "cache" / "0123456789abcdef"
    old.mkdir()
    (old / entry_name(job_a.key)).write_text(json.dumps({**_stored(job_a.key), "deps": deps_a}))
    (old / "x.json").write_text("{}")
    assert cache_info(tmp_path / "cache", finder=finder)["old_layout"] == 1
    assert clear_cache(tmp_path / "cache", stale_only=True, finder=finder) == 1
    assert [p.name for p in old.iterdir()] == ["x.json"]


def test_a_jobs_dependencies_are_its_own_mechanism_and_the_shared_model(tmp_path):
    """Editing one mechanism keeps the results of the others; editing the timing core, a
    config, a kernel's PTX or a mechanism's YAML invalidates what uses it; presentation code
    is never a dependency."""
    import shutil
    from pathlib import Path
    src = Path(__file__).resolve().parents[2] / "golden"
    pkg = tmp_path / "golden"
    shutil.copytree(src, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    jobs = {"darsie": TimingJob("MM", "pascal", mechanisms=("darsie",)),
            "capri": TimingJob("MM", "pascal", mechanisms=("capri",)),
            "gscalar": TimingJob("HS", "gtx480", mechanisms=("gscalar",)),
            "base": TimingJob("MM", "pascal")}

    def changed_by(edit_path, text="\n# edited\n"):
        finder = DependencyFinder(pkg)
        before = {n: finder.job_dependencies(j) for n, j in jobs.items()}
        p = pkg / edit_path
        old = p.read_bytes()
        p.write_bytes(old + text.encode())
        after = {n: DependencyFinder(pkg).job_dependencies(j) for n, j in jobs.items()}
        p.write_bytes(old)
        return {n for n in jobs if before[n] != after[n]}

    assert changed_by("mechanisms/capri/mechanism.py") == {"capri"}
    assert changed_by("mechanisms/darsie/skip.py") == {"darsie"}
    assert changed_by("mechanisms/gscalar/timing.yaml") == {"gscalar"}
    assert changed_by("timing/sm.py") == set(jobs)
    assert changed_by("timing/scheduler.pxd") == set(jobs)
    # a timing job depends on its own configuration file and what that inherits, only
    assert changed_by("configs/pascal_1080ti.yaml") == {"darsie", "capri", "base"}
    assert changed_by("configs/gtx480.yaml") == {"gscalar"}
    assert changed_by("configs/gtx480_coarse.yaml") == set()
    assert changed_by("configs/schema.py") == set(jobs)
    assert changed_by("workloads/kernels/mm.ptx") == {"darsie", "capri", "base"}
    assert changed_by("workloads/kernels/mm.cu") == set()
    assert changed_by("report/present/figures.py") == set()
    assert changed_by("jobs/cache.py") == set()
    assert changed_by("jobs/job.py") == set(jobs)          # runs every timing job
    assert changed_by("report/runner.py") == set()         # the reports' helpers, not a run's
    # a job kind that attaches mechanisms by name declares them (dependency_roots)
    from golden.report.hetero import ConcurrentJob
    mix = DependencyFinder(pkg).job_dependencies(ConcurrentJob(("NQU", "MM"), "H"))
    assert "mechanisms/ilp/scoreboard.py" in mix and "workloads/kernels/mm.ptx" in mix


def test_report_plan_counts_reusable_simulations_without_running_any(tmp_path, capsys):
    from golden.cli import main
    from golden.report import baseline
    from golden.report.runner import ReportOptions
    jobs = {j.key: j for j in baseline.jobs(ReportOptions(size="small"))}
    job = next(j for j in jobs.values() if isinstance(j, TimingJob))
    cache = ResultCache(tmp_path, archive=[])
    cache.put(_stored(job.key, cpu_seconds=3600.0), cache.dependencies(job))
    # a stale result (its source changed since) is not reusable but tells what it cost
    other = next(j for j in jobs.values() if isinstance(j, TimingJob) and j.workload != job.workload)
    cache.put(_stored(other.key, cpu_seconds=7200.0), {"timing/sm.py": "0" * 20})
    (tmp_path / "none").mkdir()                          # an empty archive
    assert main(["report", "baseline", "--size", "small", "--plan", "--cache-dir",
                 str(tmp_path), "--archive", str(tmp_path / "none")]) == 0
    out = capsys.readouterr().out
    assert f"{'baseline':<10} {len(jobs):>12} {1:>9} {len(jobs) - 1:>7}" in out
    assert len(list(tmp_path.glob("*.json"))) == 2     # nothing was simulated
    # the estimate: the stale run's own CPU time, the stored run's for its workload's others
    near = sum(1 for j in jobs.values() if j.key != job.key and getattr(j, "workload", None)
               == job.workload)
    other_near = sum(1 for j in jobs.values() if j.key != other.key
                     and getattr(j, "workload", None) == other.workload)
    hours = (7200 + 3600 * near + 7200 * other_near) / 3600
    assert (f"to run: about {hours:.1f} CPU-hours for {1 + near + other_near} of "
            f"{len(jobs) - 1} simulation(s) (1 from an earlier run of the same simulation, "
            f"{near + other_near} from stored runs of the same workload at this size; "
            f"{len(jobs) - 2 - near - other_near} without an estimate)") in out, out


def test_cache_and_dask_slurm_commands(tmp_path, capsys):
    from golden.cli import main
    job = TimingJob("VA", "gtx285")
    cache = ResultCache(tmp_path, archive=[])
    cache.put(_stored(job.key), cache.dependencies(job))
    assert main(["cache", "info", "--cache-dir", str(tmp_path)]) == 0
    assert f"{tmp_path}" in (out := capsys.readouterr().out) and "       1       1       0" in out
    assert main(["cache", "clear", "--cache-dir", str(tmp_path)]) == 0
    assert "removed 1 cached result(s)" in capsys.readouterr().out
    pytest.importorskip("dask_jobqueue")
    assert main(["dask-slurm", "--print-script", "--partition", "cpu", "--memory", "2GB"]) == 0
    script = capsys.readouterr().out
    assert "#SBATCH -p cpu" in script and "distributed.cli.dask_worker" in script
    assert "--nthreads 1" in script


def test_report_cached_only_renders_what_the_cache_holds_and_simulates_nothing(tmp_path, capsys):
    """``report --cached-only``: the report is rendered from the cached runs (here FFT under
    WPDOM and TBC, small), every other simulation shows as missing, the class mean says
    over how many workloads it is taken, and nothing new is simulated or cached."""
    from golden.cli import main
    from golden.report import capri
    from golden.report.runner import ReportOptions
    opts = ReportOptions(size="small")
    cache = ResultCache(tmp_path / "c", archive=[])
    ran = run_jobs([capri._perf_job("FFT", opts, None), capri._perf_job("FFT", opts, "tbc")],
                   progress=False, cache=cache)
    assert all("error" not in r for r in ran.values())
    before = sorted(p.name for p in (tmp_path / "c").glob("*.json"))
    out = tmp_path / "out"
    (tmp_path / "none").mkdir()                          # an empty archive
    assert main(["report", "capri", "--size", "small", "--cached-only", "--no-figures",
                 "--cache-dir", str(tmp_path / "c"), "--archive", str(tmp_path / "none"),
                 "--out", str(out)]) == 0
    assert sorted(p.name for p in (tmp_path / "c").glob("*.json")) == before
    md = (out / "capri.md").read_text()
    fft = next(line for line in md.splitlines()
               if line.startswith("| FFT | non-divergent | ") and "missing" in line)
    sp = ran[capri._perf_job("FFT", opts, None).key]["cycles"] / \
        ran[capri._perf_job("FFT", opts, "tbc").key]["cycles"]
    assert f"| {sp:.3f} |" in fft and fft.count("missing or error") == 3
    assert "| BFS | divergent | missing or error |" in md
    n_nondiv = sum(capri._paper(w)[1] == "non-divergent" for w in capri._workloads(opts))
    assert f"**{sp:.3f}** (1 of {n_nondiv})" in md
    assert "2 of them read from the result cache or archive" in (out / "speedups.md").read_text()
    assert main(["report", "capri", "--size", "small", "--cached-only", "--no-cache"]) != 0
    assert "cannot go with --no-cache" in capsys.readouterr().err


def test_cheap_first_submits_by_stored_cpu_time(tmp_path, monkeypatch):
    """``--order cheap-first``: the same simulation's stored CPU time, else the median of the
    workload's stored runs at that size; jobs without an estimate last, ties as given."""
    from golden.jobs import executors
    from golden.jobs.cache import CpuEstimator
    cache = ResultCache(tmp_path, archive=[])
    a, b, c = TimingJob("VA", "gtx285"), TimingJob("FFT", "fx5800"), TimingJob("MC", "gtx480")
    b2 = TimingJob("FFT", "gtx285")
    stale = {"timing/sm.py": "0" * 20}            # stored runs whatever their source
    cache.put(_stored(a.key, cpu_seconds=50.0), stale)
    cache.put(_stored(b.key, cpu_seconds=8.0), stale)
    cache.put(_stored(TimingJob("FFT", "gtx480").key, cpu_seconds=12.0), stale)
    est = CpuEstimator(cache)
    assert est.estimate(a) == (50.0, "same")
    assert est.estimate(b2) == (10.0, "workload")       # median of FFT's two small runs
    assert est.estimate(c) == (None, "none")
    assert est.estimate(TimingJob("FFT", "gtx285", size="paper")) == (None, "none")
    assert [j.key for j in executors.cheapest_first([c, a, b2, b], cache)] == \
        [b.key, b2.key, a.key, c.key]
    ran = []
    monkeypatch.setattr(executors, "run_job_safe",
                        lambda j: ran.append(j.key) or {"key": j.key, "error": "not run"})
    run_jobs([c, a, b2], cache=cache, progress=False, order="cheap-first")
    assert ran == [b2.key, a.key, c.key]
    ran.clear()
    run_jobs([c, a, b2], cache=cache, progress=False)
    assert ran == [c.key, a.key, b2.key]                 # given order by default
    with pytest.raises(SimtlabError, match="unknown order"):
        run_jobs([a], order="fastest")


def test_a_result_stored_with_a_coarser_dependency_map_stays_valid(tmp_path):
    """A stored map may list more files than the job depends on today (an earlier finder
    counted every config): the result holds while today's dependencies are unchanged, and
    goes stale when one of them changes."""
    from golden.jobs.cache import cache_info, entry_valid
    from golden.jobs.deps import holds, stale_files
    job = TimingJob("MM", "pascal", size="small")
    cache = ResultCache(tmp_path, archive=[])
    today = cache.dependencies(job)
    assert "configs/pascal_1080ti.yaml" in today and "configs/gtx480.yaml" not in today
    coarser = {**today, "configs/gtx480.yaml": "f" * 20}      # an unrelated file, since edited
    cache.put(_stored(job.key, 7, workload="MM", config="pascal", size="small", seed=0), coarser)
    assert cache.get(job)["cycles"] == 7
    assert holds(coarser, today) and stale_files(coarser, today) == ()
    assert cache_info(tmp_path)["valid"] == 1
    one = next(iter(sorted(today)))
    edited = {**coarser, one: "0" * 20}
    assert not holds(edited, today) and stale_files(edited, today) == (one,)
    cache.put(_stored(job.key, 7, workload="MM", config="pascal", size="small", seed=0), edited)
    assert cache.get(job) is None
    assert not entry_valid({"key": job.key, "workload": "MM", "config": "pascal",
                            "size": "small", "seed": 0, "deps": edited}, cache.finder)


def test_one_finder_sees_a_configs_inherits_change(tmp_path):
    """The config chain is memoised per finder; editing a config file (here its
    ``inherits``) makes the same finder read the chain again."""
    import shutil
    from pathlib import Path
    src = Path(__file__).resolve().parents[2] / "golden"
    pkg = tmp_path / "golden"
    shutil.copytree(src, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    finder = DependencyFinder(pkg)
    job = TimingJob("MM", "gtx480_coarse")
    assert "configs/gtx480.yaml" in finder.job_dependencies(job)
    p = pkg / "configs" / "gtx480_coarse.yaml"
    p.write_text(p.read_text().replace("inherits: gtx480\n", "inherits: gtx285\n"))
    deps = finder.job_dependencies(job)
    assert "configs/gtx285.yaml" in deps and "configs/gtx480.yaml" not in deps
