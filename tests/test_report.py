"""The report engine: timing jobs, determinism across worker counts, the baseline report."""

import json

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.mechanisms.registry import make_mechanisms
from golden.report import baseline
from golden.jobs.executors import run_jobs
from golden.jobs.job import TimingJob, run_job
from golden.report.runner import ReportOptions, geomean


def _strip(r):
    return {k: v for k, v in r.items() if k not in ("wall_seconds", "cpu_seconds")}


def test_job_result_and_determinism_across_workers():
    jobs = [TimingJob("DCT", "pascal"), TimingJob("BS", "gtx480")]
    one = run_jobs(jobs, workers=1, progress=False)
    two = run_jobs(jobs + jobs, workers=2, progress=False)  # duplicates run once
    assert sorted(one) == sorted(two) == sorted(j.key for j in jobs)
    for k in one:
        assert _strip(one[k]) == _strip(two[k])
        r = one[k]
        assert r["outputs_match"] and r["cycles"] > 0 and r["ipc"] > 0
        assert abs(sum(r["stall_fractions"].values()) - 1) < 1e-9
        assert r["energy"]["total_j"] > r["energy"]["dynamic_j"] > 0
        json.dumps(r)


def test_result_cache_reuses_results_while_their_dependencies_are_unchanged(tmp_path):
    import hashlib
    from golden.jobs.cache import ResultCache, archive_results, model_fingerprint
    jobs = [TimingJob("DCT", "pascal")]
    cache = ResultCache(tmp_path / "c", archive=[])
    first = run_jobs(jobs, workers=1, progress=False, cache=cache)
    (key,) = first
    assert "from_cache" not in first[key] and cache.get(jobs[0]) is not None
    assert first[key]["simulated_at"]
    again = run_jobs(jobs, workers=1, progress=False, cache=cache)
    assert again[key].pop("from_cache")
    assert _strip(again[key]) == _strip(json.loads(json.dumps(first[key])))
    # a stored result whose dependency map differs from today's is not reused
    entry = tmp_path / "c" / (hashlib.sha256(key.encode()).hexdigest()[:24] + ".json")
    data = json.loads(entry.read_text())
    assert "timing/sm.py" in data["deps"] and "workloads/kernels/dct.ptx" in data["deps"]
    data["deps"]["timing/sm.py"] = "0" * 20
    from golden.jobs.entries import seal     # a well-formed entry of an older source
    entry.write_text(json.dumps(seal(data)))
    assert cache.get(jobs[0]) is None and cache.get_unverified(key)["cycles"] == first[key]["cycles"]
    # errors are never cached
    bad = run_jobs([TimingJob("DCT", "no_such_config")], workers=1, progress=False, cache=cache)
    assert cache.get(TimingJob("DCT", "no_such_config")) is None and "error" in next(iter(bad.values()))
    # archive: valid results of the size only; a fresh cache reads them from the archive
    run_jobs(jobs, workers=1, progress=False, cache=cache)
    assert archive_results(tmp_path / "c", tmp_path / "a", size="paper") == 0
    assert archive_results(tmp_path / "c", tmp_path / "a", size=None) == 1
    fresh = ResultCache(tmp_path / "empty", archive=[tmp_path / "a"])
    hit = run_jobs(jobs, workers=1, progress=False, cache=fresh)
    assert hit[key]["from_cache"] and hit[key]["cycles"] == first[key]["cycles"]
    # the whole-model fingerprint (provenance) follows the source bytes
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("x = 1\n")
    f1 = model_fingerprint(tmp_path / "pkg")
    (tmp_path / "pkg" / "m.py").write_text("x = 2\n")
    assert model_fingerprint(tmp_path / "pkg") != f1


def test_failing_job_is_reported_not_raised():
    r = run_jobs([TimingJob("DCT", "no_such_config")], workers=1, progress=False)
    (res,) = r.values()
    assert "error" in res and "no_such_config" in res["error"]


