"""``simtlab report --sample [launch|tb]`` (issue 68): sampled timing jobs in the job engine
(golden/jobs/sampled.py) and sampled estimates with intervals in the renderers
(golden/report/present/estimates.py). Small sizes only: FWS `small` is a workload whose
launch sampling skips launches (3 of 8 detailed) and gives an estimable interval."""

from __future__ import annotations

import csv
import json
import math
import sys
import types

import pytest

from golden.configs import load_config
from golden.errors import SimtlabError
from golden.jobs.cache import ResultCache, entry_name
from golden.jobs.deps import DependencyFinder
from golden.jobs.executors import run_jobs
from golden.jobs.job import TimingJob
from golden.jobs.kinds import job_of
from golden.jobs.sampled import SampledTimingJob, sample_jobs
from golden.mechanisms.registry import make_mechanisms
from golden.report.present.estimates import Estimate, with_bounds, with_estimates
from golden.report.present.tidy import tidy_rows
from golden.report.runner import speedup_sweep

BASE = TimingJob("FWS", "pascal", "small")
GSCALAR = TimingJob("FWS", "pascal", "small", mechanisms=("gscalar",))


@pytest.fixture(scope="module")
def sampled_fws():
    """FWS small, baseline and G-Scalar, launch-sampled: ``(plan, results by run key)``."""
    plan = sample_jobs([BASE, GSCALAR], "launch")
    return plan, {j.key: j.run() for j in plan.jobs}


def test_a_sampled_job_key_is_the_full_key_with_level_and_sample_seed():
    s = SampledTimingJob("FWS", "pascal", "small", level="tb", sample_seed=3)
    assert s.key == BASE.key + "/sampled-tb-s3" and s.full == BASE
    assert SampledTimingJob("FWS", "pascal", "small").key != s.key
    with pytest.raises(SimtlabError, match="level must be one of launch, tb"):
        SampledTimingJob("FWS", "pascal", level="wave")


def test_sampled_and_full_runs_never_share_a_cache_entry(tmp_path):
    sampled = SampledTimingJob("FWS", "pascal", "small")
    cache = ResultCache(tmp_path / "c", archive=[])
    got = run_jobs([sampled], workers=1, progress=False, cache=cache)
    r = got[sampled.key]
    assert r["outputs_match"] and r["sampling"]["unit"] == "launch"
    assert [p.name for p in (tmp_path / "c").glob("*.json")] == [entry_name(sampled.key)]
    # the sampled entry does not answer the full-run request, and is found for its own
    assert cache.get(BASE) is None
    assert cache.get(sampled)["cycles"] == r["cycles"]
    assert job_of(cache.get(sampled)) == sampled          # rebuilt from its stored fields
    # a full run stored beside it does not answer the sampled request either
    full = run_jobs([BASE], workers=1, progress=False, cache=cache)[BASE.key]
    assert "sampling" not in full and len(list((tmp_path / "c").glob("*.json"))) == 2
    (tmp_path / "c" / entry_name(sampled.key)).unlink()
    assert cache.get(sampled) is None and cache.get(BASE)["cycles"] == full["cycles"]
    # same outputs: only the timing was sampled
    assert full["output_digest"] == r["output_digest"]


def test_full_runs_do_not_depend_on_the_sampled_path():
    """The sampled runners are dependencies of sampled results only: editing them leaves
    every stored full run valid."""
    finder = DependencyFinder()
    full = finder.job_dependencies(BASE)
    samp = finder.job_dependencies(SampledTimingJob("FWS", "pascal", "small", level="tb"))
    for f in ("jobs/sampled.py", "runs/sampled_run.py", "runs/tb_sampled_run.py"):
        assert f not in full and f in samp


def test_a_mechanism_refused_at_every_level_runs_in_full_with_one_line():
    lifetimes = TimingJob("FWS", "pascal", "small", mechanisms=("warp-lifetimes",))
    for level in ("launch", "tb"):
        plan = sample_jobs([BASE, lifetimes, TimingJob("FWS", "pascal", "small")], level)
        # the baseline is sampled; warp-lifetimes reports the first launch only
        assert [type(j).__name__ for j in plan.jobs] == ["SampledTimingJob", "TimingJob"]
        assert plan.alias == {BASE.key: plan.jobs[0].key} and list(plan.in_full) == [lifetimes.key]
        (line,) = plan.refused_lines()
        assert "\n" not in line and line.startswith(f"--sample {level}: 1 simulation(s) run in full")
        assert "lifetimes" in line and "not-sampleable" in line and "run it without" not in line
        assert plan.level_of(lifetimes.key) == "full" and plan.level_of(BASE.key) == level


