"""The figures of each report, drawn from its JSON document (``build/results/<name>.json``).

One function per report, ``<report>(data, meta) -> [Plot]``, mirroring the seed's figures:
per-workload bars per variant with a geomean bar and the paper's value as a dashed line,
stacked breakdowns, and the correlation scatter of ``make validate``. A function sees only
the JSON, so ``simtlab publish`` redraws every figure without simulating. Values that are
missing (a failed or absent run) leave a gap, never a made-up bar.
"""

from __future__ import annotations

import math

from golden.report.present.plots import (Plot, grouped_bars, interaction_matrix, stacked_bars,
                                         xy_scatter)


def _ok(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _pct_removed(ratio):
    return 100.0 * (1.0 - ratio) if _ok(ratio) else None


def _field(rows, variants, field="speedup"):
    """``{variant: [row[variant][field] per row]}`` (None where absent)."""
    out = {}
    for v in variants:
        col = []
        for r in rows:
            x = r.get(v)
            col.append(x.get(field) if isinstance(x, dict) else (x if field == "speedup" else None))
        out[v] = col
    return out


def _gain_ref(paper_percent: dict, names) -> dict:
    """Paper gains in % as speedup reference lines (1 + gain / 100)."""
    return {n: 1 + paper_percent[n] / 100 for n in names if _ok(paper_percent.get(n))}


# ------------------------------------------------------------------------------- baseline
def baseline(data: dict, meta) -> list[Plot]:
    from golden.timing.energy import COMPONENTS
    plots = []
    for cfg, c in data.get("configs", {}).items():
        rows = [r for r in c.get("rows", []) if "error" not in r]
        if not rows:
            continue
        names = [r["workload"] for r in rows]
        reasons = list(rows[0]["stall_fractions"])
        plots.append(stacked_bars(
            f"baseline-{cfg}-stalls", f"Scheduler cycles by outcome, {c.get('name', cfg)}",
            f"Baseline ({c.get('seed', '')} seed's GPU); share of scheduler cycles per outcome "
            f"(issue = an instruction issued). {meta.caption(c.get('name', cfg))}.",
            names, {k: [r["stall_fractions"].get(k) for r in rows] for k in reasons},
            "% of scheduler cycles"))
        comps = {}
        for k in COMPONENTS:
            comps[k] = [(r["energy"].get("components", {}).get(k, {}).get("joules", 0.0)
                         / r["energy"]["total_j"]) if r["energy"].get("total_j") else None
                        for r in rows]
        plots.append(stacked_bars(
            f"baseline-{cfg}-energy", f"Energy breakdown, {c.get('name', cfg)}",
            f"Share of total energy per component (events x per-event energy + leakage + "
            f"constant power). {meta.caption(c.get('name', cfg))}.", names, comps,
            "% of total energy"))
    return plots


# --------------------------------------------------------------------------------- darsie
def darsie(data: dict, meta) -> list[Plot]:
    ws = data.get("workloads", {})
    two = [n for n, r in ws.items() if r.get("dims") == 2]
    paper = data.get("paper", {})
    cap = meta.caption(data.get("config"))
    mechs = ("darsie", "uv", "dac-ideal")
    plots = [grouped_bars(
        "darsie-speedup-2d", "DARSIE speedup on 2D workloads (Fig. 11)",
        f"Baseline cycles / cycles per variant; dashed lines: the paper's 2D geomeans "
        f"(DARSIE 1.30, UV 1.02, DAC-IDEAL 1.11). {cap}.", two,
        {m: [ws[n].get(f"speedup_{m}") for n in two] for m in mechs}, "speedup",
        reference={m: v for m, v in paper.get("speedup_2d", {}).items()})]
    names = list(ws)
    plots.append(grouped_bars(
        "darsie-removed", "Instructions removed by DARSIE (Fig. 10)",
        f"% of the baseline's warp instructions not fetched / not executed, every workload "
        f"(1D and 2D); bar at the right: mean. {cap}.", names,
        {"fetched": [_pct_removed(ws[n].get("fetch_darsie")) for n in names],
         "executed": [_pct_removed(ws[n].get("exec_darsie")) for n in names]},
        "% removed", unity=0.0, percent=True))
    plots.append(grouped_bars(
        "darsie-energy-2d", "Total energy reduction on 2D workloads (Fig. 12)",
        f"% reduction of total energy (our component model) per variant; dashed lines: the "
        f"paper's values. {cap}.", two,
        {m: [_pct_removed(ws[n].get(f"energy_{m}")) for n in two] for m in mechs},
        "% energy reduction", reference=paper.get("energy", {}), unity=0.0, percent=True))
    sens = data.get("sensitivity") or {}
    if sens:
        labels = list(sens)
        plots.append(grouped_bars(
            "darsie-sensitivity", "DARSIE renaming structures: ablation and sensitivity (2D)",
            f"Geomean speedup over the 2D workloads per variant: freelist / rename entries "
            f"per TB, freeing versions at the register's last use or only at redefinition, "
            f"skip-table read ports. {cap}.", labels,
            {"speedup": [sens[k].get("speedup") for k in labels]}, "geomean speedup",
            add_geomean=False))
    return plots


# -------------------------------------------------------------------------------- gscalar
def gscalar(data: dict, meta) -> list[Plot]:
    cap = meta.caption(data.get("config"))
    t = {w: r for w, r in data.get("timing", {}).items() if "error" not in r}
    names = list(t)
    vs = ("gscalar", "gscalar-half", "alu-scalar")
    paper = data.get("paper", {})
    plots = [grouped_bars(
        "gscalar-rf-power", "RF dynamic power change (Fig. 12)",
        f"% change of register-file dynamic power vs the baseline; dashed: paper averages "
        f"(G-Scalar −54%, scalar RF −37%). {cap}.", names,
        {v: [t[w].get(f"rf_{v}") for w in names] for v in vs}, "% change", unity=0.0,
        reference={"gscalar": paper.get("rf_gscalar"), "alu-scalar": paper.get("rf_scalar_rf")},
        percent=True),
        grouped_bars(
        "gscalar-ipcw", "Power efficiency, IPC/W change (Fig. 11, §5.4)",
        f"% change of IPC per watt vs the baseline with the paper's GPUWattch power shares "
        f"(EU 24%, RF 16%); paper: G-Scalar +24%. {cap}.", names,
        {v: [t[w].get(f"ipcws_{v}") for w in names] for v in vs}, "% change", unity=0.0,
        percent=True)]
    f = [r for r in data.get("functional", []) if "workload" in r]
    if f:
        fn = [r["workload"] for r in f]
        plots.append(grouped_bars(
            "gscalar-eligibility", "Scalar-execution eligibility (Fig. 9)",
            f"% of warp instructions eligible: ALU scalar (prior work) and G-Scalar total; "
            f"dashed: paper averages (22%, 40%). {cap}.", fn,
            {"ALU scalar": [r.get("e_alu") for r in f], "G-Scalar": [r.get("e_total") for r in f]},
            "% of warp instructions", unity=None, percent=True,
            reference={"ALU scalar": paper.get("e_alu"), "G-Scalar": paper.get("e_total")}))
    return plots


# ------------------------------------------------------------------------------------ ilp
def ilp(data: dict, meta) -> list[Plot]:
    cap = meta.caption(data.get("config"))
    rows = data.get("rows", [])
    vs = list(data.get("paper_gain_percent", {"BP": 0, "SC": 0, "BP+SC": 0}))
    plots = [grouped_bars(
        "ilp-speedup", "ILP techniques: bypassing and the many-thread-aware scoreboard (§4.6)",
        f"Speedup over the one-instruction-per-warp baseline; dashed: the chapter's gains. {cap}.",
        [r["workload"] for r in rows], _field(rows, vs), "speedup",
        reference=_gain_ref(data.get("paper_gain_percent", {}), vs))]
    bp = data.get("branch_prediction", {})
    brows = bp.get("rows", [])
    if brows:
        preds = list(bp.get("geomean_speedup", {}))
        plots.append(grouped_bars(
            "ilp-branch-prediction", "Branch prediction speedup (§4.6)",
            f"Speedup of each predictor over BP+SC without prediction; dashed: the chapter's "
            f"gains. {cap}.", [r["workload"] for r in brows], _field(brows, preds), "speedup",
            reference=_gain_ref(bp.get("paper_gain_percent", {}), preds)))
    tl = data.get("ilp_vs_tlp", {}).get("geomean", {})
    if tl:
        sizes = sorted({k.split("_")[0] for k in tl}, key=int)
        plots.append(grouped_bars(
            "ilp-vs-tlp", "ILP vs TLP: register file size sweep (§4.6)",
            f"Geomean performance normalised to the 16 k-register TLP baseline, per RF size; "
            f"chapter: ILP at 8 k beats the 16 k baseline by 11.9%. {cap}.",
            [f"{int(s) // 1024} k" for s in sizes],
            {m: [tl.get(f"{s}_{m}") for s in sizes] for m in ("TLP", "ILP")},
            "performance vs 16 k TLP", add_geomean=False))
    return plots


# --------------------------------------------------------------------------------- hetero
def hetero(data: dict, meta) -> list[Plot]:
    plots = []
    for i, (title, g) in enumerate(data.get("groups", {}).items()):
        paper = data.get("paper_percent" if i == 0 else "paper_percent_30sm", {})
        gm = g.get("geomean", {})
        keys = ("perf_vs_T", "perf_vs_I", "energy_vs_T", "energy_vs_I")
        plots.append(grouped_bars(
            f"hetero-{i}", f"GPU-H vs GPU-T / GPU-I, {title} (§4.5)",
            f"Geomean over the concurrent kernel mixes of GPU-H's weighted speedup and energy per "
            f"instruction relative to GPU-T and GPU-I, % change. {meta.caption(None)}.",
            list(keys),
            {"ours": [100 * (gm[k] - 1) if _ok(gm.get(k)) else None for k in keys],
             "chapter": [paper.get(k) for k in keys]},
            "% change", unity=0.0, add_geomean=False))
    return plots


# ------------------------------------------------------------------------------------- uv
def uv(data: dict, meta) -> list[Plot]:
    cap = meta.caption(data.get("config"))
    rows = data.get("rows", [])
    vs = list(data.get("geomean_speedup", {}))
    names = [r["workload"] for r in rows]
    plots = [grouped_bars(
        "uv-speedup", "Uniform-vector elimination speedup (Fig. 13)",
        f"Speedup of the token and SRF designs (intra-warp, inter-warp via the IRB, combined); "
        f"dashed: the chapter's gains. {cap}.", names, _field(rows, vs), "speedup",
        reference=_gain_ref(data.get("paper_gain_percent", {}), vs)),
        grouped_bars(
        "uv-energy", "Total energy saving (Fig. 14)",
        f"% reduction of total energy per design; dashed: the chapter's savings. {cap}.", names,
        {v: [_pct_removed(x) for x in _field(rows, [v], "energy_ratio")[v]] for v in vs},
        "% energy saved", unity=0.0, percent=True,
        reference=data.get("paper_energy_saving_percent", {}))]
    lim = data.get("limit_study", {}).get("rows", [])
    if lim:
        ks = ("intra", "inter", "combined")
        plots.append(grouped_bars(
            "uv-limit", "Redundancy limit study (Fig. 2)",
            f"% of instructions that are uniform-vector redundant within a warp, across warps and "
            f"combined; bar at the right: mean. {cap}.", [r["workload"] for r in lim],
            {k: [r.get(k) for r in lim] for k in ks}, "% of instructions", unity=None,
            percent=True))
    for key, label, paper_key in (("irb_sizes", "IRB entries", None), ("srf_sizes", "SRF entries", None)):
        gm = data.get(key, {}).get("geomean_speedup", {})
        if gm:
            plots.append(grouped_bars(
                f"uv-{key.replace('_', '-')}", f"Sensitivity to {label} (§2.6)",
                f"Geomean speedup of the combined design per {label} size. {cap}.",
                [str(k) for k in gm], {"combined": list(gm.values())}, "geomean speedup",
                add_geomean=False))
    return plots


# -------------------------------------------------------------------------------- warpman
def warpman(data: dict, meta) -> list[Plot]:
    cap = meta.caption(data.get("config"))
    perf = data.get("performance", {})
    rows = perf.get("rows", [])
    vs = list(perf.get("paper_gain_percent", {}))
    plots = [grouped_bars(
        "warpman-speedup", "WarpMan speedup over TB-level management (Fig. 3.9)",
        f"Speedup of temporal, temporal+spatial, SM dueling and the static threshold; dashed: "
        f"the chapter's geomean gains. {cap}.", [r["workload"] for r in rows], _field(rows, vs),
        "speedup", reference=_gain_ref(perf.get("paper_gain_percent", {}), vs))]
    ch = data.get("characterisation", {}).get("rows", [])
    if ch:
        plots.append(grouped_bars(
            "warpman-unused-registers", "Registers left unused by TB-level allocation (§3.3)",
            f"% of the SM's registers no TB can use; chapter: GM 29.4% (13.6% on the "
            f"register-limited workloads). {cap}.", [r["workload"] for r in ch],
            {"unused": [100 * r["unused_fraction"] if _ok(r.get("unused_fraction")) else None
                        for r in ch]}, "% of registers", unity=None, percent=True))
    return plots


# --------------------------------------------------------------------------------- coarse
def coarse(data: dict, meta) -> list[Plot]:
    cap = meta.caption(data.get("config"))
    perf = data.get("performance", {})
    rows = perf.get("rows", [])
    vs = list(perf.get("geomean_speedup", {}))
    return [grouped_bars(
        "coarse-speedup", "Coarse-grained L1 speedup (ch. 5)",
        f"Speedup of fetch groups of 2 and 4 lines, fixed and with SM set-dueling; dashed: the "
        f"chapter's average gains. {cap}.", [r["workload"] for r in rows], _field(rows, vs),
        "speedup", reference=_gain_ref(perf.get("paper_average_percent", {}), vs))]


# ---------------------------------------------------------------------------------- capri
def capri(data: dict, meta) -> list[Plot]:
    cap = meta.caption(data.get("config"))
    perf = data.get("performance", {})
    rows = perf.get("rows", [])
    plots = []
    variants = ("TBC", "TBC+", "CAPRI", "CAPRI 1bS")
    for cls in ("divergent", "non-divergent"):
        rs = [r for r in rows if r.get("class") == cls]
        if not rs:
            continue
        plots.append(grouped_bars(
            f"capri-speedup-{cls}", f"Speedup over WPDOM, {cls} workloads (Fig. 10)",
            f"Baseline (per-warp post-dominator reconvergence) cycles / cycles; dashed: the "
            f"paper's harmonic means. Bar at the right: geomean. {cap}.",
            [r["workload"] for r in rs], _field(rs, variants), "speedup",
            reference=perf.get("paper_speedup", {}).get(cls, {})))
    acc = [r for r in data.get("rows", []) if isinstance(r.get("accuracy"), dict)]
    if acc:
        schemes = list(acc[0]["accuracy"])
        plots.append(grouped_bars(
            "capri-accuracy", "Compaction-adequacy prediction accuracy (Fig. 9)",
            f"% of warp decisions equal to the exhaustive-search oracle's, per scheme; dashed: "
            f"CAPRI's paper accuracy on divergent workloads (86.6%). {cap}.",
            [r["workload"] for r in acc],
            {s: [100 * r["accuracy"][s] if _ok(r["accuracy"].get(s)) else None for r in acc]
             for s in schemes}, "% accurate", unity=None, percent=True,
            reference={s: data.get("paper_accuracy_percent", {}).get("divergent")
                       for s in schemes if s.startswith("CAPRI")}))
    return plots


# ------------------------------------------------------------------------------- validate
def validate(data: dict, meta) -> list[Plot]:
    pts = [(c["reference"], c["ours"],
            c["case"] + ("" if c.get("metric", "cycles") == "cycles" else f" ({c['metric']})"))
           for c in data.get("correlation", []) if _ok(c.get("reference")) and _ok(c.get("ours"))]
    if not pts:
        return []
    return [xy_scatter(
        "validate-correlation", "Baseline vs GPGPU-Sim, same PTX (make validate)",
        f"Our timing model against GPGPU-Sim on the same kernels, each case in its reference's "
        f"metric (cycles unless named beside the point); band: the "
        f"±{100 * data.get('tolerance', 0.2):.0f}% tolerance. commit {meta.commit}.",
        pts, "GPGPU-Sim (cycles or the named metric)", "simtlab (same metric)",
        tolerance=data.get("tolerance"))]


# -------------------------------------------------------------------------------- compose
def compose(data: dict, meta) -> list[Plot]:
    """The pairwise interaction matrix of the composition study (issue 73), one figure per
    common baseline: speed-up and energy interaction (geomean over each pair's workloads);
    refused pairs, pairs without results and (on a configuration of
    :data:`golden.report.compose.ACTING`) pairs not run there or whose mechanism stayed
    idle are named in grey cells."""
    names = list(data.get("mechanisms", {}))
    tol = data.get("tolerance", 0.01)
    plots = []
    for cfg, c in data.get("configs", {}).items():
        refused = {tuple(r["pair"]) for r in c.get("refused", [])}
        panels = {}
        for key, label in (("speedup_interaction", "speed-up"), ("energy_interaction", "energy")):
            cells = {p: "refused" for p in refused}
            for x in c.get(key, []):
                v = x.get("geomean")
                cells[tuple(x["pair"])] = v if _ok(v) or isinstance(v, str) else "missing"
            panels[label] = cells
        if not any(_ok(v) for p in panels.values() for v in p.values()):
            continue
        plots.append(interaction_matrix(
            f"compose-{cfg}", f"Pairwise interaction of the mechanisms on {cfg}",
            f"Interaction = S_AB / (S_A x S_B) per pair (S: baseline cycles or energy / the "
            f"run's), geometric mean over the workloads both papers stand in for; blue: "
            f"super-additive (above {1 + tol:g}), orange: sub-additive (below {1 - tol:g}). "
            f"{c.get('note', '')}{meta.caption(cfg)}.", names, panels, tol))
    return plots


#: report name -> figure function
FIGURES = {"baseline": baseline, "darsie": darsie, "gscalar": gscalar, "ilp": ilp,
           "hetero": hetero, "uv": uv, "warpman": warpman, "coarse": coarse, "capri": capri,
           "compose": compose, "validate": validate}
