"""WarpMan report (seed 002 ch. 3): warp-level resource management on the chapter's
GTX 480-like baseline, beside the chapter's numbers.

Sections, all on ``gtx480_warpman`` (Table 4: 15 SMs, RR, 32 k registers, 48 KB shared):

1. **Characterisation** (§3.3): per workload its TB shape and occupancy (warps, registers
   and shared memory per TB, TBs per SM, the limiting resources), the registers left
   unused at full occupancy, and the temporal under-utilisation of the baseline: mean
   RTRU over TBs and TB 0's RTRU (mechanism ``warp-lifetimes``, passive).
2. **Performance and energy** (§3.6.1-§3.6.2): ``warpman-temp``, ``warpman-spatial``
   (temp+spatial), ``warpman-duel`` (SM set-dueling) and ``warpman-threshold`` (36 warps);
   speedup = baseline cycles / cycles, total-energy change, static and dynamic.
3. **RAY and ST** (§3.3): the warp-instruction histogram and TB 0's warp finish cycles.
4. **Design space** (§3.6.3): the two-level scheduler, 16 k / 64 k registers and SIMD
   width 8 / 16, each with its own baseline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from golden.report.fidelity import FidelityProbe, marks_for
from golden.report.runner import (ReportOptions, TimingJob, geomean, same_outputs, standing_for,
                                  stands_for_entry, succeeded, timed_run, workload_label)
from golden.report.warpman_setup import CONFIG, LIFETIMES

#: the ``stands_for`` prefix of the paper's workloads (user workloads join with it too)
STANDS_FOR = "WarpMan"
#: variant -> mechanism
VARIANTS = {"temp": "warpman-temp", "temp+spatial": "warpman-spatial",
            "dueling": "warpman-duel", "threshold": "warpman-threshold"}
#: the chapter's average gains (§3.6.1) and total-energy changes (§3.6.2), %
PAPER = {"temp": 14.1, "temp+spatial": 16.8, "dueling": 17.8, "threshold": 17.8}
PAPER_MAX = 76.0
PAPER_ENERGY = {"temp": -5.9, "temp+spatial": -6.8, "dueling": -7.3, "threshold": -7.3}
#: §3.3: unused registers, GM over all benchmarks and over the register-limited ones, %
PAPER_UNUSED = {"all": 29.4, "register-limited": 13.6}
#: §3.3: RTRU of TB 0 and the mean over TBs, %
PAPER_RTRU = {"RAY": (49.7, 39.2), "ST": (70.1, 81.7)}

#: design-space points (§3.6.3) other than SIMD width: name -> (overrides, variants run,
#: paper gains %); :func:`sensitivity` adds the SIMD-width points
SENSITIVITY = {
    "two-level": ((("core.scheduler", "two_level"),), ("temp+spatial", "dueling", "threshold"),
                  {"temp+spatial": 15.7, "dueling": 16.7, "threshold": 17.1}),
    "RF 16k": ((("core.registers_per_sm", 16384),), ("dueling",), {"dueling": 11.0}),
    "RF 64k": ((("core.registers_per_sm", 65536),), ("dueling",), {"dueling": 12.1}),
}
#: SIMD-width points (§3.6.3): chapter width -> paper gain %. Table 4's SIMD width 32 is a
#: warp per 700 MHz GPGPU-Sim core cycle, which our 1.4 GHz gtx480_warpman models with its
#: own lane count (configs/gtx480_warpman.yaml), so a chapter width w is that many lanes
#: times w / 32 (:func:`sensitivity`)
SIMD_POINTS = {8: 19.5, 16: 19.4}
#: the chapter's baseline SIMD width (Table 4)
TABLE4_SIMD = 32


def simd_lanes(chapter_width: int, config: str = CONFIG) -> dict[str, int]:
    """Lanes per ALU and memory pipeline of ``config`` standing for the chapter's SIMD width
    ``chapter_width`` (Table 4's 32 = the config's own widths)."""
    from golden.configs import load_config
    pipes = load_config(config).pipelines
    out = {}
    for unit in ("alu", "mem"):
        lanes, rem = divmod(getattr(pipes, unit).simd_width * chapter_width, TABLE4_SIMD)
        if rem or not lanes:
            raise ValueError(f"{config}: pipelines.{unit}.simd_width cannot stand for the "
                             f"chapter's SIMD width {chapter_width}")
        out[unit] = lanes
    return out


def sensitivity(config: str = CONFIG) -> dict:
    """Design-space points (§3.6.3): name -> (overrides, variants run, paper gains %)."""
    points = dict(SENSITIVITY)
    for width, gain in SIMD_POINTS.items():
        lanes = simd_lanes(width, config)
        points[f"SIMD {width}"] = ((("pipelines.alu.simd_width", lanes["alu"]),
                                    ("pipelines.mem.simd_width", lanes["mem"])),
                                   ("dueling",), {"dueling": gain})
    return points

DIFFERENCES = """\
How our setup differs from the chapter's:

* **Workloads and inputs.** Our own CUDA kernels stand in for Table 5's benchmarks (CUDA
  SDK, Rodinia, Parboil and GPGPU-Sim sources with their default inputs); their TB shapes
  and register counts differ (the characterisation table prints ours next to Table 5's).
  MM and CT run their WarpMan versions (MM-WARPMAN, CONV-WARPMAN; docs/workloads.md)
  with Table 5's TB shapes (the SDK's 16x16 and 16x12) and register budgets.
  Size and seed are in the header.
* **Registers per thread** are ptxas's (CUDA 13, `-arch=sm_75`, committed beside each
  kernel's PTX; docs/registers.md), not the sm_1x/sm_2x binaries GPGPU-Sim ran, so
  registers per TB -- what decides how many TBs fit and how much of the RF spatial
  reclamation can use -- differ from Table 5's.
* **Simulator.** Our timing model on PTX instead of GPGPU-Sim 3.2.0 on PTX/SASS; energy is
  the project's GPUWattch-like model (static = SM leakage over the run's cycles + chip
  constant), not GPUWattch itself.
* **Set-dueling**: the chapter compares the two leader SMs' IPC "at the run time" without
  an interval or rule; we use the cited set-dueling technique's saturating 10-bit policy
  selector (+1 per warp instruction of the warp-level leader, -1 per instruction of the
  TB-level leader), which follows the current phase (``duel_rule=cumulative``: counts
  since the launch started). Zero (e.g. the first dispatch of a launch) keeps TB-level
  allocation. The leaders never follow: a warp-level leader may hold a partial TB it
  cannot start, which can lengthen the tail (docs/warpman-dueling.md).
* **Threshold** (36 warps) gates new partial TBs only; the unissued warps of a partial TB
  are issued as warps finish.
