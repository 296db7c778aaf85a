"""simtlab report darsie: job list and rendering (synthetic results, no simulation)."""

from golden.report import darsie
from golden.report.runner import ReportOptions


def _result(cycles, fetched, executed, digest="d"):
    return {
        "cycles": cycles, "output_digest": digest, "outputs_match": True,
        "energy": {"total_j": float(cycles), "dynamic_j": float(executed),
                   "static_j": float(cycles - executed)},
        "stall_fractions": {k: 1 / 6 for k in ("issue", "memory", "no_instruction", "barrier",
                                               "dependence", "structural")},
        "timing": {"instructions_fetched": fetched, "instructions_executed": executed,
                   "oc_bank_conflicts": 0, "mechanism": {}, "sm_cycles": cycles,
                   "resident_warp_cycles": 8 * cycles},
    }


def _results(opts, speedups_full, speedups_filled):
    out = {}
    for name, w in darsie._workloads(opts):
        for sms, sp in ((None, speedups_full), (darsie.FILLED_SMS, speedups_filled)):
            if sms and w.dims < 2:
                continue
            out[darsie._job(name, opts, (), sms).key] = _result(1000, 100, 100)
            for m in darsie.MECHS:
                out[darsie._job(name, opts, (m,), sms).key] = _result(
                    int(1000 / sp.get(m, 1.0)), 80, 80)
    return out


def _section_2d(md: str) -> str:
    """The report up to the 1D sensitivity table (the 2D sensitivity rows share labels)."""
    return md.split("ablation and sensitivity (1D workloads)")[0]


def test_filled_runs_only_for_2d_and_small_inputs():
    small = darsie.jobs(ReportOptions(size="small"))
    filled = [j for j in small if "core.num_sms" in dict(j.overrides)]
    names_2d = {n for n, w in darsie._workloads(ReportOptions()) if w.dims >= 2}
    assert filled and {j.workload for j in filled} == names_2d
    assert all(dict(j.overrides) == {"core.num_sms": darsie.FILLED_SMS} for j in filled)
    assert len(filled) == len(names_2d) * (1 + len(darsie.MECHS))
    assert not [j for j in darsie.jobs(ReportOptions(size="default"))
                if "core.num_sms" in dict(j.overrides)]


def test_render_filled_section_and_verdicts():
    opts = ReportOptions(size="small")
    res = _results(opts, {"darsie": 0.9, "uv": 1.0, "dac-ideal": 1.05},
                   {"darsie": 1.25, "uv": 1.0, "dac-ideal": 1.1, "darsie-no-cf-sync": 1.3})
    md, data = darsie.render(res, opts)
    assert "does **not** beat both" in md                      # the 28-SM verdict
    assert "### Filled SMs" in md
    assert abs(data["filled_sms"]["geomean"]["speedup_darsie"] - 1.25) < 0.01
    assert "it beats uv and dac-ideal." in md
    assert abs(data["geomean"]["2D"]["speedup_darsie"] - 0.9) < 0.01


def test_render_without_filled_runs():
    opts = ReportOptions(size="default")
    res = _results(opts, {"darsie": 1.2}, {})
    md, data = darsie.render(res, opts)
    assert "### Filled SMs" not in md and "filled_sms" not in data


def test_sensitivity_section():
    opts = ReportOptions(size="default")
    names_2d = [n for n, w in darsie._workloads(opts) if w.dims >= 2]
    extra = set(darsie.SENSITIVITY.values()) - set(darsie.MECHS)   # the main variants run anyway
    every = [j for j in darsie.jobs(opts) if j.mechanisms and j.mechanisms[0] in extra]
    sens = [j for j in every if j.workload in names_2d]
    assert {j.workload for j in sens} == set(names_2d)
    assert len(sens) == len(names_2d) * len(extra)
    inner = set(darsie.SENSITIVITY.values()) & set(darsie.MECHS) - {"darsie"}
    sens += [j for j in darsie.jobs(opts) if j.mechanisms and j.mechanisms[0] in inner
             and j.workload in names_2d and not j.overrides]
    res = _results(opts, {"darsie": 1.2}, {})
    for j in sens:
        r = _result(900, 70, 70)
        r["timing"]["mechanism"] = {"darsie.freelist_short": 3}
        res[j.key] = r
    md, data = darsie.render(res, opts)
    assert "### Renaming structures: ablation and sensitivity" in md
    s = data["sensitivity"]
    assert abs(s["256"]["speedup"] - 1000 / 900) < 1e-9 and s["256"]["freelist_short"] == 3 * len(names_2d)
    assert abs(s["32 (paper), free at last use"]["speedup"] - 1000 / 833) < 1e-9
    assert all(v["outputs_identical"] and v["workloads"] == len(names_2d) for v in s.values())
    # every row complete: its darsie reference is darsie's own geomean
    assert all(abs(v["darsie_same_workloads"] - 1000 / 833) < 1e-9 for v in s.values())


