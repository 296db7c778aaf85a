"""The ILP report's branch-prediction accuracy per branch class (golden/report/ilp.py,
issue 67 item 8): mean over workloads (the chapter's average) beside the accuracy pooled
over all branches, and the divergent and not-predicted shares of each class."""

import pytest

from golden.report import ilp
from golden.report.runner import ReportOptions

OPTS = ReportOptions(size="small")


def _results(counts: dict) -> dict:
    """Fake results: every predictor of each workload with the given counters."""
    out = {}
    for w, m in counts.items():
        for p in ilp.PREDICTORS:
            out[ilp._bp_job(w, OPTS, p).key] = {
                "cycles": 100, "output_digest": "d", "outputs_match": True,
                "timing": {"mechanism": m}}
    return out


def test_per_class_mean_and_pooled_accuracy_differ_by_weighting():
    counts = {
        "SCAN": {"bp.correct": 1, "bp_class.data.correct": 1},
        "MM": {"bp.correct": 1, "bp.mispredict": 3, "bp_class.data.correct": 1,
               "bp_class.data.mispredict": 3, "bp_class.data.divergent": 2,
               "bp_class.data.not_predicted": 2},
    }
    md, data = [], {}
    ilp._branch_classes(_results(counts), OPTS, list(counts), md, data)
    pc = data["per_class"]
    assert pc["mean_accuracy"]["data/static"] == pytest.approx((1 + 0.25) / 2)
    assert pc["pooled_accuracy"]["data/static"] == pytest.approx(2 / 5)
    assert pc["pooled_overall"]["gshare"] == pytest.approx(2 / 5)
    assert pc["pooled_accuracy"]["loop-end/static"] is None
    mm = next(r for r in pc["rows"] if r["workload"] == "MM")
    assert mm["data"] == {**mm["data"], "uniform": 4, "divergent": 2, "not_predicted": 2}
    assert "| MM | – |" in "\n".join(md) and "4 / 25% / 25%" in "\n".join(md)
    assert "**pooled**" in "\n".join(md)


def test_report_runs_the_old_long_latency_rule_beside_the_chapters():
    keys = {j.key for j in ilp.jobs(OPTS) if j.workload == "MM"}
    for p in ("ilp-bp-static:deps=direct", "ilp-bp-gshare:deps=direct", "ilp-bp-static"):
        assert any(k.endswith(f"+{p}/small/s0,pipelines.bypass=True,pipelines.control_latency=1")
                   for k in keys), p
