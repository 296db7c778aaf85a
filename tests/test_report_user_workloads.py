"""`simtlab report coarse --workloads DIR` (issue 71 item 2): a user workload of a folder
joins the reports whose ``stands_for`` prefix it names (coarse: ``Locality``), runs in
worker processes from its reference ``NAME@FILE`` alone, is cached under its own files'
digests, and works with ``--plan`` and ``--cached-only``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from golden.cli import main
from golden.jobs.cache import ResultCache
from golden.jobs.executors import run_jobs
from golden.report import coarse
from golden.report.runner import ReportOptions, TimingJob
from golden.workloads import registry, user_ref

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def user_dir(tmp_path) -> Path:
    """A copy of tests/data/user_workloads (myhist: 'Locality: my byte histogram') with the
    kernel file and reference module it names, so a test may edit them."""
    for f in ("user_kernels.ptx", "user_reference.py"):
        shutil.copy(DATA / f, tmp_path / f)
    shutil.copytree(DATA / "user_workloads", tmp_path / "user_workloads")
    return tmp_path / "user_workloads"


def _user_jobs(opts):
    return [j for j in coarse.jobs(opts) if user_ref.is_ref(j.workload)]


def _report(capsys, *argv):
    rc = main(["report", *map(str, argv)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_user_workload_joins_coarse_report_and_matches_its_reference(user_dir, tmp_path, capsys):
    opts = ReportOptions(size="small", workloads=str(user_dir))
    ref = user_ref.ref("myhist", user_dir / "myhist.yaml")
    assert coarse._workloads(opts)[-1] == ref           # after the chapter's stand-ins
    mine = _user_jobs(opts)
    assert len(mine) == 1 + 1 + len(coarse.VARIANTS)    # locality, baseline, four variants
    cache_dir, empty = tmp_path / "cache", tmp_path / "no-archive"
    empty.mkdir()
    # two worker processes: each re-loads the workload from the job's reference
    results = run_jobs(mine, workers=2, cache=ResultCache(cache_dir, archive=[empty]))
    assert all("error" not in r and r["outputs_match"] for r in results.values()), results
    base = results[TimingJob(ref, coarse.CONFIG, size="small").key]
    assert base["cycles"] > 0 and base["size"] == "small"
    md, _ = coarse.render(results, opts)
    rows = [ln for ln in md.splitlines() if ln.startswith("| myhist (user) |")]
    assert len(rows) == 2 and rows[0].split(" | ")[1] == "my byte histogram"
    assert rows[1].endswith("| identical |") and f"{base['cycles']:,}" in rows[1]

    # the command line: --plan counts them as reusable, --cached-only renders them
    common = ["coarse", "--size", "small", "--workloads", user_dir, "--cache-dir", cache_dir,
              "--archive", empty]
    rc, out, err = _report(capsys, *common, "--plan")
    assert rc == 0, err
    row = next(ln.split() for ln in out.splitlines() if ln.startswith("coarse"))
    assert row[1:] == [str(len(coarse.jobs(opts))), str(len(mine)),
                       str(len(coarse.jobs(opts)) - len(mine))]
    rc, out, err = _report(capsys, *common, "--cached-only", "--out", tmp_path / "out",
                           "--no-figures")
    assert rc == 0, err
    text = (tmp_path / "out" / "coarse.md").read_text()
    assert rows[1] in text.splitlines()
    data = json.loads((tmp_path / "out" / "coarse.json").read_text())
    assert any(r["workload"] == ref for r in data["performance"]["rows"])


def test_editing_the_users_ptx_changes_the_cache_key(user_dir, tmp_path):
    cache = ResultCache(tmp_path / "cache", archive=[])
    job = TimingJob(user_ref.ref("myhist", user_dir / "myhist.yaml"), coarse.CONFIG)
    before = cache.dependencies(job)
    ptx = (user_dir.parent / "user_kernels.ptx").resolve()
    spec = (user_dir / "myhist.yaml").resolve()
    ref_py = (user_dir.parent / "user_reference.py").resolve()
    assert {str(ptx), str(spec), str(ref_py)} <= set(before)
    first = run_jobs([job], workers=1, cache=cache)[job.key]
    assert first["outputs_match"] and cache.get(job)["cycles"] == first["cycles"]
    ptx.write_text(ptx.read_text() + "\n// edited by the user\n")
    after = cache.dependencies(job)
    assert after[str(ptx)] != before[str(ptx)]
    assert {k: v for k, v in after.items() if k != str(ptx)} == \
        {k: v for k, v in before.items() if k != str(ptx)}
    assert cache.get(job) is None                    # the edited kernel runs again


def test_user_workload_named_like_a_builtin_is_refused_in_one_line(user_dir, capsys):
    spec = user_dir / "myhist.yaml"
    spec.write_text(spec.read_text().replace("name: myhist", "name: BFS"))
    rc, out, err = _report(capsys, "coarse", "--size", "small", "--workloads", user_dir,
                           "--plan")
    assert rc == 2 and not out
    assert err == "simtlab: error: " + str(spec) + ": workload name 'BFS' is already a " \
                  "built-in workload\n"


def test_reference_whose_file_defines_another_name_is_an_error(user_dir):
    spec = user_dir / "myhist.yaml"
    reference = user_ref.ref("myhist", spec)
    assert registry.get(reference).name == "myhist"
    spec.write_text(spec.read_text().replace("name: myhist", "name: other"))
    with pytest.raises(Exception, match="no longer defines it .it defines 'other'."):
        registry.get(reference)


def test_workloads_dir_without_a_report_entry_gets_a_note(user_dir, tmp_path, capsys):
    spec = user_dir / "myhist.yaml"
    spec.write_text(spec.read_text().replace('"Locality: my byte histogram"', '"Mine: x"'))
    rc, out, err = _report(capsys, "coarse", "--size", "small", "--workloads", user_dir,
                           "--cache-dir", tmp_path / "c", "--archive", user_dir, "--plan")
    assert rc == 0 and "user workload myhist (user) is in none of the reports coarse" in err
    assert "stands_for entry beginning with Locality" in err


def test_spec_stands_for_must_name_a_prefix(user_dir):
    from golden.errors import ConfigError
    from golden.workloads.kernel_spec import load_spec
    spec = user_dir / "myhist.yaml"
    spec.write_text(spec.read_text().replace('"Locality: my byte histogram"', '"no colon"'))
    with pytest.raises(ConfigError, match=r"myhist.yaml:5: stands_for\[0\]: expected 'REPORT"):
        load_spec(spec)


STANDS_FOR_REPORTS = ("coarse", "uv", "ilp", "capri", "warpman")


def test_every_stands_for_report_takes_user_workloads_with_its_prefix(user_dir):
    """Each report that selects by stands_for (its STANDS_FOR prefix) runs a user workload
    whose entry begins with that prefix, and lists it as 'myhist (user)' (here before any
    simulation: its rows say missing)."""
    import importlib
    spec = user_dir / "myhist.yaml"
    entries = ", ".join(f'"{importlib.import_module(f"golden.report.{n}").STANDS_FOR}: my '
                        f'histogram (HIST)"' for n in STANDS_FOR_REPORTS)
    spec.write_text(spec.read_text().replace('"Locality: my byte histogram"', entries))
    opts = ReportOptions(size="small", workloads=str(user_dir))
    ref = user_ref.ref("myhist", spec)
    for n in STANDS_FOR_REPORTS:
        report = importlib.import_module(f"golden.report.{n}")
        assert any(getattr(j, "workload", None) == ref for j in report.jobs(opts)), n
        assert not any(getattr(j, "workload", None) == ref
                       for j in report.jobs(ReportOptions(size="small"))), n
        md, _ = report.render({}, opts)
        assert "| myhist (user) |" in md, n


def test_own_kernel_doc_report_commands_plan(tmp_path, capsys, monkeypatch):
    """The page's `simtlab report ... --workloads` lines, each run with --plan (no
    simulation) from a copy of the repository's tests/data: the user workload is counted
    among coarse's simulations."""
    from test_user_kernel import doc_commands
    commands = [c for c in doc_commands(DATA.parent.parent / "docs" / "own-kernel.md")
                if c[0] == "report"]
    assert len(commands) == 2 and all("--workloads" in c for c in commands)
    shutil.copytree(DATA, tmp_path / "tests" / "data")
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    n_builtin = len(coarse.jobs(ReportOptions(size="small")))
    for argv in commands:
        plan = [*argv, *(["--plan"] if "--plan" not in argv else []),
                "--cache-dir", "cache", "--archive", "empty"]
        rc, out, err = _report(capsys, *plan[1:])
        assert rc == 0, err
        row = next(ln.split() for ln in out.splitlines() if ln.startswith("coarse"))
        assert row[1] == str(n_builtin + 1 + 1 + len(coarse.VARIANTS)), out


