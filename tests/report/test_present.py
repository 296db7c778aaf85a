"""Figures, the tidy CSV, the HTML page and the report commands (golden/report/present)."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from golden.report import baseline, darsie
from golden.report.present.html import markdown_to_html
from golden.report.present.meta import RunMeta
from golden.report.present.tidy import COLUMNS, tidy_rows, to_csv
from golden.report.runner import ReportOptions, TimingJob, run_job

OPTS = ReportOptions(size="small")


@pytest.fixture(scope="module")
def dct_results():
    """Real results: DCT on pascal (baseline and DARSIE) plus its functional digest."""
    jobs = [TimingJob("DCT", "pascal"), TimingJob("DCT", "pascal", mechanisms=("darsie",)),
            baseline.FunctionalJob("DCT")]
    return {j.key: run_job(j) for j in jobs}, jobs


def test_markdown_subset_becomes_html():
    md = ("# Title *x*\n\nText with `a|b` and **bold** and [link](x.json).\n\n"
          "| w | v |\n|---|--:|\n| MM | 1.5 |\n| **gm** | `2` |\n\n* one\n  more\n* two\n\n---\n")
    h = markdown_to_html(md)
    assert '<h2 id="title-x">Title <em>x</em></h2>' in h
    assert "<code>a|b</code>" in h and "<strong>bold</strong>" in h and '<a href="x.json">' in h
    assert h.count("<tr>") == 3 and '<td class="num">1.5</td>' in h
    assert "<li>one more</li>" in h and "<hr>" in h
    assert "<script" not in markdown_to_html("<script>alert(1)</script>")  # escaped


def test_tidy_csv_one_row_per_metric(dct_results):
    results, jobs = dct_results
    rows = tidy_rows(results, {"darsie": jobs})
    text = to_csv(rows)
    table = list(csv.DictReader(text.splitlines()))
    assert tuple(table[0]) == COLUMNS
    by = {(r["mechanism"], r["metric"]): r for r in table if r["kind"] == "timing"}
    base, dar = results[jobs[0].key], results[jobs[1].key]
    assert int(by[("baseline", "cycles")]["value"]) == base["cycles"]
    assert float(by[("darsie", "speedup")]["value"]) == pytest.approx(base["cycles"] / dar["cycles"])
    assert by[("darsie", "outputs_identical_to_baseline")]["value"] == "1"
    assert ("baseline", "speedup") not in by            # no baseline of the baseline
    assert float(by[("baseline", "stall.issue")]["value"]) > 0
    assert any(r["kind"] == "functional" and r["metric"] == "outputs_match" for r in table)
    # every (report, job, metric) appears once
    keys = [(r["report"], r["kind"], r["workload"], r["config"], r["mechanism"], r["metric"])
            for r in table]
    assert len(keys) == len(set(keys))


def _compose_doc():
    """The compose report's JSON with no results (every allowed pair missing) and three
    pairs' interaction geomeans filled in as the report would write them: one super-additive,
    one sub-additive, one within the tolerance. The figure sees only this JSON."""
    from golden.report import compose
    md, data = compose.render({}, OPTS)
    data = json.loads(json.dumps(data, default=str))
    given = {("UV", "ILP"): 1.05, ("DARSIE", "G-Scalar"): 0.95, ("ILP", "G-Scalar"): 1.004}
    for key in ("speedup_interaction", "energy_interaction"):
        for x in data["configs"]["pascal"][key]:
            x["geomean"] = given.get(tuple(x["pair"]), x["geomean"])
    return md, data


def _cell_texts(plot) -> dict:
    """``{text: facecolour of the cell under it}`` of an interaction-matrix figure's first panel."""
    ax = plot.figure.axes[0]
    out = {}
    for t in ax.texts:
        x, y = t.get_position()
        for p in ax.patches:
            if p.get_x() < x < p.get_x() + p.get_width() and p.get_y() < y < p.get_y() + p.get_height():
                out.setdefault(t.get_text(), p.get_facecolor())
    return out


def test_compose_interaction_matrix_marks_super_and_sub_additive_cells():
    from golden.report.present.figures import compose
    _, data = _compose_doc()
    plots = compose(data, RunMeta("small", 0, commit="abc"))
    assert [p.name for p in plots] == ["compose-pascal"]     # no numbers on the WarpMan config
    cells = _cell_texts(plots[0])
    sup, sub, prod = cells["1.050\nsuper"], cells["0.950\nsub"], cells["1.004\nproduct"]
    assert sup[2] > sup[0] and sub[0] > sub[2]               # blue above 1, orange below
    assert tuple(prod[:3]) == (1.0, 1.0, 1.0)               # within tolerance: white
    assert "refused" in cells and "missing" in cells         # e.g. DARSIE+CAPRI; UV+WarpMan
    assert len(plots[0].figure.axes) == 3                    # speed-up, energy, colour bar