def test_unknown_mechanism_is_a_clear_error():
    from golden.configs import load_config
    with pytest.raises(ConfigError, match="unknown mechanism 'nope'"):
        make_mechanisms(["nope"], load_config("pascal"))


def test_baseline_report_renders_every_config():
    opts = ReportOptions(size="small", all_configs=True)  # DCT is a DARSIE workload only
    picked = [j for j in baseline.jobs(opts) if j.workload == "DCT"]
    assert {j.config for j in picked if isinstance(j, TimingJob)} == \
        {c for c, _ in baseline.BASELINE_CONFIGS}
    assert [j for j in picked if isinstance(j, baseline.FunctionalJob)]  # the reference digest
    results = {j.key: run_job(j) for j in picked}
    md, data = baseline.render(results, opts)
    for cfg, _ in baseline.BASELINE_CONFIGS:
        assert data["configs"][cfg]["rows"][0]["workload"] == "DCT"
    assert md.count("| DCT |") == len(baseline.BASELINE_CONFIGS) and "MISMATCH" not in md


def test_geomean():
    assert geomean([1, 4]) == pytest.approx(2.0)
    assert geomean([]) != geomean([])  # nan


def test_cli_unknown_report(capsys):
    from golden.cli import main
    assert main(["report", "nosuch"]) == 2
    assert "unknown report 'nosuch'" in capsys.readouterr().err


def test_baseline_report_default_covers_each_seeds_workloads():
    opts = ReportOptions(size="small")
    timing = [j for j in baseline.jobs(opts) if isinstance(j, TimingJob)]
    assert {j.config for j in timing if j.workload == "DCT"} == {"pascal"}
    assert {j.config for j in timing if j.workload == "BFS"} == {"gtx285", "fx5800"}
    assert {j.workload for j in baseline.jobs(opts)} == set(baseline._workloads(opts))


def test_ilp_report_renders_speedups_beside_the_chapter(shrink_small):
    from golden.report import ilp
    shrink_small.tiny("BS")
    opts = ReportOptions(size="small")
    every = [j for j in ilp.jobs(opts) if j.workload == "BS"]
    timing = [j for j in every if isinstance(j, TimingJob)]
    assert {j.config for j in timing} == {"gtx280"} and len({j.key for j in every}) == len(every)
    assert [type(j) for j in every if j not in timing] == [ilp.TBWorkJob]
    # the data-hazard variants, the static predictor over the branch study's BP+SC, the
    # workload characterisation
    picked = [ilp._job("BS", opts, v) for v in (None, *ilp.VARIANTS)]
    picked += [ilp._bp_job("BS", opts), ilp._bp_job("BS", opts, "static")]
    picked += [ilp.TBWorkJob("BS", "small", 0)]
    assert {j.key for j in picked} <= {j.key for j in every}
    results = {j.key: run_job(j) for j in picked}
    md, data = ilp.render(results, opts)
    (row,) = data["rows"]
    assert row["outputs_identical"] and row["BP+SC"] > 1.0
    assert "| BS |" in md and "1.134" in md   # the chapter's BP+SC geomean (+13.4%)
    (bp,) = data["branch_prediction"]["rows"]
    assert bp["static"]["speedup"] > 0.9 and 0 < bp["static"]["accuracy"] <= 1
    assert "94.4%" in md and "missing" in md  # the chapter's static accuracy; unrun jobs shown
    (wl,) = data["workloads"]
    assert wl["workload"] == "BS" and wl["outputs_match"] and wl["tbs_per_sm"] >= 1
    assert wl["warp_instructions"] == results[ilp._job("BS", opts).key]["timing"]["instructions_executed"]
    assert "15.4 kB of shared memory per TB" in md and "| NQU | missing |" in md