def test_figures_label_a_user_workload_by_name(user_dir):
    from golden.report.present.plots import grouped_bars, stacked_bars
    ref = user_ref.ref("myhist", user_dir / "myhist.yaml")
    for plot in (grouped_bars("x", "t", "c", ["BFS", ref], {"a": [1.0, 1.1]}, "speedup"),
                 stacked_bars("y", "t", "c", ["BFS", ref], {"a": [0.5, 0.4]}, "share")):
        ticks = [t.get_text() for t in plot.figure.axes[0].get_xticklabels()]
        assert ticks[:2] == ["BFS", "myhist (user)"]


def _saxpy_module(ptx) -> str:
    """test_user_kernel's saxpy WORKLOAD module, standing for a CAPRI entry."""
    from test_user_kernel import PY_WORKLOAD
    text = PY_WORKLOAD.replace("Path(PTX)", repr(str(ptx))).replace(
        'stands_for=("a user workload",)', 'stands_for=("CAPRI: SAXPY (non-divergent)",)')
    assert "CAPRI: SAXPY" in text and repr(str(ptx)) in text
    return text


def test_python_workload_module_runs_in_workers_and_is_keyed_by_its_files(user_dir, tmp_path):
    from golden.report import capri
    ptx = (user_dir.parent / "user_kernels.ptx").resolve()
    module = user_dir / "mysaxpy.py"
    module.write_text(_saxpy_module(ptx))
    (user_dir / "helper.py").write_text("SCALE = 3.0\n")
    opts = ReportOptions(size="small", workloads=str(user_dir))
    ref = user_ref.ref("MYSAXPY", module)
    mine = [j for j in capri.jobs(opts) if j.workload == ref]
    assert mine and not any(j.workload.startswith("myhist@") for j in capri.jobs(opts))
    cache = ResultCache(tmp_path / "cache", archive=[])
    deps = cache.dependencies(mine[0])
    assert {str(module.resolve()), str(ptx), str((user_dir / "helper.py").resolve())} <= set(deps)
    results = run_jobs(mine[:2], workers=2, cache=cache)
    assert all("error" not in r and r["outputs_match"] for r in results.values()), results
    (user_dir / "helper.py").write_text("SCALE = 4.0\n")   # a module it might import
    assert cache.get(mine[0]) is None
    md, _ = capri.render(results, opts)
    assert "| MYSAXPY (user) | SAXPY | non-divergent |" in md