def test_tb_level_is_a_preference_whole_launch_mechanisms_sample_at_launch_level():
    lifetimes = TimingJob("FWS", "pascal", "small", mechanisms=("warp-lifetimes",))
    plan = sample_jobs([BASE, GSCALAR, lifetimes], "tb", sample_seed=3)
    assert [(type(j).__name__, getattr(j, "level", None)) for j in plan.jobs] == [
        ("SampledTimingJob", "tb"), ("SampledTimingJob", "launch"), ("TimingJob", None)]
    # G-Scalar declares whole-launch: tb would cut it, launch sampling keeps launches whole
    assert plan.alias[GSCALAR.key] == GSCALAR.key + "/sampled-launch-s3"
    assert list(plan.at_launch) == [GSCALAR.key] and "whole-launch" in plan.at_launch[GSCALAR.key]
    assert list(plan.in_full) == [lifetimes.key]
    assert {k: plan.level_of(k) for k in (BASE.key, GSCALAR.key, lifetimes.key)} == {
        BASE.key: "tb", GSCALAR.key: "launch", lifetimes.key: "full"}
    lines = plan.refused_lines()
    assert len(lines) == 2 and sum("sampled at launch level instead" in x for x in lines) == 1
    (at,) = [x for x in lines if "launch level" in x]
    assert at.startswith("--sample tb: 1 simulation(s) sampled at launch level")
    assert at.endswith(f"(whole launches kept for {type(make_mechanisms(('gscalar',), load_config('pascal'))[0]).__name__})")
    # at launch level nothing moves
    plan = sample_jobs([BASE, GSCALAR], "launch")
    assert not plan.in_full and not plan.at_launch
    assert {j.level for j in plan.jobs} == {"launch"}


def test_ratio_of_two_estimates_by_the_delta_method():
    a, b = Estimate(100.0, 5.0), Estimate(50.0, 2.0)
    r = a / b
    assert isinstance(r, Estimate) and float(r) == 2.0
    assert r.se == pytest.approx(2.0 * math.sqrt(0.05 ** 2 + 0.04 ** 2))
    assert f"{r:.3f}" == f"2.000 ±{1.959964 * r.se:.3f}"
    # a plain (exact) number adds no error; t quantile for finite df (Welch-Satterthwaite)
    assert (100 / Estimate(50.0, 2.0)).se == pytest.approx(2.0 * 0.04)
    c = Estimate(10.0, 1.0, df=1) / Estimate(10.0, 1.0, df=1)
    assert c.df == pytest.approx(2.0) and c.half_width == pytest.approx(4.303 * c.se)
    # not estimable propagates; exact prints no interval; cycles print as integers
    assert f"{Estimate(3.0, None) / b:.2f}" == "0.06 ±?"
    assert f"{Estimate(5.0, 0.0):.2f}" == "5.00"
    assert f"{Estimate(12345.4, 100.0, integral=True):,}" == "12,345 ±196"


def test_sampled_report_renders_intervals(sampled_fws):
    plan, runs = sampled_fws
    view = with_estimates(plan.view(runs))
    b, g = view[BASE.key], view[GSCALAR.key]
    assert isinstance(b["cycles"], Estimate) and isinstance(g["cycles"], Estimate)
    ib = runs[plan.alias[BASE.key]]["sampling"]["intervals"]["cycles"]
    assert (b["cycles"].low, b["cycles"].high) == (ib["low"], ib["high"])
    md, rows, _ = speedup_sweep(view, ["FWS"], lambda w: BASE, lambda w, p: GSCALAR, ["g"])
    sp = rows[0]["g"]
    assert md[0] == f"| FWS | {float(sp):.3f} ±{sp.half_width:.3f} |"
    rel = math.hypot(b["cycles"].se / float(b["cycles"]), g["cycles"].se / float(g["cycles"]))
    assert sp.se == pytest.approx(float(sp) * rel)
    doc = json.loads(json.dumps(with_bounds({"rows": rows})))
    assert doc["rows"][0]["g_low"] < doc["rows"][0]["g"] < doc["rows"][0]["g_high"]
    metrics = {r["metric"]: r["value"] for r in tidy_rows(view, {"x": [BASE, GSCALAR]})
               if r["mechanism"] == "gscalar"}
    assert metrics["speedup.low"] < metrics["speedup"] < metrics["speedup.high"]
    assert metrics["cycles.low"] == g["cycles"].low
    # the full runs' view is untouched: plain numbers, no bounds
    assert with_estimates({"k": {"cycles": 5}}) == {"k": {"cycles": 5}}