def test_hetero_report_runs_a_mix_on_the_three_gpus(shrink_small):
    from golden.report import hetero
    shrink_small.tiny("SCAN")
    shrink_small.tiny("DT")
    opts = ReportOptions(size="small")
    every = {j.key for j in hetero.jobs(opts)}
    picked = [hetero.alone_job(k, g, opts) for k in ("SCAN", "DT") for g in ("T", "I")]
    picked += [hetero.ConcurrentJob((k,), "H", "small", 0) for k in ("SCAN", "DT")]
    picked += [hetero.ConcurrentJob(("SCAN", "DT"), g, "small", 0) for g in "TIH"]
    assert {j.key for j in picked} <= every
    results = {j.key: run_job(j) for j in picked}
    md, data = hetero.render(results, opts)
    (mix,) = data["groups"][next(iter(hetero.GROUPS))]["mixes"]
    assert mix["outputs_match"] and all(v > 0 for v in mix["ws"].values())
    h = results[hetero.ConcurrentJob(("SCAN", "DT"), "H", "small", 0).key]
    # the static policy places each kernel (at small size both have <= 32,768 threads: ILP),
    # kernels steered to one side share its SMs; GPU-T and GPU-I share every SM
    assert [s["side"] for s in h["streams"]] == ["ILP", "ILP"]
    assert [s["sms"] for s in h["streams"]] == [18, 18] and h["streams"][1]["runs"] >= 1
    t = results[hetero.ConcurrentJob(("SCAN", "DT"), "T", "small", 0).key]
    assert [s["sms"] for s in t["streams"]] == [40, 40]
    assert "| SCAN + DT |" in md and "+19.8%" in md and "identical" in md


def test_hetero_grouping_steering_places_k1_on_ilp_and_k2_on_tlp(shrink_small):
    from golden.report import hetero
    shrink_small.tiny("SCAN")
    shrink_small.tiny("DT")
    opts = ReportOptions(size="small")
    job = hetero.ConcurrentJob(("SCAN", "DT"), "H", "small", 0, steering="grouping")
    assert job.key in {j.key for j in hetero.jobs(opts)}
    assert job.key != hetero.ConcurrentJob(("SCAN", "DT"), "H", "small", 0).key
    r = run_job(job)
    # at small size the policy sends both to the ILP side; the grouping splits them
    assert [s["policy_side"] for s in r["streams"]] == ["ILP", "ILP"]
    assert [s["side"] for s in r["streams"]] == ["ILP", "TLP"]
    assert [s["sms"] for s in r["streams"]] == [18, 20] and r["outputs_match"]
    with pytest.raises(ValueError, match="unknown steering"):
        hetero.ConcurrentJob(("SCAN", "DT"), "H", steering="oracle")
    with pytest.raises(ValueError, match="neither kernel group"):
        hetero.grouping_side("BS")


def test_uv_report_renders_designs_sweeps_and_reliability():
    from golden.report import uv
    opts = ReportOptions(size="small")
    every = [j for j in uv.jobs(opts) if j.workload == "VA"]
    assert {j.config for j in every if not isinstance(j, uv.LimitJob)} == {"gtx285"}
    picked = [uv.LimitJob("VA"), uv._job("VA", opts), *(uv._job("VA", opts, m) for m in uv.VARIANTS.values()),
              uv._irb_job("VA", opts, 2), uv._rel_job("VA", opts, "token"),
              uv._rel_job("VA", opts, "SRF")]
    assert {j.key for j in picked} <= {j.key for j in every}
    results = {j.key: run_job(j) for j in picked}
    md, data = uv.render(results, opts)
    (row,) = data["rows"]  # only VA has a baseline result
    assert row["outputs_identical"] and row["token combined"]["speedup"] > 1.0
    assert row["token combined"]["energy_ratio"] < 1.0
    assert "| VA |" in md and "1.120" in md  # the chapter's token combined (+12.0%)
    (rel,) = [r for r in data["reliability"]["rows"] if r["workload"] == "VA"]
    assert 0 < rel["token"]["alu_coverage"] < 1 and 0 < rel["token"]["vrf_coverage"] < 1
    assert "missing" in md  # unrun sweep points are shown, not hidden
    (lim,) = data["limit_study"]["rows"]
    assert 0 < lim["intra"] <= lim["combined"] < 1 and "41.5%" in md


