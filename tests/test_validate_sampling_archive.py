"""``simtlab validate --sampling --archive DIR`` (issue 68 item 2,
golden/validate/sampling_archive.py) on a tiny archive simulated here: FWS ``small`` on
pascal as baseline, with G-Scalar (sampled at launch level: it needs whole launches) and
with the WarpMan warp-lifetimes observer (not sampleable: run in full), plus a stale copy
that must not be compared. Nothing of results/runs is read."""

from __future__ import annotations

import json
import math

import pytest

from golden.cli import main
from golden.jobs.cache import ResultCache, entry_name, read_entry
from golden.jobs.entries import seal
from golden.jobs.executors import run_jobs
from golden.jobs.job import TimingJob
from golden.jobs.sampled import SampledTimingJob
from golden.timing.sampling import t975

BASE = TimingJob("FWS", "pascal", "small")
GSCALAR = TimingJob("FWS", "pascal", "small", mechanisms=("gscalar",))
LIFETIMES = TimingJob("FWS", "pascal", "small", mechanisms=("warp-lifetimes",))
#: a result stored for another seed whose dependency map no longer holds (stale)
STALE = TimingJob("FWS", "pascal", "small", seed=7)


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """The archive directory: three full runs and one stale entry."""
    d = tmp_path_factory.mktemp("archive")
    got = run_jobs([BASE, GSCALAR, LIFETIMES], workers=1, progress=False,
                   cache=ResultCache(d, archive=[]), derive_passive=False)
    assert all(r["outputs_match"] for r in got.values())
    old = read_entry(d / entry_name(BASE.key))
    deps = dict(old["deps"])
    deps[next(iter(deps))] = "0" * 64           # a file that has changed since
    stale = {**old, "seed": STALE.seed, "key": STALE.key, "deps": deps}
    (d / entry_name(STALE.key)).write_text(json.dumps(seal(stale)))
    return d


@pytest.fixture(scope="module")
def launch_table(archive, tmp_path_factory):
    """The table at ``--sample-level launch``: ``(document, cache dir)``."""
    work = tmp_path_factory.mktemp("work")
    assert main(["validate", "--sampling", "--archive", str(archive), "--sample-level",
                 "launch", "--cache-dir", str(work / "cache"), "--out", str(work / "out"),
                 "-j", "1"]) == 0
    assert (work / "out" / "sampling-archive.md").is_file()
    return json.loads((work / "out" / "sampling-archive.json").read_text()), work / "cache"


def test_archive_counts_and_stale_entry_not_compared(launch_table):
    doc, _ = launch_table
    c = doc["counts"]
    assert (c["entries"], c["stale"], c["valid_timing"]) == (4, 1, 3)
    keys = {r["key"] for r in doc["rows"]} | {r["key"] for r in doc["in_full"]}
    assert keys == {BASE.key, GSCALAR.key, LIFETIMES.key}


