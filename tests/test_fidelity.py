"""Workload-fidelity table (golden/report/fidelity.py, ``simtlab characterise
--against-papers``): tolerance logic, benchmark matching, row building from a fake
measurement, the report marks, and the command at small size on two workloads."""

from __future__ import annotations

import json
import re

import pytest

from golden.errors import SimtlabError
from golden.report import fidelity
from golden.report.fidelity import (Cell, FidelityMarks, FidelityProbe, Row, build_row,
                                    explained_line,
                                    match_benchmark, results_lookup, row_specs, summary_line,
                                    within)


# ----------------------------------------------------------------------- tolerance
def test_exact_tolerance_needs_equality():
    assert within("exact", 8, 8) is True
    assert within("exact", 8, 9) is False
    assert within("exact", "16x16", "16x16") is True
    assert within("exact", "register", "both") is False


def test_points_tolerance_is_five_points_either_side():
    assert within("points", 29, 34.0) is True
    assert within("points", 29, 24.0) is True
    assert within("points", 29, 34.1) is False
    assert within("points", 29, 23.9) is False


def test_ratio_tolerance_is_25_percent_either_side():
    assert within("ratio", 100.0, 125.0) is True
    assert within("ratio", 100.0, 75.0) is True
    assert within("ratio", 100.0, 125.5) is False
    assert within("ratio", 100.0, 74.5) is False


def test_bounds_and_unchecked_properties():
    assert within("at_most", 16, 16) is True
    assert within("at_most", 16, 24) is False
    assert within("at_least", 10240, 9000) is False
    assert within("at_least", 40, 41.0) is True
    assert within("info", "32", "n=10") is None
    assert within("ratio", 5.0, None) is None
    with pytest.raises(ValueError):
        within("roughly", 1, 1)


# ----------------------------------------------------------------------- matching
BENCHES = {"MUM": {"facts": {}}, "MUM++": {"facts": {}}, "SR": {"facts": {}},
           "RAY": {"facts": {}}}


def test_benchmark_is_matched_by_word_not_substring():
    assert match_benchmark("CAPRI Table 2: MUM++ MUMmerGPU++ (divergent)", BENCHES) == "MUM++"
    assert match_benchmark("CAPRI Table 2: MUM MUMmerGPU (divergent)", BENCHES) == "MUM"
    assert match_benchmark("WarpMan Table 5: SRad (SR)", BENCHES) == "SR"
    assert match_benchmark("ILP workloads: Ray", BENCHES) == "RAY"
    assert match_benchmark("WarpMan Table 5: Stencil (ST)", BENCHES) is None


def test_every_published_benchmark_has_a_stand_in():
    """Each benchmark of the facts file is reached by some workload's stands_for entry
    (a renamed entry would silently drop its row otherwise)."""
    from golden.workloads import registry
    facts = fidelity.load_facts()
    specs, _ = row_specs(facts, {n: w.stands_for for n, w in registry.all_workloads().items()})
    reached = {(s.paper, s.benchmark) for s in specs}
    published = {(p, b) for p, spec in facts["papers"].items()
                 for b, bs in spec["benchmarks"].items() if bs.get("facts")}
    assert published - reached == set()


def test_unknown_property_in_facts_file_is_an_error(tmp_path):
    p = tmp_path / "facts.yaml"
    p.write_text("papers:\n  X:\n    prefix: X\n    cite: T\n    benchmarks:\n"
                 "      A: {facts: {no_such_property: 1}}\n")
    with pytest.raises(SimtlabError, match="no_such_property"):
        fidelity.load_facts(p)


# ----------------------------------------------------------------------- rows
FACTS = {"papers": {"WarpMan": {"prefix": "WarpMan", "cite": "Table 5", "benchmarks": {
    "MM": {"facts": {"warps_per_tb": 8, "tbs_per_sm": 5, "limiter": "register",
                     "baseline_ipc_warpman": 420.4},
           "cite": {"tbs_per_sm": "§3.3"}}}},
    "DARSIE": {"prefix": "DARSIE", "cite": "Table 1", "benchmarks": {
        "MM": {"facts": {"tb_shape": "32x32"}}, "HS": {"facts": {"tb_shape": "16x16"}}}}}}
WORKLOADS = {"MM": ("DARSIE Table 1: MM MatrixMul", "WarpMan Table 5: MatrixMultiply (MM)",
                    "UV Table 3: Matrix multiply (MM)")}


def _fake_probe() -> dict:
    """A tiny FidelityProbe result: one launch of 32x32 TBs; 8 warps and 5 TBs per SM on
    the WarpMan GPU, limited by registers and threads."""
    occ = {"kernel": "mm", "warps_per_tb": 8, "regs_per_tb": 6144, "tbs_per_sm": 5,
           "limiters": ["threads", "registers"], "registers_per_sm": 32768,
           "unused_regs": 2048}
    return {"outputs_match": True, "params": {"n": 64},
            "launches": [{"kernel": "mm", "block": [32, 32, 1], "grid": [2, 2, 1], "num_tbs": 4,
                          "warp_instructions": 100, "thread_instructions": 3200,
                          "largest_tb": 0, "tb0_branch_share": 0.1}],
            "occupancy": {fidelity.WARPMAN_CONFIG: occ, fidelity.ILP_CONFIG: occ},
            "warp_instructions": 100, "thread_instructions": 3200}