def test_uv_report_shows_srf_with_and_without_param_constants(shrink_small):
    from golden.report import uv
    shrink_small.tiny("MM-UV")
    opts = ReportOptions(size="small")
    picked = [uv._job("MM-UV", opts), uv._job("MM-UV", opts, "uv-srf"),
              uv._job("MM-UV", opts, uv.PTX_REGISTERS)]
    assert {j.key for j in picked} <= {j.key for j in uv.jobs(opts)}
    results = {j.key: run_job(j) for j in picked}
    md, data = uv.render(results, opts)
    (row,) = data["param_constants"]["rows"]
    assert row["outputs_identical"]
    assert row["const"]["srf_full"] <= row["ptx"]["srf_full"]
    assert "## SRF: PTX registers vs parameter constants" in md and "| MM-UV |" in md


def test_warpman_report_renders_characterisation_variants_and_sensitivity(shrink_small):
    from golden.report import warpman
    shrink_small.tiny("RAY")     # rendering needs rows, not a full input
    opts = ReportOptions(size="small")
    every = [j for j in warpman.jobs(opts) if j.workload == "RAY"]
    assert {j.config for j in every if hasattr(j, "config")} == {"gtx480_warpman"}
    picked = [warpman.OccupancyJob("RAY"), warpman._job("RAY", opts),
              *(warpman._job("RAY", opts, v) for v in ("temp", "dueling"))]
    assert {j.key for j in picked} <= {j.key for j in every}
    results = {j.key: run_job(j) for j in picked}
    md, data = warpman.render(results, opts)
    (c,) = [r for r in data["characterisation"]["rows"] if r["workload"] == "RAY"]
    assert c["warps_per_tb"] == 6 and c["table5"] == (0, 6, 2, 12288)
    assert 0 <= c["mean_rtru"] < 1 and c["tb0_rtru"] is not None
    (row,) = data["performance"]["rows"]
    assert row["outputs_identical"] and row["temp"]["speedup"] > 0
    assert "1.168" in md and "-7.3%" in md         # the chapter's temp+spatial and energy
    assert "RAY" in data["lifetimes"] and data["lifetimes"]["RAY"]["histogram"]
    assert "missing" in md                          # unrun workloads are shown, not hidden


def test_coarse_report_renders_locality_and_speedups(shrink_small):
    from golden.report import coarse
    shrink_small("BTREE", nkeys=10000)
    opts = ReportOptions(size="small")
    picked = [coarse.LocalityJob("BTREE"), coarse._job("BTREE", opts),
              *(coarse._job("BTREE", opts, v) for v in ("coarse4", "coarse4+duel"))]
    assert {j.key for j in picked} <= {j.key for j in coarse.jobs(opts)}
    results = {j.key: run_job(j) for j in picked}
    md, data = coarse.render(results, opts)
    (loc,) = data["locality"]
    assert loc["table"]["accesses"] > 0
    (row,) = data["performance"]["rows"]
    assert row["outputs_identical"] and row["paper_name"] == "b+tree"
    assert row["coarse4"]["counters"]["coarse.group_requests"] > 0
    assert "strong gain" in md and "1.035" in md    # the chapter's outcome and +3.5% average


def test_capri_report_renders_accuracy_and_opportunity():
    from golden.report import capri
    opts = ReportOptions(size="small")
    job = capri._job("BFS", opts)
    assert job.key in {j.key for j in capri.jobs(opts)}
    md, data = capri.render({job.key: run_job(job)}, opts)
    (row,) = data["rows"]
    assert row["paper_name"] == "BFS" and row["class"] == "divergent"
    assert 0 < row["simd_utilisation"] < 1 and row["warps_compacted"] < row["warps_wpdom"]
    a = row["accuracy"]
    assert a["WPDOM"] + a["TBC"] == pytest.approx(1.0) and 0 <= a["CAPRI 1bL"] <= 1
    assert "86.6%" in md and "missing" in md
    n = row["accuracy_needed"]     # second figure: the per-warp needed rule
    assert n["WPDOM"] + n["TBC"] == pytest.approx(1.0) and n["WPDOM"] > a["WPDOM"]
    assert "*needed* rule" in md
    assert data["class_mean_accuracy_needed"]["divergent"]["WPDOM"] == pytest.approx(n["WPDOM"])