def test_rows_errors_and_coverage_against_the_archived_runs(archive, launch_table):
    doc, cache_dir = launch_table
    cache = ResultCache(cache_dir, archive=[])
    rows = {r["key"]: r for r in doc["rows"]}
    assert set(rows) == {BASE.key, GSCALAR.key}
    for job in (BASE, GSCALAR):
        full = read_entry(archive / entry_name(job.key))
        samp = cache.get(SampledTimingJob(job.workload, job.config, job.size, job.seed,
                                          job.mechanisms, level="launch"))
        iv = samp["sampling"]["intervals"]["cycles"]
        r = rows[job.key]
        assert r["level"] == "launch" and r["full_cycles"] == full["cycles"]
        assert r["estimate"] == iv["estimate"]
        assert r["error_pct"] == pytest.approx(100 * (iv["estimate"] - full["cycles"])
                                               / full["cycles"])
        # FWS small: launch sampling skips launches and states an interval
        assert not r["exact"] and r["estimable"]
        assert r["inside"] == (iv["low"] <= full["cycles"] <= iv["high"])
        assert r["detailed_warp_instructions"] < r["total_warp_instructions"]
        assert r["detail_reduction"] == pytest.approx(
            r["total_warp_instructions"] / r["detailed_warp_instructions"])
        assert r["cpu_full"] == pytest.approx(full["cpu_seconds"])
        assert r["cpu_sampled"] == pytest.approx(samp["cpu_seconds"])
        assert r["outputs_identical"] is True
        fe = full["energy"]["total_j"]
        se = samp["sampling"]["intervals"]["energy_total_j"]["estimate"]
        assert r["energy_error_pct"] == pytest.approx(100 * (se - fe) / fe)
    s = doc["summary"]["cycles"]
    errs = sorted(abs(r["error_pct"]) for r in rows.values())
    assert s["n"] == 2 and s["median_abs_error_pct"] == pytest.approx(sum(errs) / 2)
    assert s["max_abs_error_pct"] == pytest.approx(errs[-1])
    assert s["coverage"] == sum(r["inside"] for r in rows.values()) / 2
    assert doc["summary"]["cycles_by_level"]["launch"] == s


def test_refused_mechanism_listed_in_full_with_reason(launch_table):
    doc, _ = launch_table
    (row,) = doc["in_full"]
    assert row["key"] == LIFETIMES.key and row["level"] == "full"
    assert "not-sampleable" in row["reason"]
    assert doc["summary"]["in_full"] == 1 and not doc["failed"] and not doc["missing"]


def test_pairs_matched_with_delta_method_interval(launch_table):
    doc, _ = launch_table
    rows = {r["key"]: r for r in doc["rows"]}
    pairs = {q["key"]: q for q in doc["pairs"]}
    assert set(pairs) == {GSCALAR.key, LIFETIMES.key}
    assert all(q["baseline"] == BASE.key for q in pairs.values())
    b, m = rows[BASE.key], rows[GSCALAR.key]
    q = pairs[GSCALAR.key]
    assert q["full_speedup"] == pytest.approx(b["full_cycles"] / m["full_cycles"])
    sp = b["estimate"] / m["estimate"]
    assert q["sampled_speedup"] == pytest.approx(sp)
    assert q["error_pct"] == pytest.approx(100 * (sp - q["full_speedup"]) / q["full_speedup"])
    # by hand: independent estimates, relative variances add, df by Welch-Satterthwaite
    v = [(r["std_error"] / r["estimate"]) ** 2 for r in (b, m)]
    df = sum(v) ** 2 / sum(x * x / r["df"] for x, r in zip(v, (b, m)))
    half = t975(df) * sp * math.sqrt(sum(v))
    assert q["estimable"]
    assert (q["low"], q["high"]) == (pytest.approx(sp - half), pytest.approx(sp + half))
    assert q["inside"] == (q["low"] <= q["full_speedup"] <= q["high"])
    # the refused run's cycles are exact: the pair's interval is the baseline's alone
    ql = pairs[LIFETIMES.key]
    assert ql["levels"] == "launch/full" and ql["estimable"]
    full_l = doc["in_full"][0]["full_cycles"]
    assert ql["sampled_speedup"] == pytest.approx(b["estimate"] / full_l)
    assert (ql["high"] - ql["sampled_speedup"]) == pytest.approx(
        t975(b["df"]) * b["std_error"] / full_l)


def test_tb_level_falls_back_to_launch_and_cached_rerun(archive, launch_table, tmp_path):
    _, cache_dir = launch_table
    args = ["validate", "--sampling", "--archive", str(archive), "--cache-dir", str(cache_dir),
            "--out", str(tmp_path), "-j", "1"]
    assert main(args) == 0                       # default level tb
    doc = json.loads((tmp_path / "sampling-archive.json").read_text())
    rows = {r["key"]: r for r in doc["rows"]}
    assert rows[BASE.key]["level"] == "tb"
    assert rows[GSCALAR.key]["level"] == "launch"
    assert "whole-launch" in rows[GSCALAR.key]["level_note"]
    if rows[BASE.key]["exact"]:     # nothing skipped: the sampled run must equal the full one
        assert rows[BASE.key]["error_pct"] == 0
    # everything is cached now: --cached-only reproduces the table without simulating
    assert main([*args, "--cached-only"]) == 0
    again = json.loads((tmp_path / "sampling-archive.json").read_text())
    assert again["rows"] == doc["rows"] and not again["missing"]