def test_rows_follow_stands_for_and_skip_papers_without_facts():
    specs, bare = row_specs(FACTS, WORKLOADS)
    assert [(s.paper, s.benchmark) for s in specs] == [("WarpMan", "MM"), ("DARSIE", "MM")]
    assert bare == []     # UV is not in FACTS at all, so not "bare" either
    assert specs[0].cites == {"warps_per_tb": "Table 5", "tbs_per_sm": "§3.3",
                              "limiter": "Table 5", "baseline_ipc_warpman": "Table 5"}


def test_row_from_fake_measurement_names_failing_property_and_missing_timing_job():
    spec = row_specs(FACTS, WORKLOADS)[0][0]
    results = {FidelityProbe("MM", "small", 0).key: _fake_probe()}
    row = build_row(spec, results_lookup(results, "small", 0))
    by = {c.prop: c for c in row.cells}
    assert by["warps_per_tb"].ok is True and by["tbs_per_sm"].ok is True
    assert by["limiter"].measured == "both" and by["limiter"].ok is False
    ipc = by["baseline_ipc_warpman"]
    assert ipc.measured is None and ipc.ok is None
    assert "needs timing job MM/gtx480_warpman/warp-lifetimes/small/s0" in ipc.missing
    assert [c.prop for c in row.failing] == ["limiter"]
    assert not row.within
    md = fidelity.render_rows([row], [], "small", 0)
    assert "limited by both vs register" in md
    assert md.rstrip().splitlines()[-1] == "0 of 1 rows within tolerance"


def test_explained_failure_is_named_with_its_reason_but_never_counted_within():
    import copy
    facts = copy.deepcopy(FACTS)
    facts["papers"]["WarpMan"]["benchmarks"]["MM"]["explained"] = {
        "limiter": "compiler allocation", "warps_per_tb": "shape fixed by DARSIE"}
    spec = row_specs(facts, WORKLOADS)[0][0]
    results = {FidelityProbe("MM", "small", 0).key: _fake_probe()}
    row = build_row(spec, results_lookup(results, "small", 0))
    by = {c.prop: c for c in row.cells}
    assert by["limiter"].ok is False and by["limiter"].explained == "compiler allocation"
    assert by["warps_per_tb"].ok is True and by["warps_per_tb"].explained == ""
    assert row.explained and not row.within
    md = fidelity.render_rows([row], [], "small", 0)
    assert "OUT (explained): limited by" in md
    assert "limited by both vs register -- compiler allocation" in md
    lines = md.rstrip().splitlines()
    assert lines[-2] == ("1 rows out of tolerance: 1 with a stated reason (explained, not "
                         "counted within), 0 without")
    assert lines[-1] == "0 of 1 rows within tolerance"
    assert fidelity.to_json([row], [], "small", 0)["explained"] == 1


def test_explained_fact_without_reason_or_published_value_is_rejected(tmp_path):
    bad = tmp_path / "f.yaml"
    bad.write_text("papers:\n  WarpMan:\n    prefix: WarpMan\n    cite: T5\n    benchmarks:\n"
                   "      MM: {facts: {tbs_per_sm: 5}, explained: {limiter: why}}\n")
    with pytest.raises(SimtlabError, match="explained 'limiter' needs a published fact"):
        fidelity.load_facts(bad)


def test_timing_measurement_from_cached_result_is_used_per_700_mhz_cycle():
    # 200 thread instructions per gtx480_warpman (1.4 GHz) cycle = 400 per 700 MHz cycle,
    # the GPGPU-Sim 3.2 core cycle WarpMan's Table 5 IPC counts
    spec = row_specs(FACTS, WORKLOADS)[0][0]
    timing = {"outputs_match": True, "cycles": 2000,
              "timing": {"thread_instructions": 400_000, "mechanism": {}}}
    key = fidelity.SOURCES["warpman-timing"].candidates("MM", "small", 0)[0].key
    results = {FidelityProbe("MM", "small", 0).key: _fake_probe(), key: timing}
    row = build_row(spec, results_lookup(results, "small", 0))
    ipc = next(c for c in row.cells if c.prop == "baseline_ipc_warpman")
    assert ipc.measured == pytest.approx(400.0) and ipc.ok is True


