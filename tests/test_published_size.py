"""The ``published`` input size: the papers' own inputs (golden/workloads/published.yaml),
the fallback to ``paper``, and reports that reuse the paper-size runs."""

from __future__ import annotations

import pytest

from golden.errors import SimtlabError
from golden.jobs.job import TimingJob, WorkloadProbe
from golden.jobs.published import published_plan
from golden.workloads import registry
from golden.workloads.published import published_inputs, with_published


def test_named_inputs_become_a_published_size_over_the_paper_parameters():
    ws = registry.all_workloads()
    hs = ws["HS"]
    assert hs.sizes["published"] == {**hs.sizes["paper"], "rows": 512, "cols": 512}
    ray = ws["RAY"].sizes["published"]
    assert (ray["width"], ray["height"], ray["pixel_scale"]) == (512, 512, 1 / 512)
    assert isinstance(ray["ambient"], tuple)          # untouched parameters keep their type
    assert "published" not in ws["MT"].sizes     # named, but out of reach (published.yaml)


def test_published_falls_back_to_paper_where_no_input_of_its_own():
    assert registry.resolve_size("HS", "published") == "published"
    assert registry.resolve_size("CONV", "published") == "paper"    # paper is the named input
    assert registry.resolve_size("MM", "published") == "paper"      # no paper names one
    assert registry.resolve_size("MM", "small") == "small"
    entries = published_inputs()
    assert entries["CONV"].input == {} and "512" in entries["CONV"].source
    for name, e in entries.items():
        assert e.source, name


def test_every_listed_workload_exists_and_every_input_names_paper_parameters():
    ws = registry.all_workloads()
    for name, e in published_inputs().items():
        assert name in ws
        assert set(e.input) <= set(ws[name].sizes["paper"]), name


@pytest.mark.parametrize("text, where", [
    ("NOPE:\n  source: x\n", "NOPE: no such workload"),
    ("HS:\n  source: x\n  input: {rowz: 3}\n", "HS.input.rowz: not a parameter"),
    ("HS:\n  input: {rows: 3}\n", "HS.source"),
    ("HS:\n  source: x\n  inputs: {rows: 3}\n", "HS.inputs: unknown key"),
])
def test_a_bad_published_table_names_the_key_path(tmp_path, text, where):
    p = tmp_path / "published.yaml"
    p.write_text(text)
    with pytest.raises(SimtlabError, match=where.replace(".", r"\.")):
        with_published(registry.all_workloads(), p)


def test_a_run_at_published_uses_the_named_input_and_matches_numpy():
    run = registry.run_workload("BFS", "published", seed=0)
    assert run.size == "published" and run.params["n_nodes"] == 4096
    assert not run.mismatches()
    assert registry.run_workload("VA", "published").size == "paper"


def test_a_report_at_published_runs_the_paper_job_where_that_is_the_same_run():
    mm = TimingJob("MM", "pascal", "published")
    hs = TimingJob("HS", "pascal", "published", mechanisms=("darsie",))
    probe = WorkloadProbe("CONV", "published")
    plan = published_plan([mm, hs, probe, TimingJob("MM", "pascal", "small")])
    assert [j.key for j in plan.jobs] == ["MM/pascal/baseline/paper/s0",
                                          "HS/pascal/darsie/published/s0",
                                          "/CONV/paper/s0", "MM/pascal/baseline/small/s0"]
    assert plan.own == ["HS"] and plan.at_paper == ["CONV", "MM"]
    view = plan.view({"MM/pascal/baseline/paper/s0": {"cycles": 7}})
    assert view[mm.key] == {"cycles": 7} and hs.key not in view
    assert [j.key for j in plan.map([mm])] == ["MM/pascal/baseline/paper/s0"]
    assert "HS" in plan.note() and "MM" in plan.note()


def test_a_concurrent_mix_at_published_runs_at_paper_when_no_kernel_has_its_own_input():
    from golden.report.hetero import ConcurrentJob
    mix = ConcurrentJob(("NQU", "MM"), "H", "published")
    plan = published_plan([mix, ConcurrentJob(("NQU", "RAY"), "H", "published")])
    assert [j.size for j in plan.jobs] == ["paper", "published"]
    assert plan.alias == {mix.key: plan.jobs[0].key}