* **Averages**: geometric means of speedups over our workloads; "maximum" is our best
  workload (the chapter's 76.0% is read from its figure).
"""


def _workloads(opts: ReportOptions) -> list[str]:
    """The paper's stand-ins, then the user workloads of ``--workloads`` whose
    ``stands_for`` begins with :data:`STANDS_FOR`."""
    return standing_for(STANDS_FOR, opts)


def paper_name(w: str) -> str:
    """The benchmark name WarpMan's tables use for the stand-in ``w`` (e.g. ``RAY``)."""
    s = stands_for_entry(w, "WarpMan")
    return s.split("(", 1)[1].split(")", 1)[0] if s and "(" in s else w


def _job(w: str, opts: ReportOptions, variant: str | None = None, overrides=()) -> TimingJob:
    mechs = (VARIANTS[variant],) if variant else (LIFETIMES,)
    return TimingJob(w, CONFIG, size=opts.size, seed=opts.seed, mechanisms=mechs,
                     overrides=tuple(overrides))


def jobs(opts: ReportOptions) -> list[TimingJob]:
    out = []
    for w in _workloads(opts):
        out.append(OccupancyJob(w, size=opts.size, seed=opts.seed))
        out.append(FidelityProbe(w, opts.size, opts.seed))  # the † of stand-ins out of tolerance
        out.append(_job(w, opts))
        out += [_job(w, opts, v) for v in VARIANTS]
        for ov, variants, _ in sensitivity().values():
            out.append(_job(w, opts, None, ov))
            out += [_job(w, opts, v, ov) for v in variants]
    return out


def _mech(r) -> dict:
    return r["timing"]["mechanism"]


# ---------------------------------------------------------------- characterisation
#: Table 5: shared bytes per TB, warps per TB, TBs per SM, registers per TB
TABLE5 = {"CT": (0, 6, 7, 3068), "MC": (0, 12, 4, 7680), "RS": (4096, 16, 2, 11776),
          "SN": (8192, 16, 3, 8704), "HS": (3072, 8, 3, 8960), "PF": (2048, 8, 6, 3228),
          "SR": (4096, 16, 3, 2560), "ST": (0, 32, 1, 17408), "RAY": (0, 6, 2, 12288),
          "MM": (2048, 8, 5, 6144), "NN": (0, 8, 5, 6114)}


@dataclass(frozen=True)
class OccupancyJob:
    """The occupancy of a workload's main kernel (the one with the most warp
    instructions) on a configuration: a functional probe, no timing."""

    workload: str
    config: str = CONFIG
    size: str = "small"
    seed: int = 0

    @property
    def key(self) -> str:
        return f"occupancy/{self.workload}/{self.config}/{self.size}/s{self.seed}"

    def run(self) -> dict:
        from golden.configs import load_config
        from golden.workloads.occupancy import occupancy_of, probe_workload

        def compute():
            cfg = load_config(self.config)
            probe = probe_workload(self.workload, self.size, self.seed)
            k = max(occupancy_of(probe, cfg).kernels, key=lambda r: r.warp_instructions)
            core = cfg.core
            wpt = -(-k.threads_per_tb // core.warp_size)
            regs_tb = k.regs_per_thread * wpt * core.warp_size
            return {"outputs_match": not probe.mismatches, "kernel": k.kernel,
                    "warps_per_tb": wpt, "regs_per_thread": k.regs_per_thread,
                    "regs_per_tb": regs_tb, "shared_per_tb": k.shared_per_tb,
                    "tbs_per_sm": k.tbs_per_sm, "limiters": list(k.limiters),
                    "registers_per_sm": core.registers_per_sm,
                    "unused_regs": core.registers_per_sm - k.tbs_per_sm * regs_tb}
        return timed_run(self, compute)


def _characterise(results, opts, names, md, data) -> None:
    md += ["## Characterisation (§3.3): occupancy, unused registers, RTRU", "",
           "Per workload the main kernel's TB (the launch with the most warp instructions): "
           "warps, registers and shared bytes per TB and TBs per SM as our model allocates "
           "them, beside Table 5 (warps / TBs per SM / registers per TB). Unused registers "
           "= RF not allocated at full occupancy. RTRU from the baseline run "
           "(`warp-lifetimes`): mean over all TBs, geometric mean over the TBs with RTRU > 0 "
           "(the chapter's GM; a TB whose warps all end together has RTRU 0) and TB 0 (first "
           "launch).", "",
           "| workload | Table 5 | warps/TB | regs/TB | shared/TB | TBs/SM | limited by | "
           "Table 5 warps / TBs / regs | unused regs | mean RTRU | GM RTRU | TB0 RTRU |",
           "|---|---|--:|--:|--:|--:|---|---|--:|--:|--:|--:|"]
    rows, unused_all, unused_reg = [], [], []
    for w in names:
        base = results.get(_job(w, opts).key)
        occ = results.get(OccupancyJob(w, size=opts.size, seed=opts.seed).key)
        if not succeeded(occ):
            md.append(f"| {workload_label(w)} | occupancy {'missing' if occ is None else 'error'} |" + " |" * 10)
            continue
        pn = paper_name(w)
        t5 = TABLE5.get(pn)
        t5s = f"{t5[1]} / {t5[2]} / {t5[3]:,}" if t5 else "–"
        m = _mech(base) if succeeded(base) else {}
        tbs = m.get("lifetimes.tbs", 0)
        rtru = m["lifetimes.rtru_sum"] / tbs if tbs else None
        tb0 = m.get("lifetimes.tb0_rtru")
        pos = m.get("lifetimes.rtru_positive", 0)
        gm_rtru = math.exp(m["lifetimes.rtru_log_sum"] / pos) if pos else None
        unused = occ["unused_regs"] / occ["registers_per_sm"]
        if unused > 0:
            unused_all.append(unused)
            if "registers" in occ["limiters"]:
                unused_reg.append(unused)
        row = {"workload": w, "paper_name": pn,
               **{k: occ[k] for k in ("kernel", "warps_per_tb", "regs_per_tb", "shared_per_tb",
                                      "tbs_per_sm", "limiters", "unused_regs")}, "unused_fraction": unused,
               "mean_rtru": rtru, "gm_rtru": gm_rtru, "tb0_rtru": tb0, "table5": t5}
        rows.append(row)
        md.append(f"| {workload_label(w)} | {pn} | {occ['warps_per_tb']} | {occ['regs_per_tb']:,} | "
                  f"{occ['shared_per_tb']:,} | {occ['tbs_per_sm']} | {','.join(occ['limiters'])} | "
                  f"{t5s} | {100 * unused:.1f}% | "
                  f"{_pct(rtru)} | {_pct(gm_rtru)} | {_pct(tb0)} |")
    gm_all = geomean(unused_all) if unused_all else None
    gm_reg = geomean(unused_reg) if unused_reg else None
    md += ["", f"Unused registers, geometric mean over the workloads that leave some unused: "
           f"all **{_pct(gm_all)}** (chapter {PAPER_UNUSED['all']}%), register-limited "
           f"**{_pct(gm_reg)}** (chapter {PAPER_UNUSED['register-limited']}%). Chapter RTRU: "
           + "; ".join(f"{k} TB0 {a}%, mean {b}%" for k, (a, b) in PAPER_RTRU.items()) + ".", ""]
    data["characterisation"] = {"rows": rows, "unused_gm": gm_all,
                                "unused_gm_register_limited": gm_reg,
                                "paper_unused_percent": PAPER_UNUSED,
                                "paper_rtru_percent": PAPER_RTRU}


def _pct(x, nd=1) -> str:
    return "–" if x is None else f"{100 * x:.{nd}f}%"


# ---------------------------------------------------------------- performance / energy
def _performance(results, opts, names, md, data) -> None:
    md += ["## Performance and energy (§3.6.1-§3.6.2)", "",
           "Speedup = baseline cycles / cycles; energy = change of total energy (static, "
           "dynamic) against the baseline's. `partial` = partial TBs dispatched under "
           "temp+spatial.", "",
           "| workload | baseline cycles | IPC | " + " | ".join(VARIANTS) + " | " +
           " | ".join(f"energy {v}" for v in VARIANTS) + " | partial | outputs |",
           "|---|--:|--:|" + "--:|" * (2 * len(VARIANTS)) + "--:|---|"]
    marks = marks_for(results, opts, "WarpMan")
    sp = {v: [] for v in VARIANTS}
    en = {v: [] for v in VARIANTS}
    st_dyn = {v: {"static": [], "dynamic": []} for v in VARIANTS}
    rows = []
    for w in names:
        base = results.get(_job(w, opts).key)
        if not succeeded(base):
            md.append(f"| {workload_label(w)} | {'missing' if base is None else 'error: ' + base['error']} |"
                      + " |" * (2 * len(VARIANTS) + 3))
            continue
        be = base["energy"]
        cells, ecells, same = [], [], True
        row = {"workload": w, "cycles": base["cycles"], "ipc": base["ipc"]}
        partial = ""
        for v in VARIANTS:
            r = results.get(_job(w, opts, v).key)
            if not succeeded(r):
                cells.append("error" if r else "missing")
                ecells.append("–")
                same = same and r is None   # a failed run counts, a missing one not yet
                continue
            same &= same_outputs(r, base)
            s = base["cycles"] / r["cycles"]
            e = r["energy"]["total_j"] / be["total_j"] - 1
            sp[v].append(s)
            en[v].append(e)
            st_dyn[v]["static"].append(r["energy"]["static_j"] / be["static_j"] - 1)
            st_dyn[v]["dynamic"].append(r["energy"]["dynamic_j"] / be["dynamic_j"] - 1)
            row[v] = {"speedup": s, "energy_change": e,
                      "counters": {k: x for k, x in _mech(r).items() if k.startswith("warpman.")}}
            if v == "temp+spatial":
                partial = f"{_mech(r).get('warpman.partial_tbs', 0):,}"
            cells.append(f"{s:.3f}")
            ecells.append(f"{100 * e:+.1f}%")
        row["outputs_identical"] = same
        rows.append(row)
        md.append(f"| {marks.mark(w, workload_label(w))} | {base['cycles']:,} | {base['ipc']:.1f} | " + " | ".join(cells) +
                  " | " + " | ".join(ecells) + f" | {partial} | "
                  f"{'identical' if same else 'DIFFER'} |")
    gm = {v: geomean(x) if x else None for v, x in sp.items()}
    mx = {v: max(x) if x else None for v, x in sp.items()}
    me = {v: sum(x) / len(x) if x else None for v, x in en.items()}
    md.append("| **geomean / mean** | | | " + " | ".join(f"**{_fmt(gm[v])}**" for v in VARIANTS)
              + " | " + " | ".join(f"**{_sgn(me[v])}**" for v in VARIANTS) + " | | |")
    md.append("| paper | | | " + " | ".join(f"{1 + PAPER[v] / 100:.3f}" for v in VARIANTS) +
              " | " + " | ".join(f"{PAPER_ENERGY[v]:+.1f}%" for v in VARIANTS) + " | | |")
    md.append("| maximum | | | " + " | ".join(_fmt(mx[v]) for v in VARIANTS) + " | | | | | | |")
    if marks.footnote():
        md += ["", marks.footnote()]
    stat = {v: {k: (sum(x) / len(x) if x else None) for k, x in d.items()}
            for v, d in st_dyn.items()}
    md += ["", "Mean static / dynamic energy change: " + "; ".join(
        f"{v} {_sgn(stat[v]['static'])} / {_sgn(stat[v]['dynamic'])}" for v in VARIANTS) +
        f". Chapter: maximum gain {PAPER_MAX}% (figure only), dynamic energy barely changes.",
        ""]
    data["performance"] = {"rows": rows, "geomean_speedup": gm, "max_speedup": mx,
                           "mean_energy_change": me, "static_dynamic_change": stat,
                           "paper_gain_percent": PAPER, "paper_energy_percent": PAPER_ENERGY,
                           "paper_max_percent": PAPER_MAX}


def _fmt(x, nd=3) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def _sgn(x) -> str:
    return "–" if x is None else f"{100 * x:+.1f}%"


# ---------------------------------------------------------------- RAY / ST lifetimes
def _lifetimes(results, opts, names, md, data) -> None:
    md += ["## Warp lifetimes of RAY and ST (§3.3)", ""]
    out = {}
    for pn in ("RAY", "ST"):
        w = next((n for n in names if paper_name(n) == pn), None)
        r = results.get(_job(w, opts).key) if w else None
        if not succeeded(r):
            md += [f"{pn}: no baseline run.", ""]
            continue
        m = _mech(r)
        hist = sorted((int(k.rsplit(".", 1)[1]), v) for k, v in m.items()
                      if k.startswith("lifetimes.warp_insts."))
        total = sum(v for _, v in hist) or 1
        ends = sorted((int(k.rsplit(".", 1)[1]), v) for k, v in m.items()
                      if k.startswith("lifetimes.tb0_warp_end."))
        md += [f"**{pn}** (our {w}): TB 0 RTRU {_pct(m.get('lifetimes.tb0_rtru'))} (chapter "
               f"{PAPER_RTRU[pn][0]}%), mean over {m.get('lifetimes.tbs', 0):,} TBs "
               f"{_pct(m['lifetimes.rtru_sum'] / m['lifetimes.tbs'])} (chapter "
               f"{PAPER_RTRU[pn][1]}%).", "",
               "Warps by issued instructions: " + ", ".join(
                   f"{lo}-{lo + 499}: {100 * v / total:.1f}%" for lo, v in hist) + ".", "",
               "TB 0 warp finish cycles: " + ", ".join(f"w{i} {c:,}" for i, c in ends) + ".", ""]
        out[pn] = {"workload": w, "histogram": hist, "tb0_warp_end": ends,
                   "tb0_rtru": m.get("lifetimes.tb0_rtru"),
                   "mean_rtru": m["lifetimes.rtru_sum"] / m["lifetimes.tbs"]}
    data["lifetimes"] = out


# ---------------------------------------------------------------- design space
def _sensitivity(results, opts, names, md, data) -> None:
    md += ["## Design space (§3.6.3)", "",
           "Each point against its own baseline (the same overrides without WarpMan); "
           "geometric mean of speedups over our workloads, chapter's in brackets.", "",
           "| point | " + " | ".join(VARIANTS) + " |", "|---|" + "--:|" * len(VARIANTS)]
    out = {}
    for name, (ov, variants, paper) in sensitivity().items():
        cells, res = [], {}
        for v in VARIANTS:
            if v not in variants:
                cells.append("")
                continue
            xs = []
            for w in names:
                b = results.get(_job(w, opts, None, ov).key)
                r = results.get(_job(w, opts, v, ov).key)
                if succeeded(b) and succeeded(r) and same_outputs(r, b):
                    xs.append(b["cycles"] / r["cycles"])
            g = geomean(xs) if xs else None
            res[v] = {"geomean": g, "n": len(xs), "paper_percent": paper.get(v)}
            cells.append(f"{_fmt(g)} ({1 + paper[v] / 100:.3f}) n={len(xs)}")
        out[name] = res
        md.append(f"| {name} | " + " | ".join(cells) + " |")
    md += ["", "A workload whose TB does not fit an SM of a point (e.g. ST's 17,408-register "
           "TB at 16 k registers in the chapter) is left out of that point (n = workloads "
           "counted).", ""]
    data["sensitivity"] = out


def render(results: dict, opts: ReportOptions) -> tuple[str, dict]:
    names = _workloads(opts)
    md = ["# WarpMan (seed 002 ch. 3): warp-level resource management", "",
          f"Timing on `{CONFIG}` (Table 4: 15 SMs, SIMD 32, RR, 32 k registers, 48 KB shared, "
          f"8 TBs / 1536 threads per SM), size `{opts.size}`, seed {opts.seed}. Outputs of every "
          "variant must equal the baseline's bit for bit (`outputs`).", ""]
    data = {"config": CONFIG, "size": opts.size, "seed": opts.seed}
    _characterise(results, opts, names, md, data)
    _performance(results, opts, names, md, data)
    _lifetimes(results, opts, names, md, data)
    _sensitivity(results, opts, names, md, data)
    md += [DIFFERENCES]
    return "\n".join(md) + "\n", data


