"""`simtlab report darsie|gscalar|baseline|compose --workloads DIR` (issue 71 item 2): a
user workload (tests/data/saxpy.yaml made a folder workload) joins these reports by the
one selection rule of :func:`golden.report.runner.selects` -- darsie and gscalar by their
``stands_for`` prefix, baseline on every configuration whatever its ``stands_for``,
compose on the pairs whose two papers it names -- runs with its outputs checked against
its reference, is cached under its own files and counted by ``--plan``; hetero and
fidelity refuse ``--workloads`` in one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from golden.cli import main
from golden.jobs.cache import ResultCache
from golden.jobs.executors import run_jobs
from golden.report import baseline, compose, darsie, gscalar
from golden.report.runner import ReportOptions, TimingJob, selects, user_workloads
from golden.workloads import user_ref

DATA = Path(__file__).resolve().parent / "data"
STANDS_FOR = '["DARSIE: SAXPY (user)", "G-Scalar: SAXPY (user)", "UV: SAXPY (user)"]'


def _saxpy_dir(root: Path, stands_for: str = STANDS_FOR) -> Path:
    """A folder holding tests/data/saxpy.yaml as a user workload 'mysaxpy' (its kernel
    file and reference module copied beside it, so a test may edit them)."""
    for f in ("user_kernels.ptx", "user_reference.py"):
        shutil.copy(DATA / f, root / f)
    d = root / "mine"
    d.mkdir()
    text = (DATA / "saxpy.yaml").read_text()
    assert "reference: user_reference.py:saxpy" in text
    text = text.replace("reference: user_reference.py:", "reference: ../user_reference.py:")
    (d / "mysaxpy.yaml").write_text(f"name: mysaxpy\nstands_for: {stands_for}\n"
                                    f"ptx: ../user_kernels.ptx\n" + text)
    return d


@pytest.fixture
def user_dir(tmp_path) -> Path:
    return _saxpy_dir(tmp_path)


def _report(capsys, *argv):
    rc = main(["report", *map(str, argv)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _mine(jobs, ref):
    return [j for j in jobs if j.workload == ref]


def test_selection_rule_prefix_or_every_workload():
    assert selects("DARSIE", ("UV: x", "DARSIE: y")) and not selects("DARSIE", ("UV: x",))
    assert selects(None, ()) and not selects("UV", ())
    assert user_workloads("DARSIE", ReportOptions()) == []


def test_darsie_gscalar_and_baseline_take_it_and_match_its_reference(user_dir, tmp_path):
    opts = ReportOptions(size="small", workloads=str(user_dir))
    ref = user_ref.ref("mysaxpy", user_dir / "mysaxpy.yaml")
    plain = ReportOptions(size="small")
    d_jobs, g_jobs, b_jobs = (_mine(m.jobs(opts), ref) for m in (darsie, gscalar, baseline))
    # darsie: baseline, every variant and the 1D grid (saxpy's TB is 1D), RTL energies
    assert len(d_jobs) == len(darsie.jobs(opts)) - len(darsie.jobs(plain))
    assert {j.mechanisms for j in d_jobs} >= {(), *((m,) for m in darsie.MECHS)}
    # gscalar: baseline, its variants and ablations, the value analysis
    assert any(isinstance(j, gscalar.ValueStatsJob) for j in g_jobs)
    assert len(g_jobs) == len(gscalar.jobs(opts)) - len(gscalar.jobs(plain))
    # baseline: every configuration the report runs, plus the functional run
    assert {j.config for j in b_jobs if isinstance(j, TimingJob)} == \
        {c for c, _ in baseline.BASELINE_CONFIGS}
    assert any(isinstance(j, baseline.FunctionalJob) for j in b_jobs)

    run = [j for j in d_jobs if j.mechanisms in ((), ("darsie",)) and not j.overrides]
    run += [j for j in g_jobs if getattr(j, "mechanisms", ("gscalar",)) in ((), ("gscalar",))]
    run += b_jobs
    empty = tmp_path / "no-archive"
    empty.mkdir()
    results = run_jobs(run, workers=2, cache=ResultCache(tmp_path / "cache", archive=[empty]))
    assert all("error" not in r and r["outputs_match"] for r in results.values()), results

    md, data = darsie.render(results, opts)
    row = next(ln for ln in md.splitlines() if ln.startswith("| mysaxpy (user) | (256, 1) |"))
    base = results[darsie._job(ref, opts).key]
    sp = base["cycles"] / results[darsie._job(ref, opts, ("darsie",)).key]["cycles"]
    assert f"{sp:.2f}" in row and data["workloads"][ref]["dims"] == 1

    md, data = gscalar.render(results, opts)
    assert "10 suite kernels standing in for G-Scalar's benchmarks and 1 user workload(s)" in md
    assert any(ln.startswith("| mysaxpy (user) | ") and "MISMATCH" not in ln
               for ln in md.splitlines())
    ipc = results[gscalar._job(ref, opts).key]["ipc"]
    assert f"| mysaxpy (user) | {ipc:.2f} |" in md

    md, data = baseline.render(results, opts)
    for cfg, _ in baseline.BASELINE_CONFIGS:
        r = results[TimingJob(ref, cfg, size="small").key]
        assert f"| mysaxpy (user) | {r['cycles']:,} | {r['ipc']:.2f} |" in md, cfg
        row = next(t for t in data["configs"][cfg]["rows"] if t["workload"] == ref)
        assert row["identical_to_functional"] is True


def test_probe_jobs_are_keyed_by_the_users_files(user_dir, tmp_path):
    """The report's own job kinds (G-Scalar's value analysis, the baseline's functional
    run) depend on the spec, its kernel file and reference module like a timing job."""
    ref = user_ref.ref("mysaxpy", user_dir / "mysaxpy.yaml")
    cache = ResultCache(tmp_path / "cache", archive=[])
    files = {str((user_dir / "mysaxpy.yaml").resolve()),
             str((user_dir.parent / "user_kernels.ptx").resolve()),
             str((user_dir.parent / "user_reference.py").resolve())}
    probes = [gscalar.ValueStatsJob(ref, "small", 0), baseline.FunctionalJob(ref, "small", 0)]
    for job in probes:
        assert files <= set(cache.dependencies(job)), job
    results = run_jobs(probes, workers=1, cache=cache)
    assert all(r["outputs_match"] for r in results.values()), results
    assert all(cache.get(j) is not None for j in probes)
    ref_py = user_dir.parent / "user_reference.py"
    ref_py.write_text(ref_py.read_text() + "\n# edited by the user\n")
    assert all(cache.get(j) is None for j in probes)      # each runs again


def test_plan_counts_the_user_jobs_and_reuses_them(user_dir, tmp_path, capsys):
    opts = ReportOptions(size="small", workloads=str(user_dir))
    ref = user_ref.ref("mysaxpy", user_dir / "mysaxpy.yaml")
    empty, cache_dir = tmp_path / "no-archive", tmp_path / "cache"
    empty.mkdir()
    common = ["darsie", "gscalar", "baseline", "--size", "small", "--workloads", user_dir,
              "--cache-dir", cache_dir, "--archive", empty, "--plan"]
    mine = {m: list({j.key: j for j in _mine(m.jobs(opts), ref)}.values())
            for m in (darsie, gscalar, baseline)}
    # cache the user workload's runs of gscalar's report (the baseline report's run on
    # gtx480 is one of them)
    run_jobs(mine[gscalar], workers=2, cache=ResultCache(cache_dir, archive=[empty]))
    done = {j.key for j in mine[gscalar]}
    rc, out, err = _report(capsys, *common)
    assert rc == 0, err
    rows = {ln.split()[0]: ln.split()[1:] for ln in out.splitlines()[2:]}
    for m in (darsie, gscalar, baseline):
        n = len({j.key for j in m.jobs(opts)})
        reused = sum(j.key in done for j in mine[m])
        assert reused == {gscalar: len(done), baseline: 1, darsie: 0}[m]
        name = m.__name__.rsplit(".", 1)[1]
        assert rows[name] == [str(n), str(reused), str(n - reused)], (name, out)


def test_compose_takes_it_on_the_pairs_whose_papers_it_names(user_dir, tmp_path):
    opts = ReportOptions(size="small", workloads=str(user_dir))
    ref = user_ref.ref("mysaxpy", user_dir / "mysaxpy.yaml")
    named = {"DARSIE", "G-Scalar", "UV"}
    for pa, pb in compose.pairs():
        ws = compose.workloads(pa, pb, compose.CONFIGS[0], opts)
        assert (ref in ws) == ({pa, pb} <= named), (pa, pb)
        assert compose.workloads(pa, pb) == [w for w in ws if w != ref]
    assert compose.takes_user_workload(("DARSIE: a", "UV: b"))
    assert not compose.takes_user_workload(("DARSIE: a",))

    runs = compose._runs("DARSIE", "UV", ref, compose.CONFIGS[0], opts)
    assert set(runs.values()) <= set(compose.jobs(opts))
    results = run_jobs(list(runs.values()), workers=2, cache=None)
    assert all("error" not in r and r["outputs_match"] for r in results.values()), results
    md, data = compose.render(results, opts)
    row = next(ln for ln in md.splitlines() if ln.startswith("| DARSIE+UV | mysaxpy (user) |"))
    assert row.endswith("| identical |")
    # the matrix averages the stand-ins only: without their runs the cell is missing
    cell = next(c for c in data["configs"][compose.CONFIGS[0]]["speedup_interaction"]
                if c["pair"] == ["DARSIE", "UV"])
    assert cell["geomean"] is None
    assert "the matrices average the papers' stand-ins only" in md
    assert "User workloads" not in compose.render(results, ReportOptions(size="small"))[0]


@pytest.mark.parametrize("report", ["hetero", "fidelity"])
def test_reports_without_user_workloads_refuse_the_option_in_one_line(report, user_dir,
                                                                      capsys):
    rc, out, err = _report(capsys, report, "--size", "small", "--workloads", user_dir, "--plan")
    assert rc == 2 and not out and err.count("\n") == 1
    assert err.startswith(f"simtlab: error: report {report} takes no --workloads: ")


def test_all_reports_note_the_ones_that_leave_user_workloads_out(user_dir, capsys):
    from golden.report import available_reports
    from golden.report.cli import NO_USER_WORKLOADS, _user_workloads
    avail = available_reports()
    assert _user_workloads(str(user_dir), list(avail), avail, explicit=False) == \
        str(user_dir.resolve())
    err = capsys.readouterr().err
    for n in NO_USER_WORKLOADS:
        assert f"simtlab: note: report {n} leaves out the user workloads: " in err
    assert "is in none of the reports" not in err


def test_a_workload_for_no_requested_report_gets_a_note_naming_the_ways(tmp_path, capsys):
    d = _saxpy_dir(tmp_path, '["Mine: x"]')
    rc, out, err = _report(capsys, "darsie", "compose", "--size", "small", "--workloads", d,
                           "--cache-dir", tmp_path / "c", "--archive", d, "--plan")
    assert rc == 0, err
    assert "user workload mysaxpy (user) is in none of the reports darsie, compose: give it " \
           "a stands_for entry beginning with DARSIE or entries for both papers of a pair " \
           "(compose)" in err
    rc, out, err = _report(capsys, "baseline", "--size", "small", "--workloads", d,
                           "--cache-dir", tmp_path / "c", "--archive", d, "--plan")
    assert rc == 0 and "note" not in err, err     # the baseline report takes every one
