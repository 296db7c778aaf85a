"""Per-run views of the results page (issue 72 item 4): ``simtlab report --profiles``
(golden/report/profile_pages.py) and their links from the report tables
(golden/report/present/html.py, publish.py)."""

from __future__ import annotations

import json
import types

import pytest

from golden.report.profile_pages import (HEADLINE, RunView, headline_views, read_links,
                                         write_profiles)
from golden.report.runner import ReportOptions, TimingJob

OPTS = ReportOptions(size="small")


def _fake_report(*jobs):
    return types.SimpleNamespace(jobs=lambda opts: list(jobs))


def test_headline_views_take_the_headline_mechanism_alone_without_overrides():
    rep = _fake_report(TimingJob("MM", "pascal"), TimingJob("MM", "pascal", mechanisms=("darsie",)),
                       TimingJob("MM", "pascal", mechanisms=("uv",)),
                       TimingJob("MM", "pascal", mechanisms=("darsie",),
                                 overrides=(("core.num_sms", 2),)),
                       TimingJob("HS", "pascal", mechanisms=("darsie",)),
                       TimingJob("HS", "pascal", mechanisms=("darsie",)))
    vs = headline_views("darsie", rep, OPTS)
    assert [(v.workload, v.mechanisms) for v in vs] == [("MM", ("darsie",)), ("HS", ("darsie",))]
    assert vs[0].key == TimingJob("MM", "pascal", mechanisms=("darsie",)).key
    assert vs[0].baseline().key == TimingJob("MM", "pascal").key
    assert [v.mechanisms for v in headline_views("baseline", rep, OPTS)] == [()]
    assert headline_views("hetero", rep, OPTS) == []          # no headline run
    assert "fidelity" not in HEADLINE


def test_every_headline_mechanism_is_registered():
    from golden.mechanisms.registry import arguments
    for mechs in HEADLINE.values():
        for m in mechs:
            arguments(m)   # raises ConfigError for an unknown name


def test_report_modules_have_headline_runs_at_small_size():
    from golden.report import available_reports
    avail = available_reports()
    for name in ("darsie", "gscalar", "warpman", "compose"):
        if name in avail:
            assert headline_views(name, avail[name], OPTS), name


@pytest.fixture(scope="module")
def views(tmp_path_factory):
    """Tiny MM on pascal: baseline listing, DARSIE listing and diff, written once."""
    mp = pytest.MonkeyPatch()
    from conftest import TINY
    import dataclasses
    from golden.workloads import registry
    from golden.workloads.defs import mm
    w = registry.get("MM")
    mp.setattr(mm, "WORKLOAD", dataclasses.replace(
        w, sizes={**w.sizes, "small": {**w.sizes["small"], **TINY["MM"]}}))
    out = tmp_path_factory.mktemp("results")
    v = RunView("MM", "pascal", "small", 0, ("darsie",))
    calls = []
    # a wrong cycle count for the DARSIE run in the "report results": must be flagged
    results = {v.key: {"cycles": 1}}
    doc = write_profiles(out, {"darsie": [v], "baseline": [v.baseline()]}, results,
                         fingerprint="f" * 8, log=calls.append, source_lines=False)
    yield out, v, doc, calls, results
    mp.undo()


def test_profiles_write_listing_timeline_and_diff_and_flag_a_cycle_mismatch(views):
    out, v, doc, calls, _ = views
    assert calls and "profiling 2 run(s)" in calls[0]
    base = v.baseline()
    for f in (f"{v.stem}.html", f"{v.stem}-diff.html", f"{base.stem}.html",
              f"{v.stem}-timeline.html", f"{base.stem}-timeline.html"):
        assert (out / "profiles" / f).is_file(), f
    diff = (out / "profiles" / f"{v.stem}-diff.html").read_text()
    assert "darsie" in diff and "baseline" in diff
    timeline = (out / "profiles" / f"{v.stem}-timeline.html").read_text()
    assert "darsie" in timeline and "plotly" in timeline.lower()
    links = doc["reports"]["darsie"]["MM"]
    assert [x["label"] for x in links if x["href"]] == \
        ["baseline profile", "baseline timeline", "darsie profile", "darsie timeline",
         "darsie diff vs baseline"]
    problems = [x["label"] for x in links if x["href"] is None]
    assert len(problems) == 1 and problems[0].endswith("the report's run 1")
    assert doc["views"][base.stem]["problems"] == []          # no report result: no check
    assert [x["label"] for x in doc["reports"]["baseline"]["MM"]] == \
        ["baseline profile", "baseline timeline"]


