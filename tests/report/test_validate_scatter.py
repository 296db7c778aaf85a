"""The correlation view of ``simtlab validate`` (issue 72 item 3): golden/validate/scatter.py,
its place on the results page, and validate writing it. From a small fake validate JSON:
no simulation."""

from __future__ import annotations

import json
import re
from argparse import Namespace

import pytest

FAKE = {"tolerance": 0.2, "correlation": [
    {"case": "MM-gtx480", "reference": 120000.0, "ours": 110000.0, "metric": "cycles",
     "config": "gtx480", "reference_sim": "GPGPU-Sim", "within": True},
    {"case": "BFS-fx5800", "reference": 50000.0, "ours": 71000.0, "metric": "cycles",
     "config": "quadro_fx5800", "reference_sim": "GPGPU-Sim", "within": False},
    {"case": "HS-time", "reference": 35.5, "ours": 33.0, "metric": "time_us"},
    {"case": "BROKEN", "reference": 1000.0, "error": "not run"},
]}


def test_scatter_draws_every_case_with_a_value_and_names_the_rest(tmp_path):
    from golden.validate.scatter import PAGE, points, write_scatter
    good, left = points(FAKE)
    assert [c["case"] for c in good] == ["MM-gtx480", "BFS-fx5800", "HS-time"]
    assert left == ["BROKEN"]
    paths = write_scatter(tmp_path, FAKE)
    names = sorted(p.name for p in paths)
    assert names == [PAGE, "validate-correlation.png", "validate-correlation.svg"]
    svg = (tmp_path / "figures" / "validate-correlation.svg").read_text()
    for case in ("MM-gtx480", "BFS-fx5800", "HS-time (time_us)"):
        assert case in svg
    assert "BROKEN" not in svg and "±20%" in svg
    page = (tmp_path / PAGE).read_text()
    assert "BROKEN" in page and "outside tolerance" in page and "within tolerance" in page
    tags = re.sub(r"(<script[^>]*>).*?</script>", r"\1</script>", page, flags=re.S)
    assert not re.search(r"<script[^>]*\bsrc=", tags)                # plotly.js inlined
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", tags)


def test_no_drawable_case_writes_nothing(tmp_path):
    from golden.validate.scatter import write_scatter
    assert write_scatter(tmp_path, {"tolerance": 0.2, "correlation": [
        {"case": "X", "reference": 10.0, "error": "boom"}]}) == []
    assert not any(tmp_path.iterdir())


def test_results_page_shows_the_scatter_and_links_the_interactive_view(tmp_path):
    from golden.report.present.publish import publish
    from golden.validate.scatter import PAGE, write_scatter
    (tmp_path / "validate.json").write_text(json.dumps(FAKE))
    (tmp_path / "validate.md").write_text("# Baseline validation\n")
    write_scatter(tmp_path, FAKE)
    index = publish(tmp_path, {}, {}, {}, {}, size="small", seed=0, fingerprint="f" * 64)
    page = index.read_text()
    assert re.search(r'<img [^>]*data-name="validate-correlation"', page)
    assert f'href="{PAGE}"' in page


def test_validate_writes_the_scatter_beside_its_json(tmp_path, monkeypatch, capsys):
    """cmd_validate with the simulation replaced by the fake table."""
    from golden.jobs import executors
    from golden.validate import cli, correlation
    table = FAKE["correlation"][:2]
    monkeypatch.setattr(executors, "run_jobs", lambda jobs, workers=1: {})
    monkeypatch.setattr(correlation, "rows", lambda tol, cases, results: table)
    monkeypatch.setattr(correlation, "format_rows", lambda tol, t: "| fake |")
    args = Namespace(sampling=False, cases=None, no_correlation=False, no_micro=True,
                     micro_config=None, jobs=1, out=str(tmp_path),
                     archive=None, limit=None, cached_only=False)
    rc = cli.cmd_validate(args)
    assert rc == 1                                  # the fake table has a case outside
    assert json.loads((tmp_path / "validate.json").read_text())["correlation"] == table
    assert (tmp_path / "figures" / "validate-correlation.png").stat().st_size > 5000
    assert (tmp_path / "validate-correlation.html").is_file()
    assert "validate-correlation.html" in capsys.readouterr().out