def test_partial_report_says_what_has_not_run():
    """A report rendered while a campaign is under way: the geomean says over how many
    workloads it is, and a variant with no runs shows no counts and no output verdict."""
    opts = ReportOptions(size="default")
    names_2d = [n for n, w in darsie._workloads(opts) if w.dims >= 2]
    res = _results(opts, {"darsie": 1.2}, {})
    for m in darsie.MECHS:      # one 2D workload has its baseline but no mechanism run yet
        res.pop(darsie._job(names_2d[0], opts, (m,)).key)
    md, data = darsie.render(res, opts)
    assert f"| **geomean 2D** ({len(names_2d) - 1} of {len(names_2d)}) |" in md
    assert "| **geomean 1D** |" in md                      # complete: no count
    label = "256"
    assert data["sensitivity"][label]["workloads"] == 0
    assert data["sensitivity"][label]["outputs_identical"] is None
    (line,) = [x for x in _section_2d(md).splitlines() if x.startswith(f"| {label} (`")]
    assert line.endswith("| 0 | not run |")
    assert data["sensitivity"]["32 (paper), free at last use"]["workloads"] == len(names_2d) - 1


def test_partial_sensitivity_row_is_compared_with_darsie_on_its_own_workloads():
    """A variant run on only some 2D workloads: its darsie reference is the geomean of
    darsie over exactly those, not over all of them."""
    opts = ReportOptions(size="default")
    names_2d = [n for n, w in darsie._workloads(opts) if w.dims >= 2]
    res = _results(opts, {"darsie": 1.2}, {})
    # darsie is faster on the first workload than on the rest
    res[darsie._job(names_2d[0], opts, ("darsie",)).key] = _result(500, 70, 70)
    mech = darsie.SENSITIVITY["256"]
    res[darsie._job(names_2d[1], opts, (mech,)).key] = _result(900, 70, 70)
    md, data = darsie.render(res, opts)
    row = data["sensitivity"]["256"]
    assert row["workloads"] == 1 and abs(row["speedup"] - 1000 / 900) < 1e-9
    assert abs(row["darsie_same_workloads"] - 1000 / 833) < 1e-9      # names_2d[1] only
    everywhere = data["sensitivity"]["32 (paper), free at last use"]
    assert everywhere["darsie_same_workloads"] > row["darsie_same_workloads"]
    (line,) = [x for x in _section_2d(md).splitlines() if x.startswith("| 256 (`")]
    assert line.startswith(f"| 256 (`{mech}`) | 1.11 | 1.20 |")


def test_sensitivity_grid_runs_on_1d_workloads_after_the_2d_jobs():
    """Issue 67.6: every SENSITIVITY variant also runs on each 1D workload; those jobs come
    after every job the report had before, which keep their keys and order."""
    opts = ReportOptions(size="small")
    names_1d = [n for n, w in darsie._workloads(opts) if w.dims < 2]
    extra = set(darsie.SENSITIVITY.values()) - set(darsie.MECHS)
    all_jobs = darsie.jobs(opts)
    sens_1d = [i for i, j in enumerate(all_jobs) if j.workload in names_1d
               and j.mechanisms and j.mechanisms[0] in extra]
    assert names_1d and len(sens_1d) == len(names_1d) * len(extra)
    # then the RTL-energy runs of issue 69, then the 1D single changes toward DAC-IDEAL
    rtl = [i for i, j in enumerate(all_jobs) if ("energy.structures", "rtl") in j.overrides]
    toward = set(darsie.TOWARD_IDEAL_1D.values())
    last = [i for i, j in enumerate(all_jobs) if j.mechanisms and j.mechanisms[0] in toward]
    assert len(last) == len(names_1d) * len(toward)
    assert all(all_jobs[i].workload in names_1d for i in last)
    assert last == list(range(len(all_jobs) - len(last), len(all_jobs)))
    assert rtl == list(range(last[0] - len(rtl), last[0]))
    assert sens_1d == list(range(rtl[0] - len(sens_1d), rtl[0]))
    assert len({j.key for j in all_jobs}) == len(all_jobs)


def test_1d_sensitivity_and_grid_render_per_workload_speedups():
    opts = ReportOptions(size="default")
    names_1d = [n for n, w in darsie._workloads(opts) if w.dims < 2]
    res = _results(opts, {"darsie": 1.25, "dac-ideal": 1.5}, {})
    for name in names_1d:
        r = _result(800, 70, 70)
        r["timing"]["mechanism"] = {"darsie.freelist_short": 2, "darsie.branch_syncs": 5}
        res[darsie._job(name, opts, (darsie.SENSITIVITY["256"],)).key] = r
    md, data = darsie.render(res, opts)
    assert "### Renaming structures: ablation and sensitivity (1D workloads)" in md
    s1 = data["sensitivity_1d"]["256"]
    assert s1["workloads"] == len(names_1d) and abs(s1["speedup"] - 1.25) < 1e-9
    g = data["grid_1d"]
    assert abs(g["DAC-IDEAL"]["geomean"] - 1000 / 666) < 1e-9
    assert g["256"]["freelist_short"] == 2 * len(names_1d) and g["256"]["syncs"] == 5 * len(names_1d)
    assert g["1 skip-table read port"]["geomean"] is None     # not run: no geomean
    assert set(darsie.TOWARD_IDEAL_1D) <= set(g)               # the toward-ideal rows too
    grid_md = md.split("one cost removed at a time")[1]
    (unrun,) = [x for x in grid_md.splitlines() if x.startswith("| 1 skip-table read port (`")]
    assert unrun.endswith("| – | – | – |")                     # no geomean, no counts
    (line,) = [x for x in md.split("one cost removed at a time")[1].splitlines()
               if x.startswith("| 256 (`")]
    assert "1.25" in line and line.endswith(f"| {2 * len(names_1d)} | {5 * len(names_1d)} |")