def test_compose_matrix_on_the_warpman_config_names_idle_and_unrun_pairs():
    from golden.report import compose
    from golden.report.present.figures import compose as figure
    md, data = compose.render({}, OPTS)
    wm = data["configs"]["gtx480_warpman"]
    assert {tuple(x["pair"]) for x in wm["speedup_interaction"]} == \
        {("UV", "WarpMan"), ("WarpMan", "ILP"), ("WarpMan", "G-Scalar")}
    assert "not run" in md.split("## `gtx480_warpman`")[1]
    for key in ("speedup_interaction", "energy_interaction"):
        for x in wm[key]:
            x["geomean"] = {("UV", "WarpMan"): 1.1, ("WarpMan", "ILP"): "idle"}.get(
                tuple(x["pair"]), x["geomean"])
    plots = figure(json.loads(json.dumps(data, default=str)), RunMeta("small", 0, commit="abc"))
    cells = _cell_texts(plots[-1])
    assert plots[-1].name == "compose-gtx480_warpman"
    assert "idle" in cells and "not run" in cells and "1.100\nsuper" in cells
    assert "Only the pairs with WarpMan" in plots[-1].caption


def _publish(tmp_path, dct_results):
    from golden.report.present import publish
    results, jobs = dct_results
    datas, mds = {}, {}
    mds["compose"], datas["compose"] = _compose_doc()
    md, data = baseline.render(results, OPTS)
    datas["baseline"], mds["baseline"] = json.loads(json.dumps(data, default=str)), md
    md, data = darsie.render(results, OPTS)
    datas["darsie"], mds["darsie"] = json.loads(json.dumps(data, default=str)), md
    return publish(tmp_path, datas, mds, results, {"baseline": jobs[::2], "darsie": jobs[:2],
                                                    "compose": []},
                   size="small", seed=0, fingerprint="f" * 64)


def test_publish_writes_figures_csv_and_page(tmp_path, dct_results):
    index = _publish(tmp_path, dct_results)
    figs = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert "baseline-pascal-stalls.svg" in figs and "baseline-pascal-stalls.png" in figs
    assert "darsie-speedup-2d.png" in figs
    assert "compose-pascal.png" in figs                  # the interaction matrix (issue 73)
    page = index.read_text()
    n_img = page.count("<img ")
    assert n_img == len([f for f in figs if f.endswith(".png")]) >= 5
    assert "size small, seed 0, commit" in page           # captions say what was run
    assert 'href="results.csv"' in page and 'href="darsie.json"' in page
    assert 'href="darsie.csv"' in page and (tmp_path / "darsie.csv").is_file()
    assert (tmp_path / "results.csv").read_text().count("\n") > \
        (tmp_path / "darsie.csv").read_text().count("\n") > 50
    assert "How our setup differs" in page                  # the reports' setup differences
    assert "numpy" in page and "ffffffffffffffff" in page    # versions and fingerprint
    assert "http://" not in page and "https://" not in page  # self-contained
    # the same results give the same figures (deterministic SVG)
    svg = (tmp_path / "figures" / "darsie-speedup-2d.svg").read_bytes()
    _publish(tmp_path, dct_results)
    assert (tmp_path / "figures" / "darsie-speedup-2d.svg").read_bytes() == svg


def test_validate_scatter_from_validate_json(tmp_path):
    from golden.report.present.figures import validate
    pts = validate({"tolerance": 0.2, "correlation": [
        {"case": "MM", "reference": 100.0, "ours": 90.0}, {"case": "HS", "reference": 50.0, "ours": 55.0}]},
        RunMeta("small", 0, commit="abc"))
    assert len(pts) == 1 and "±20%" in pts[0].caption


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        msg = "Debian chromium is needed for the report page test (make setup installs it)"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return exe


def _headless(exe: str, *args, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu",
                           "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars",
                           *args], capture_output=True, text=True, timeout=timeout)


def test_report_page_renders_in_a_real_browser(tmp_path, dct_results):
    """Load build/results-style index.html in headless Debian chromium: every figure decoded
    with a non-zero size, none broken; screenshot into build/report-page.png."""
    exe = _chromium()
    index = _publish(tmp_path, dct_results)
    url = index.resolve().as_uri()
    dom = _headless(exe, "--virtual-time-budget=10000", "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    m = re.search(r'<body[^>]*data-figures="(\d+)/(\d+)"', dom.stdout)
    assert m, "the page's load script did not run:\n" + dom.stdout[:500]
    ok, total = int(m.group(1)), int(m.group(2))
    assert total >= 5 and ok == total, re.search(r'data-broken="([^"]*)"', dom.stdout).group(1)
    assert 'data-name="compose-pascal"' in dom.stdout      # the interaction matrix rendered
    shot = Path("build/report-page.png").resolve()
    shot.parent.mkdir(parents=True, exist_ok=True)
    r = _headless(exe, f"--screenshot={shot}", "--window-size=1280,2400", url)
    assert r.returncode == 0 and shot.is_file() and shot.stat().st_size > 20_000, r.stderr[-2000:]


def test_tidy_tolerates_job_kinds_without_cycles():
    from golden.report.present.tidy import metrics_of
    got = dict(metrics_of({"timing": {"instructions_issued": 5, "mechanism": {"x.y": 2}},
                           "outputs_match": True}, {"timing": {}, "cycles": 10}))
    assert got == {"instructions_issued": 5, "mechanism.x.y": 2, "outputs_match": 1}