def test_row_is_within_only_when_every_property_is_measured_and_none_fails():
    ok = Cell("tb_shape", "8x8", "8x8", "exact", True, "T1")
    gone = Cell("baseline_ipc_uv", 1.0, None, "ratio", None, "T3", "not measured")
    bad = Cell("tbs_per_sm", 2, 1, "exact", False, "T5")
    assert Row("A0", "P", "A0", [ok]).within
    partly = Row("A", "P", "A", [ok, gone])
    assert not partly.within and partly.partial
    assert not Row("B", "P", "B", [gone]).within and not Row("B", "P", "B", [gone]).partial
    assert "1 within where measured" in explained_line([partly])
    assert not Row("C", "P", "C", [ok, bad]).within
    assert summary_line([Row("A", "P", "A", [ok]), Row("C", "P", "C", [bad])]) == \
        "1 of 2 rows within tolerance"


def test_marks_dagger_only_stand_ins_out_of_tolerance_for_that_paper():
    bad = Row("RAY", "WarpMan", "RAY", [Cell("tbs_per_sm", 2, 1, "exact", False, "T5")])
    good = Row("MM", "WarpMan", "MM", [Cell("tbs_per_sm", 5, 5, "exact", True, "T5")])
    other = Row("MM", "UV", "MM", [Cell("scalar_instructions", 2e6, 1, "ratio", False, "T3")])
    marks = FidelityMarks([bad, good, other], "WarpMan")
    assert marks.footnote() == ""
    assert marks.mark("MM", "1.05") == "1.05"
    assert marks.mark("RAY", "1.30") == "1.30†"
    assert "RAY (TBs/SM)" in marks.footnote() and "MM" not in marks.footnote()


# ----------------------------------------------------------------------- command
def test_against_papers_command_small_two_workloads(tmp_path, capsys):
    from golden.cli import main
    rc = main(["characterise", "--against-papers", "--size", "small", "--only", "DCT", "HS",
               "-j", "1", "--no-cache", "--out", str(tmp_path)])
    out = capsys.readouterr().out.rstrip().splitlines()
    assert rc == 0
    assert re.fullmatch(r"\d+ of \d+ rows within tolerance", out[-1])
    data = json.loads((tmp_path / "fidelity.json").read_text())
    assert {r["workload"] for r in data["rows"]} == {"DCT", "HS"}
    assert out[-1] == data["summary"]
    shape = next(c for r in data["rows"] if r["workload"] == "DCT" for c in r["cells"]
                 if c["property"] == "tb_shape")
    assert shape["measured"] == "8x8" and shape["within"] is True
    # no cache: the timing-derived properties are named with the job they need
    assert any("needs timing job HS/" in c["missing"] for r in data["rows"] for c in r["cells"])


def test_warpman_report_marks_stand_ins_out_of_tolerance():
    """The WarpMan performance table puts † on a workload whose Table 5 row fails, with
    the footnote naming the failing property (fake probe and timing results)."""
    from golden.report import warpman
    from golden.report.runner import ReportOptions
    opts = ReportOptions(size="small")
    probe = _fake_probe()       # 8 warps, 5 TBs/SM, "both": fails on the limiter only
    # 420.4 thread instructions per 700 MHz cycle = 210.2 per 1.4 GHz cycle: IPC within
    mm = "MM-WARPMAN"           # WarpMan's MM (MM itself stands for other papers)
    base = {"outputs_match": True, "output_digest": "d", "cycles": 2000, "ipc": 1.0,
            "energy": {"total_j": 1.0, "static_j": 0.5, "dynamic_j": 0.5},
            "timing": {"thread_instructions": 420_400, "mechanism": {}}}
    results = {FidelityProbe(mm, "small", 0).key: probe,
               warpman._job(mm, opts).key: base}
    md, data = [], {}
    warpman._performance(results, opts, [mm], md, data)
    text = "\n".join(md)
    assert "| MM-WARPMAN† |" in text
    assert "MM-WARPMAN (limited by)" in text


def test_wpdom_simd_utilisation_from_the_probe_equals_the_wpdom_timing_run():
    # the CAPRI Table 2 row reads the functional probe: the WPDOM timing run issues the
    # same warp instructions with the same active threads (a deterministic kernel)
    from golden.report.capri import CONFIG
    from golden.report.runner import TimingJob, run_job
    probe = FidelityProbe("MUM", "small", 0).compute()
    timing = run_job(TimingJob("MUM", CONFIG, size="small", seed=0))["timing"]
    assert (probe["warp_instructions"], probe["thread_instructions"]) == \
        (timing["instructions_issued"], timing["thread_instructions"])
    assert fidelity.PROPERTIES["simd_utilisation"].source == "probe"


def test_against_papers_at_published_measures_the_named_input(tmp_path, capsys):
    from golden.cli import main
    rc = main(["characterise", "--against-papers", "--size", "published", "--only", "BFS",
               "-j", "1", "--no-cache", "--out", str(tmp_path)])
    capsys.readouterr()
    assert rc == 0
    data = json.loads((tmp_path / "fidelity.json").read_text())
    cell = next(c for r in data["rows"] if r["paper"] == "UV" for c in r["cells"]
                if c["property"] == "input")
    assert "n_nodes=4096" in str(cell["measured"])
