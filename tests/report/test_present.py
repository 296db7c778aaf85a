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


def _publish(tmp_path, dct_results):
    from golden.report.present import publish
    results, jobs = dct_results
    datas, mds = {}, {}
    md, data = baseline.render(results, OPTS)
    datas["baseline"], mds["baseline"] = json.loads(json.dumps(data, default=str)), md
    md, data = darsie.render(results, OPTS)
    datas["darsie"], mds["darsie"] = json.loads(json.dumps(data, default=str)), md
    return publish(tmp_path, datas, mds, results, {"baseline": jobs[::2], "darsie": jobs[:2]},
                   size="small", seed=0, fingerprint="f" * 64)


def test_publish_writes_figures_csv_and_page(tmp_path, dct_results):
    index = _publish(tmp_path, dct_results)
    figs = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert "baseline-pascal-stalls.svg" in figs and "baseline-pascal-stalls.png" in figs
    assert "darsie-speedup-2d.png" in figs
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
    shot = Path("build/report-page.png").resolve()
    shot.parent.mkdir(parents=True, exist_ok=True)
    r = _headless(exe, f"--screenshot={shot}", "--window-size=1280,2400", url)
    assert r.returncode == 0 and shot.is_file() and shot.stat().st_size > 20_000, r.stderr[-2000:]


def test_tidy_tolerates_job_kinds_without_cycles():
    from golden.report.present.tidy import metrics_of
    got = dict(metrics_of({"timing": {"instructions_issued": 5, "mechanism": {"x.y": 2}},
                           "outputs_match": True}, {"timing": {}, "cycles": 10}))
    assert got == {"instructions_issued": 5, "mechanism.x.y": 2, "outputs_match": 1}