def _tiny_report(monkeypatch):
    """A report module with FWS baseline and G-Scalar, registered as ``tiny``."""
    mod = types.ModuleType("golden.report.tiny_for_test")
    mod.jobs = lambda opts: [BASE, GSCALAR]

    def render(results, opts):
        md, rows, gm = speedup_sweep(results, ["FWS"], lambda w: BASE, lambda w, p: GSCALAR,
                                     ["gscalar"])
        return "| workload | gscalar |\n|---|--:|\n" + "\n".join(md) + "\n", {"rows": rows}

    mod.render = render
    monkeypatch.setitem(sys.modules, mod.__name__, mod)
    monkeypatch.setattr("golden.report.cli.available_reports", lambda: {"tiny": mod})
    monkeypatch.setitem(__import__("golden.report", fromlist=["REPORTS"]).REPORTS, "tiny",
                        mod.__name__)


def test_report_sample_renders_error_bars_end_to_end(tmp_path, monkeypatch, capsys,
                                                      sampled_fws):
    from golden.cli import main
    _tiny_report(monkeypatch)
    plan, runs = sampled_fws
    cache = ResultCache(tmp_path / "c", archive=[])
    for j in plan.jobs:                      # the fixture's runs, stored as the engine would
        cache.put(runs[j.key], cache.dependencies(j))
    (tmp_path / "empty").mkdir()
    args = ["report", "tiny", "--size", "small", "--sample", "--cache-dir", str(tmp_path / "c"),
            "--out", str(tmp_path / "out"), "--no-figures", "--archive", str(tmp_path / "empty"),
            "-j", "1"]
    assert main(args) == 0
    md = (tmp_path / "out" / "tiny.md").read_text()
    assert "**Sampled timing** (`--sample launch`, sample seed 0)" in md
    assert "| FWS | " in md and " ±" in md.split("| FWS | ")[1].splitlines()[0]
    doc = json.loads((tmp_path / "out" / "tiny.json").read_text())
    row = doc["rows"][0]
    assert row["gscalar_low"] < row["gscalar"] < row["gscalar_high"]
    assert doc["sampling"]["level"] == "launch" and doc["sampling"]["sampled"] == 2
    with open(tmp_path / "out" / "results.csv") as f:
        got = {r["metric"] for r in csv.DictReader(f)}
    assert {"speedup.low", "speedup.high", "cycles.low"} <= got
    # publish rebuilds the CSV from the sampled runs the JSON names
    (tmp_path / "out" / "results.csv").unlink()
    assert main(["publish", "--out", str(tmp_path / "out"), "--cache-dir",
                 str(tmp_path / "c")]) == 0
    with open(tmp_path / "out" / "results.csv") as f:
        assert {"speedup.low", "speedup.high"} <= {r["metric"] for r in csv.DictReader(f)}
    capsys.readouterr()
    # tb: G-Scalar (whole-launch) is sampled at launch level instead, said on one line
    # and in the sampling block; its launch-sampled run is the one already cached
    tb_out = ["--out", str(tmp_path / "out_tb")]
    assert main(args[:5] + ["tb"] + args[5:] + tb_out) == 0
    err = capsys.readouterr().err
    assert err.count("sampled at launch level instead") == 1
    assert "run in full" not in err
    doc = json.loads((tmp_path / "out_tb" / "tiny.json").read_text())["sampling"]
    assert doc["levels"] == {BASE.key: "tb", GSCALAR.key: "launch"} and not doc["in_full"]
    assert list(doc["at_launch"]) == [GSCALAR.key] and doc["sampled"] == 2
    assert "sampled at launch level instead of tb" in (tmp_path / "out_tb" / "tiny.md").read_text()


def test_report_sampling_options_are_checked(monkeypatch, capsys):
    from golden.cli import main
    _tiny_report(monkeypatch)
    for argv, msg in ((["--sample-seed", "2"], "--sample-seed needs --sample"),
                      (["--sample", "--profiles"], "--profiles and --sample do not go together")):
        assert main(["report", "tiny", "--plan", *argv]) == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith("simtlab: error: ") and msg in line