def test_limit_takes_the_cheapest_runs_and_their_baselines(archive, launch_table, tmp_path):
    _, cache_dir = launch_table
    cpu = {j.key: read_entry(archive / entry_name(j.key))["cpu_seconds"]
           for j in (BASE, GSCALAR, LIFETIMES)}
    cheapest = min(cpu, key=cpu.get)
    assert main(["validate", "--sampling", "--archive", str(archive), "--sample-level",
                 "launch", "--cache-dir", str(cache_dir), "--out", str(tmp_path),
                 "--cached-only", "--limit", "1", "--only", "FWS"]) == 0
    doc = json.loads((tmp_path / "sampling-archive.json").read_text())
    keys = {r["key"] for r in doc["rows"]} | {r["key"] for r in doc["in_full"]}
    assert keys == {cheapest, BASE.key}
    assert doc["selected"] == len(keys)


@pytest.mark.parametrize("argv, message", [
    (["--archive", "{nodir}"], "no such directory"),
    (["--archive", "{file}"], "is a file, not a directory"),
    (["--archive", "{empty}"], "no result entries"),
    (["--archive", "{archive}", "--config", "gtx480"], "no valid archived timing result"),
    (["--archive", "{archive}", "--mechanism", "gscalar"], "does not apply to --archive"),
])
def test_bad_archive_one_line_error(archive, tmp_path, capsys, argv, message):
    f = tmp_path / "f.json"
    f.write_text("{}")
    (tmp_path / "empty").mkdir()
    subs = {"nodir": tmp_path / "nope", "file": f, "empty": tmp_path / "empty",
            "archive": archive}
    argv = [a.format(**subs) for a in argv]
    rc = main(["validate", "--sampling", *argv, "--out", str(tmp_path / "o"),
               "--cache-dir", str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert rc != 0 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def _row(key, size, error, exact=False, inside=True, tot=100, det=10):
    return {"key": key, "size": size, "level": "tb", "error_pct": error, "exact": exact,
            "estimable": not exact,
            "inside": None if exact else inside, "total_warp_instructions": tot,
            "detailed_warp_instructions": tot if exact else det, "cpu_full": 2.0,
            "cpu_sampled": 1.0, "energy_error_pct": None, "outputs_identical": True,
            "outputs_match": True}


def test_summary_counts_sampled_rows_checks_exact_ones_and_counts_in_full_whole():
    from golden.validate.sampling_archive import summary
    rows = [_row("a", "paper", -1.0), _row("b", "paper", 3.0, inside=False),
            _row("c", "paper", 0.5), _row("d", "paper", 0.0, exact=True),
            _row("e", "small", 0.2, exact=True)]
    in_full = [{"key": "f", "size": "paper", "warp_instructions": 100}]
    s = summary(rows, [], in_full)
    assert s["cycles"]["n"] == 3 and s["cycles"]["median_abs_error_pct"] == 1.0
    assert s["cycles"]["max_abs_error_pct"] == 3.0
    assert s["cycles"]["coverage"] == pytest.approx(2 / 3)
    assert s["exact_rows"] == 2 and s["exact_rows_differing"] == 1     # e: 0.2% off
    # paper: a, b, c 10 of 100 each, d whole (100), f in full (100): 500 / 230
    assert s["paper_detailed_inst_reduction"] == pytest.approx(500 / 230)
    assert s["paper_rows"] == 5