def test_capri_report_renders_tbc_performance(shrink_small):
    from golden.report import capri
    shrink_small.tiny("BFS")
    opts = ReportOptions(size="small")
    picked = [capri._perf_job("BFS", opts, m) for m in (None, *(m for _, m in capri.VARIANTS))]
    assert {j.key for j in picked} <= {j.key for j in capri.jobs(opts)}
    md, data = capri.render({j.key: run_job(j) for j in picked}, opts)
    (row,) = data["performance"]["rows"]
    assert row["workload"] == "BFS" and row["wpdom_cycles"] > 0
    for v, _ in capri.VARIANTS:
        assert row[v]["outputs_identical"] and row[v]["speedup"] > 0
        assert row[v]["util"] >= row["wpdom_util"]          # compaction never lowers it
    hm = data["performance"]["harmonic_mean_speedup"]["divergent"]
    assert hm["TBC"] == pytest.approx(row["TBC"]["speedup"])
    assert "TBC+ speedup" in md and "(paper 1.046)" in md


def test_partial_reports_say_missing_not_different():
    """With some runs not (yet) simulated (``report --cached-only``) the outputs columns say
    a run is missing instead of claiming the outputs differ."""
    from golden.report import darsie
    assert baseline._outputs(True, None) == "numpy ok, functional run missing"
    assert baseline._outputs(True, False) == "numpy ok, != functional"
    assert baseline._outputs(True, True) == "match"
    n = len(darsie.MECHS)
    assert darsie._same_cell({}) == "–"
    assert darsie._same_cell({f"same_{m}": True for m in darsie.MECHS}) == "yes"
    assert darsie._same_cell({f"same_{darsie.MECHS[0]}": True}) == f"yes (1 of {n} run)"
    assert darsie._same_cell({f"same_{darsie.MECHS[0]}": True, f"same_{darsie.MECHS[1]}": False}) == "NO"


def test_warpman_simd_points_follow_the_configs_lane_count():
    """§3.6.3's SIMD 8 / 16 are Table 4's 32 scaled to the config's own lanes."""
    from golden.report import warpman
    points = warpman.sensitivity()
    assert dict(points["SIMD 8"][0]) == {"pipelines.alu.simd_width": 4, "pipelines.mem.simd_width": 4}
    assert dict(points["SIMD 16"][0]) == {"pipelines.alu.simd_width": 8,
                                          "pipelines.mem.simd_width": 8}
    assert warpman.simd_lanes(32) == {"alu": 16, "mem": 16}
    with pytest.raises(ValueError, match="cannot stand for"):
        warpman.simd_lanes(1)


def test_hetero_single_kernel_spans_gpu_h_from_its_steered_side():
    # alone on GPU-H a kernel uses every SM; its steered side's SMs come first, so TB 0
    # (NQU's dominant TB) lands where the static policy sends the kernel
    from golden.report import hetero
    from golden.runs.concurrent import Partition
    g = hetero.GPUS["H"]
    for side, first in (("ILP", g.ilp), ("TLP", g.tlp)):
        (part,), _ = hetero.ConcurrentJob(("NQU",), "H", "small", 0)._partitions([side])
        assert isinstance(part, Partition) and part.sms == tuple(range(first))
        assert bool(part.mechanisms) == (side == "ILP")
        (other,) = part.also
        assert other.sms == tuple(range(first, g.tlp + g.ilp))
        assert bool(other.mechanisms) == (side == "TLP")
    # confined, it keeps to its side, numbered as in a mix (TLP SMs first)
    (part,), _ = hetero.ConcurrentJob(("NQU",), "H", "small", 0, confine=True)._partitions(["ILP"])
    assert part.sms == tuple(range(g.tlp, g.tlp + g.ilp)) and not part.also