def test_user_workload_jobs_run_on_a_dask_local_cluster(user_dir, tmp_path):
    """The Dask worker re-loads the user workload from the job's reference and checks its
    own dependency map (the user's files included) against the client's."""
    pytest.importorskip("distributed")
    opts = ReportOptions(size="small", workloads=str(user_dir))
    jobs = _user_jobs(opts)[:2]          # the locality table and the baseline run
    cache = ResultCache(tmp_path / "cache", archive=[])
    dask = run_jobs(jobs, workers=2, progress=False, cache=cache, executor="dask")
    local = run_jobs(jobs, workers=1, progress=False, cache=None)
    for j in jobs:
        assert "error" not in dask[j.key] and dask[j.key]["outputs_match"], dask[j.key]
        assert dask[j.key]["cycles"] == local[j.key]["cycles"]


def test_workload_name_with_the_reference_separator_is_refused(tmp_path):
    from golden.errors import ConfigError
    with pytest.raises(ConfigError, match="'@' is not allowed in a name"):
        user_ref.ref("a@b", tmp_path / "w.py")


def test_missing_or_empty_workloads_folder_is_one_line(tmp_path, capsys):
    rc, _, err = _report(capsys, "coarse", "--workloads", tmp_path / "nope", "--plan")
    assert rc == 2 and err == f"simtlab: error: --workloads {tmp_path / 'nope'}: no such directory\n"
    (tmp_path / "empty").mkdir()
    rc, _, err = _report(capsys, "coarse", "--workloads", tmp_path / "empty", "--plan")
    assert rc == 2 and err.count("\n") == 1 and "no user workloads in it" in err