def test_a_timeline_beside_a_profile_has_about_400_samples():
    from golden.report.profile_pages import timeline_every
    assert timeline_every(None) == 1000 and timeline_every(1_000_000) == 2500
    assert timeline_every(5_000) == 100                        # never finer than 100 cycles


def test_profiles_made_with_the_same_fingerprint_are_not_simulated_again(views):
    out, v, _, _, results = views
    calls = []
    page = out / "profiles" / f"{v.stem}.html"
    before = page.stat().st_mtime_ns
    write_profiles(out, {"darsie": [v]}, results, fingerprint="f" * 8, log=calls.append,
                   source_lines=False)
    assert calls == [] and page.stat().st_mtime_ns == before


def test_links_are_read_only_for_the_pages_size_seed_and_fingerprint(views):
    out = views[0]
    assert read_links(out, "small", 0, "f" * 8)["darsie"]["MM"]
    assert read_links(out, "small", 0) and read_links(out, "paper", 0) == {}
    assert read_links(out, "small", 1) == {} and read_links(out, "small", 0, "e" * 8) == {}


def test_results_page_links_the_views_from_the_table_rows(views):
    from golden.report.present import publish
    out = views[0]
    md = "# DARSIE\n\n| workload | speedup |\n|---|--:|\n| MM | 1.4 |\n| **HS** | 1.1 |\n"
    index = publish(out, {"darsie": {"size": "small", "seed": 0}}, {"darsie": md}, {},
                    {"darsie": []}, size="small", seed=0, figures=False, fingerprint="f" * 8)
    page = index.read_text()
    row = page.split("<td class=\"\">MM")[1].split("</tr>")[0]
    assert 'href="profiles/MM-pascal-darsie-small-s0-diff.html"' in row
    assert 'href="profiles/MM-pascal-baseline-small-s0.html"' in row
    assert 'href="profiles/MM-pascal-darsie-small-s0-timeline.html"' in row
    assert "HS</strong> <span class=\"views\">" not in page      # no views of HS
    assert "Per-run views" in page and 'class="problem"' in page
    # another size's page does not link them
    other = publish(out, {"darsie": {"size": "paper", "seed": 0}}, {"darsie": md}, {},
                    {"darsie": []}, size="paper", seed=0, figures=False, fingerprint="f" * 8)
    assert "profiles/" not in other.read_text()


def test_report_profiles_option_writes_the_headline_views_and_is_off_by_default(
        tmp_path, monkeypatch):
    from golden.cli import main
    from golden.report import profile_pages
    calls = []
    monkeypatch.setattr(profile_pages, "write_profiles",
                        lambda out, views_of, results, **kw: calls.append(views_of) or {})
    args = ["report", "compose", "--size", "small", "--cached-only", "--no-figures",
            "--cache-dir", str(tmp_path / "cache"), "--archive", str(tmp_path),
            "--out", str(tmp_path / "out")]
    main(args)
    assert calls == []                                   # off unless asked for
    main(args + ["--profiles"])
    (views_of,) = calls
    assert list(views_of) == ["compose"] and views_of["compose"]
    assert {v.mechanisms for v in views_of["compose"]} == {("darsie", "gscalar")}


def test_a_failing_profile_is_listed_as_a_problem_not_raised(tmp_path, monkeypatch):
    from golden.report import profile

    def broken(*a, **kw):
        raise AttributeError("no such counter")
    monkeypatch.setattr(profile, "profile_workload", broken)
    v = RunView("MM", "pascal", "small", 0, ("darsie",))
    doc = write_profiles(tmp_path, {"darsie": [v]}, {}, source_lines=False)
    links = doc["reports"]["darsie"]["MM"]
    assert all(x["href"] is None for x in links) and len(links) == 1
    assert "AttributeError: no such counter" in links[0]["label"]
    assert not (tmp_path / "profiles" / f"{v.stem}.html").exists()
