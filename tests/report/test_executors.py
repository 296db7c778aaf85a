"""Executors of the reports' simulations: local pool vs a real Dask LocalCluster, the
result cache they share, progress lines and the cache / dask-slurm commands."""

from __future__ import annotations

import io

import pytest

from golden.errors import SimtlabError
from golden.report.baseline import FunctionalJob
from golden.report.cache import ResultCache, cache_info, clear_cache
from golden.report.executors import Progress, run_jobs
from golden.report.runner import TimingJob

#: a small sweep: quick workloads on three configs, a mechanism and a non-timing job kind
SWEEP = [TimingJob("VA", "gtx285"), TimingJob("FFT", "fx5800"), TimingJob("MC", "gtx480"),
         TimingJob("VA", "gtx285", mechanisms=("uv-token-combined",)), FunctionalJob("VA")]

#: fields that measure the host, not the simulation
HOST = {"wall_seconds", "cpu_seconds", "from_cache"}


def _sim(results: dict) -> dict:
    """The simulation part of results, as the cache stores it (JSON: tuples become lists)."""
    import json
    return json.loads(json.dumps({k: {f: v for f, v in r.items() if f not in HOST}
                                  for k, r in results.items()}, default=str))


def test_dask_local_cluster_gives_the_local_executors_results(tmp_path):
    pytest.importorskip("distributed")
    local = run_jobs(SWEEP, workers=1, progress=False)
    assert all("error" not in r for r in local.values()), local
    cache = ResultCache(tmp_path / "cache", fingerprint="d" * 64)
    # 2 worker processes of a real distributed LocalCluster (no scheduler address given)
    # the cache fingerprint differs from the workers' own source, so they refuse: errors
    refused = run_jobs(SWEEP[:1], workers=1, progress=False, cache=cache, executor="dask")
    assert "differs from the client's" in next(iter(refused.values()))["error"]
    cache = ResultCache(tmp_path / "cache")
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


def test_cache_info_and_clear(tmp_path):
    cur = ResultCache(tmp_path, fingerprint="a" * 64)
    old = ResultCache(tmp_path, fingerprint="b" * 64)
    for c in (cur, old):
        c.put({"key": "k1", "cycles": 1})
    cur.put({"key": "k2", "cycles": 2})
    info = cache_info(tmp_path, fingerprint="a" * 64)
    assert [(e["current"], e["entries"]) for e in info] == [(True, 2), (False, 1)]
    assert not list(tmp_path.rglob("*.tmp"))            # atomic writes leave no temporaries
    assert clear_cache(tmp_path, stale_only=True, fingerprint="a" * 64) == 1
    assert cur.get("k2") == {"key": "k2", "cycles": 2} and old.get("k1") is None
    assert clear_cache(tmp_path, fingerprint="a" * 64) == 2 and cache_info(tmp_path) == []


def test_presentation_code_is_not_part_of_the_model_fingerprint(tmp_path):
    import shutil
    from pathlib import Path
    from golden.report.cache import model_fingerprint
    src = Path(__file__).resolve().parents[2] / "golden"
    pkg = tmp_path / "golden"
    shutil.copytree(src, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    fp = model_fingerprint(pkg)
    (pkg / "report" / "present" / "figures.py").write_text("# edited\n")
    (pkg / "report" / "cli.py").write_text("# edited\n")
    assert model_fingerprint(pkg) == fp
    (pkg / "timing" / "sm.py").write_text((pkg / "timing" / "sm.py").read_text() + "\n# x\n")
    assert model_fingerprint(pkg) != fp


def test_cache_and_dask_slurm_commands(tmp_path, capsys):
    from golden.cli import main
    ResultCache(tmp_path, fingerprint="c" * 64).put({"key": "k", "cycles": 1})
    assert main(["cache", "info", "--cache-dir", str(tmp_path)]) == 0
    assert "cccccccccccccccc" in capsys.readouterr().out
    assert main(["cache", "clear", "--cache-dir", str(tmp_path)]) == 0
    assert "removed 1 cached result(s)" in capsys.readouterr().out
    pytest.importorskip("dask_jobqueue")
    assert main(["dask-slurm", "--print-script", "--partition", "cpu", "--memory", "2GB"]) == 0
    script = capsys.readouterr().out
    assert "#SBATCH -p cpu" in script and "distributed.cli.dask_worker" in script
    assert "--nthreads 1" in script