def test_geomean_of_estimates_propagates_the_interval_in_log_space():
    from golden.report.runner import geomean
    a, b = Estimate(1.2, 0.01, 4), Estimate(0.9, 0.02, 3)
    g = geomean([a, b, 1.0, None])
    assert isinstance(g, Estimate) and float(g) == pytest.approx((1.2 * 0.9) ** (1 / 3))
    # se(log g)^2 = sum (se_i / x_i)^2 / n^2; the plain 1.0 adds no error
    rel = math.sqrt((0.01 / 1.2) ** 2 + (0.02 / 0.9) ** 2) / 3
    assert g.se == pytest.approx(float(g) * rel)
    va, vb = (float(g) * 0.01 / 1.2 / 3) ** 2, (float(g) * 0.02 / 0.9 / 3) ** 2
    assert g.df == pytest.approx((va + vb) ** 2 / (va ** 2 / 4 + vb ** 2 / 3))
    assert g.low < float(g) < g.high and " ±" in f"{g:.3f}"
    # one figure not estimable: the mean is not either
    assert geomean([a, Estimate(2.0, None)]).half_width is None
    # the arithmetic mean the reports write as sum / len propagates too
    m = sum([a, b]) / 2
    assert isinstance(m, Estimate) and m.se == pytest.approx(math.hypot(0.01, 0.02) / 2)


def test_geomean_of_plain_numbers_is_the_plain_float_it_was():
    import numpy as np
    from golden.report.runner import geomean
    xs = [1.0375, 0.9123, 1.2, 0.0, None, 0.77]
    old = float(np.exp(np.log(np.asarray([x for x in xs if x is not None and x > 0],
                                         dtype=float)).mean()))
    got = geomean(iter(xs))
    assert type(got) is float and got == old
    assert type(geomean([])) is float and math.isnan(geomean([]))


def test_grouped_bars_draw_error_bars_for_sampled_values_only():
    from matplotlib.container import ErrorbarContainer
    from golden.report.present.plots import grouped_bars
    a, b = Estimate(1.10, 0.02, 6, low=1.05, high=1.15), Estimate(0.9, 0.01, 5)
    plot = grouped_bars("sp", "t", "c", ["FWS", "NW", "LUD"],
                        {"sampled": [a, b, 1.0], "unestimable": [Estimate(0.9, None), 1.0, 1.0],
                         "full": [1.2, 0.8, 1.1]}, "speed-up")
    (eb,) = [c for c in plot.figure.axes[0].containers if isinstance(c, ErrorbarContainer)]
    # FWS's, NW's and the geomean's bar (an Estimate itself); none for the exact LUD, the
    # unestimable series (its geomean is not estimable either) or the full runs
    segs = eb.lines[2][0].get_segments()
    assert len(segs) == 3
    assert tuple(segs[0][:, 1]) == pytest.approx((1.05, 1.15))
    assert tuple(segs[1][:, 1]) == pytest.approx((b.low, b.high))
    assert segs[2][0, 1] < segs[2][1, 1]
    plain = grouped_bars("sp", "t", "c", ["FWS"], {"full": [1.2]}, "speed-up")
    assert not [c for c in plain.figure.axes[0].containers if isinstance(c, ErrorbarContainer)]


def test_figures_of_a_sampled_report_see_its_intervals(monkeypatch, tmp_path):
    from golden.report.present import figures
    from golden.report.present.estimates import with_intervals
    from golden.report.present.publish import draw_figures
    a = Estimate(1.1, 0.02, 6, low=1.05, high=1.16)
    doc = json.loads(json.dumps(with_bounds({"rows": [{"g": a, "n": 3}], "gm": Estimate(2.0, None)})))
    back = with_intervals(doc)
    g = back["rows"][0]["g"]
    assert isinstance(g, Estimate) and (g.low, g.high) == (1.05, 1.16) and float(g) == 1.1
    # the JSON has no se / df: arithmetic on a rebuilt estimate is not estimable, not invented
    assert g.se is None and (g * 2).half_width is None
    assert f"{g:.3f}" == "1.100 [1.050, 1.160]" and f"{g * 2:.3f}" == "2.200 ±?"
    assert type(back["rows"][0]["n"]) is int and type(back["gm"]) is float   # no bounds there
    seen = []
    monkeypatch.setitem(figures.FIGURES, "tiny", lambda data, meta: seen.append(data) or [])
    draw_figures(tmp_path, "tiny", {**doc, "sampling": {"level": "launch"}}, None)
    draw_figures(tmp_path, "tiny", doc, None)             # not a sampled report: as it was
    assert isinstance(seen[0]["rows"][0]["g"], Estimate)
    assert type(seen[1]["rows"][0]["g"]) is float


def test_a_sampled_report_reads_a_stored_full_run_instead_of_sampling_it():
    from golden.jobs.sampled import STORED
    plan = sample_jobs([BASE, GSCALAR], "launch", stored=lambda j: j == BASE)
    assert plan.jobs[0] is BASE and plan.in_full == {BASE.key: STORED}
    assert plan.level_of(BASE.key) == "full" and plan.level_of(GSCALAR.key) == "launch"
    assert any(STORED in line for line in plan.refused_lines())
