"""ILP report (issue 16; seed 002 ch. 4, §4.4): data bypassing, the many-thread-aware
scoreboard and branch prediction on the chapter's GTX 280-like baseline, the scoreboard
size and ILP vs TLP over the RF size, beside the chapter's numbers.

Sections, all on ``gtx280_ilp`` (Table 6: one instruction in flight per warp):

1. **Data hazards** (§4.4.1-§4.4.2, Figs. 42-43): BP = ``pipelines.bypass``; SC = mechanism
   ``ilp-sc`` (8 entries); BP+SC; speedup over the baseline.
2. **Branch prediction** (§4.4.3, Figs. 45, 47): over BP+SC with the branch latency lowered
   to 1 (``pipelines.control_latency`` 1, the chapter's change to its simulator), the
   predictors ``ilp-bp-static`` (BTFN on the PTX ``bra``; ``static/folded``: PTX
   branch-over-jump pairs read as one negated branch), ``ilp-bp-gshare`` (1 k bits, one history register
   per SM), ``ilp-bp-gshare-warp`` (one history per warp) and ``ilp-bp-perfect``; branches
   that depend on a long-latency operation through their predicate's dependence chain are
   not predicted (the chapter's rule; ``*/direct``: only a ``bra`` that itself waited on
   memory, the rule before issue 67); accuracy over non-divergent conditional branches
   that were predicted, overall and per static branch class (loop-end / loop-exit / data,
   :mod:`golden.mechanisms.ilp.branch_class`) with the shares of divergent and
   not-predicted branches in each, per workload, as the mean over workloads and pooled
   over all branches.
3. **Scoreboard size** (§4.4.4): BP+SC with 2 to 32 entries (``ilp-sc:entries=N``).
4. **ILP vs TLP** (§4.4.4, Fig. 46): baseline and BP+SC with 4 k, 8 k, 12 k and 16 k
   registers per SM, normalised to the 16 k baseline.
5. **Workloads** (§4.4, paper-facts §4.2): each workload's main kernel sized on the
   baseline (shared memory per TB, TBs per SM and their limit, waves) and its work per
   thread block from a functional run (:class:`TBWorkJob`): TB0's share of the warp
   instructions, the largest TB against the mean TB, the share of branches -- the
   chapter's NQU TB0 dominance and NQU's / STO's 16 KB of shared memory per TB.

The heterogeneous GPU (§4.5) with concurrent kernels is :mod:`golden.report.hetero`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from golden.report.present.cells import outputs_verdict
from golden.report.runner import (ReportOptions, TimingJob, WorkloadProbe, geomean,
                                  same_outputs, speedup_sweep, standing_for, succeeded, workload_label)

CONFIG = "gtx280"
#: the ``stands_for`` prefix of the paper's workloads (user workloads join with it too)
STANDS_FOR = "ILP"
BYPASS = (("pipelines.bypass", True),)
#: variant -> (mechanisms, overrides)
VARIANTS = {"BP": ((), BYPASS), "SC": (("ilp-sc",), ()), "BP+SC": (("ilp-sc",), BYPASS)}
#: the chapter's geometric-mean gains over its baseline (§4.4.4, paper-facts §4.5), %
PAPER = {"BP": 6.6, "SC": 11.4, "BP+SC": 13.4}

#: branch-prediction study: BP+SC with branch latency 1 (§4.4.4), then each predictor
BP_STUDY = (("ilp-sc",), BYPASS + (("pipelines.control_latency", 1),))
PREDICTORS = {"static": "ilp-bp-static", "static/folded": "ilp-bp-static:layout=folded",
              "static/direct": "ilp-bp-static:deps=direct",
              "gshare": "ilp-bp-gshare", "gshare/warp": "ilp-bp-gshare-warp",
              "gshare/direct": "ilp-bp-gshare:deps=direct",
              "perfect": "ilp-bp-perfect"}
#: the chapter's gains over BP+SC and accuracies (§4.4.4, Figs. 45, 47), %
PAPER_BP = {"static": 2.7, "gshare": 3.1}
PAPER_ACCURACY = {"static": 94.4, "gshare": 93.7}

#: scoreboard sizes swept (BP+SC); 8 is the chapter's (its figure only: "most cost-effective")
SC_SIZES = (2, 4, 8, 16, 32)
#: registers per SM swept for ILP vs TLP (Fig. 46); 16 k is Table 6's
RF_SIZES = (4096, 8192, 12288, 16384)
#: the chapter: BP+SC with 8 k registers beats the 16 k baseline by 11.9%
PAPER_ILP_8K = 11.9

DIFFERENCES = """\
How our setup differs from the chapter's:

* **Workloads and inputs.** Our own CUDA kernels stand in for all 12 of the chapter's
  (BS, Con(v), DT, FFT, MM, MV, NQU, NW, Ray, Scan, SCP, STO), at the input size in the
  header (`paper`: at least two full waves of TBs on this 30-SM GPU); the chapter's inputs
  (Table 7) survive only as an image. FFT runs its ILP version FFT-ILP
  (docs/workloads.md): the chapter's 128 TBs (0.53 waves) with 32 registers per thread,
  so 8 TBs fit an SM as the chapter states. At `paper` size NW aligns 20 sequence pairs per
  launch (the chapter's NW aligns one, so most of its launches have few TBs; ours still
  grow and shrink over the tile anti-diagonals, with one single-warp TB per SM).
* **PTX instead of SASS, GPGPU-Sim 3.0.1 "heavily modified" instead of our model.** Our
  gtx280_ilp runs 32 lanes at 325 MHz like the chapter's simulator, but takes the ALU
  latency of 8 in those cycles (the chapter's bypass discussion counts the EX stages of
  its 8-SP view, where 8 stages span 2 issue slots); dependents without bypass also wait
  for the operand-read, dispatch and WB stages of our pipeline (read 1 + dispatch 1).
* **Scoreboard.** Registers are PTX virtual registers (wider tags than the chapter's 9
  bits, so no false sharing of physical registers); several warps may commit in one
  cycle; every destination register takes one entry; a warp's `exit` waits until its
  entries commit; without a predictor, branches block their warp until they resolve.
* **Branch prediction.** Wrong-path instructions are never issued (the chapter issues and
  nullifies them; the issue slots they waste are not charged); a mispredicted warp waits
  for the branch (1 cycle after EX entry) and refetches; fetch is GPGPU-Sim's (one warp
  per cycle, 2 instructions, only into an empty I-buffer), so a correctly predicted taken
  branch still costs a fetch of its target. gshare predicts at fetch and is updated at
  issue; the chapter does not say whether its history register is shared by the SM's
  warps or kept per warp, so both are shown. "perfect" never waits for a branch but
  still refetches when its static guess was wrong. A branch whose guard predicate
  depends, through registers, on a value its warp waited for from memory is not
  predicted (the chapter's "branch dependent upon a long latency operation"); `*/direct`
  shows the old rule (only a `bra` that itself waited on memory: almost none in PTX).
  Branches are PTX (NVVM's layout, with `@p bra A; bra.uni B; A:` pairs and libdevice's
  special-case tests), not the chapter's CUDA 3.x-era PTX, so the branch streams differ.
* **RF sweep.** A kernel whose PTX needs more registers than an SM with the swept RF
  can give one TB runs with its registers clamped to what fits (as if compiled with
  `__launch_bounds__`; spill traffic is not modelled), marked †; the chapter instead
  uses RAY's 10 k result below 10 k.
"""


#: the chapter's workload facts (§4.4, paper-facts §4.2): shared memory per TB
PAPER_SHARED = {"NQU": "15.4 kB, 1 TB/SM", "STO": "16 kB, 1 TB/SM"}
#: NQU's TB0: 13.7% of its instructions are branches (§4.4.4)
PAPER_NQU_TB0_BRANCHES = 13.7


@dataclass(frozen=True)
class TBWorkJob(WorkloadProbe):
    """Work per thread block of one workload (a functional run), its kernels sized on the
    baseline GPU (:func:`golden.workloads.tb_work.tb_work`)."""

    KIND: ClassVar[str] = "tb-work"

    def compute(self) -> dict:
        from golden.configs import load_config
        from golden.workloads.tb_work import tb_work
        return tb_work(self.workload, self.size, self.seed, load_config(CONFIG))


def _workloads(opts: ReportOptions) -> list[str]:
    """The paper's stand-ins, then the user workloads of ``--workloads`` whose
    ``stands_for`` begins with :data:`STANDS_FOR`."""
    return standing_for(STANDS_FOR, opts)


def _job(w: str, opts: ReportOptions, variant: str | None = None) -> TimingJob:
    mechs, ov = VARIANTS[variant] if variant else ((), ())
    return TimingJob(w, CONFIG, size=opts.size, seed=opts.seed, mechanisms=mechs, overrides=ov)


def _bp_job(w: str, opts: ReportOptions, predictor: str | None = None) -> TimingJob:
    mechs, ov = BP_STUDY
    if predictor:
        mechs = mechs + (PREDICTORS[predictor],)
    return TimingJob(w, CONFIG, size=opts.size, seed=opts.seed, mechanisms=mechs, overrides=ov)


def _sc_job(w: str, opts: ReportOptions, entries: int) -> TimingJob:
    if entries == 8:
        return _job(w, opts, "BP+SC")
    return TimingJob(w, CONFIG, size=opts.size, seed=opts.seed,
                     mechanisms=(f"ilp-sc:entries={entries}",), overrides=BYPASS)


def _rf_job(w: str, opts: ReportOptions, regs: int, ilp: bool) -> TimingJob:
    if regs == 16384:
        return _job(w, opts, "BP+SC" if ilp else None)
    ov = (("core.registers_per_sm", regs),)
    mechs, extra = VARIANTS["BP+SC"] if ilp else ((), ())
    return TimingJob(w, CONFIG, size=opts.size, seed=opts.seed, mechanisms=mechs,
                     overrides=extra + ov)


def jobs(opts: ReportOptions) -> list[TimingJob]:
    out = []
    for w in _workloads(opts):
        out += [_job(w, opts, v) for v in (None, *VARIANTS)]
        out += [_bp_job(w, opts, p) for p in (None, *PREDICTORS)]
        out += [_sc_job(w, opts, n) for n in SC_SIZES if n != 8]
        out += [_rf_job(w, opts, r, ilp) for r in RF_SIZES if r != 16384 for ilp in (False, True)]
        out.append(TBWorkJob(w, opts.size, opts.seed))
    return out


def _fmt(x, nd=3) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def _hazards(results, opts, names, md, data) -> None:
    md += ["## Data hazards: bypassing and the scoreboard (§4.4.1-§4.4.2)", "",
           "Speedup = baseline cycles / variant cycles.", "",
           "| workload | baseline cycles | IPC | " + " | ".join(VARIANTS) +
           " | SC bypass issues | outputs |",
           "|---|--:|--:|" + "--:|" * len(VARIANTS) + "--:|---|"]
    rows, data_rows = {v: [] for v in VARIANTS}, []
    for w in names:
        base = results.get(_job(w, opts).key)
        if not succeeded(base):
            md.append(f"| {workload_label(w)} | {'missing' if base is None else 'error: ' + base['error']} |"
                      + " |" * (len(VARIANTS) + 3))
            continue
        cells, same, missing = [], True, 0
        row = {"workload": w, "cycles": base["cycles"], "ipc": base["ipc"]}
        for v in VARIANTS:
            r = results.get(_job(w, opts, v).key)
            if not succeeded(r):
                cells.append("error" if r else "missing")
                missing += r is None
                same = same and r is None   # a failed run counts, a missing one not yet
                continue
            sp = base["cycles"] / r["cycles"]
            rows[v].append(sp)
            row[v] = sp
            same &= same_outputs(r, base)
            if v == "SC":
                row["sc_bypass_issues"] = r["timing"]["mechanism"].get("ilp.bypass_issues", 0)
            cells.append(f"{sp:.3f}")
        verdict, row["outputs_identical"] = outputs_verdict(not same, missing)
        data_rows.append(row)
        md.append(f"| {workload_label(w)} | {base['cycles']:,} | {base['ipc']:.2f} | " + " | ".join(cells)
                  + f" | {row.get('sc_bypass_issues', '')} | {verdict} |")
    gm = {v: geomean(rows[v]) for v in VARIANTS}
    md.append("| **geomean** | | | " + " | ".join(f"**{gm[v]:.3f}**" for v in VARIANTS) + " | | |")
    md.append("| paper (GM over 12) | | | " + " | ".join(f"{1 + PAPER[v] / 100:.3f}" for v in VARIANTS)
              + " | | |")
    md.append("")
    data.update(rows=data_rows, geomean_speedup=gm, paper_gain_percent=PAPER)


def _accuracy(r):
    m = r["timing"]["mechanism"]
    ok, bad = m.get("bp.correct", 0), m.get("bp.mispredict", 0)
    return (ok / (ok + bad)) if ok + bad else None, m


def _branch(results, opts, names, md, data) -> None:
    md += ["## Branch prediction (§4.4.3)", "",
           "Over BP+SC with the branch latency lowered to 1 cycle (the chapter's change). "
           "Speedup = BP+SC cycles / predictor cycles; accuracy over the non-divergent "
           "conditional branches that were predicted (the chapter's Fig. 47 measure). "
           "Branch mix from the static run: divergent / unconditional / not predicted "
           "(waited on a long-latency operand) per 100 branches.", "",
           "| workload | BP+SC cycles | " + " | ".join(PREDICTORS) + " | " +
           " | ".join(f"acc. {p}" for p in PREDICTORS if p != "perfect") +
           " | div / uncond / not pred. | outputs |",
           "|---|--:|" + "--:|" * (2 * len(PREDICTORS) - 1) + "--:|---|"]
    sp_rows = {p: [] for p in PREDICTORS}
    acc_rows = {p: [] for p in PREDICTORS if p != "perfect"}
    data_rows = []
    for w in names:
        base = results.get(_bp_job(w, opts).key)
        if not succeeded(base):
            md.append(f"| {workload_label(w)} | {'missing' if base is None else 'error'} |" + " |" * (2 * len(PREDICTORS) + 1))
            continue
        row, same, sp_cells, acc_cells, mix = {"workload": w, "cycles": base["cycles"]}, True, [], [], ""
        missing = 0
        for p in PREDICTORS:
            r = results.get(_bp_job(w, opts, p).key)
            if not succeeded(r):
                sp_cells.append("error" if r else "missing")
                if p != "perfect":
                    acc_cells.append("–")
                missing += r is None
                same = same and r is None   # a failed run counts, a missing one not yet
                continue
            same &= same_outputs(r, base)
            sp = base["cycles"] / r["cycles"]
            sp_rows[p].append(sp)
            sp_cells.append(f"{sp:.3f}")
            acc, m = _accuracy(r)
            row[p] = {"speedup": sp, "accuracy": acc,
                      "counts": {k: v for k, v in m.items() if k.startswith("bp.")}}
            if p != "perfect":
                if acc is not None:
                    acc_rows[p].append(acc)
                acc_cells.append("–" if acc is None else f"{100 * acc:.1f}%")
            if p == "static":
                n = sum(v for k, v in m.items() if k.startswith("bp."))
                if n:
                    mix = " / ".join(f"{100 * m.get(k, 0) / n:.0f}" for k in
                                     ("bp.divergent", "bp.unconditional", "bp.not_predicted"))
        verdict, row["outputs_identical"] = outputs_verdict(not same, missing)
        data_rows.append(row)
        md.append(f"| {workload_label(w)} | {base['cycles']:,} | " + " | ".join(sp_cells) + " | " +
                  " | ".join(acc_cells) + f" | {mix} | {verdict} |")
    gm = {p: geomean(v) for p, v in sp_rows.items()}
    acc_mean = {p: (sum(v) / len(v) if v else None) for p, v in acc_rows.items()}
    md.append("| **geomean / mean** | | " + " | ".join(f"**{gm[p]:.3f}**" for p in PREDICTORS)
              + " | " + " | ".join("–" if acc_mean[p] is None else f"**{100 * acc_mean[p]:.1f}%**"
                                   for p in acc_rows) + " | | |")
    md.append("| paper | | " + " | ".join(
        f"{1 + PAPER_BP[p] / 100:.3f}" if p in PAPER_BP else "" for p in PREDICTORS) + " | " +
        " | ".join(f"{PAPER_ACCURACY[p]}%" if p in PAPER_ACCURACY else "" for p in acc_rows)
        + " | | |")
    md.append("")
    data["branch_prediction"] = {"rows": data_rows, "geomean_speedup": gm,
                                 "mean_accuracy": acc_mean, "paper_gain_percent": PAPER_BP,
                                 "paper_accuracy_percent": PAPER_ACCURACY}
    _branch_classes(results, opts, names, md, data["branch_prediction"])


def class_accuracy(m: dict, cls: str) -> tuple[float | None, int, int]:
    """(accuracy over the uniform predicted branches of class ``cls``, uniform predicted
    branches, divergent branches) from one run's mechanism counters (``bp_class.*``)."""
    get = lambda o: m.get(f"bp_class.{cls}.{o}", 0)  # noqa: E731
    ok, bad, div = get("correct"), get("mispredict"), get("divergent")
    return (ok / (ok + bad) if ok + bad else None), ok + bad, div


def pooled_accuracy(runs: list[dict], cls: str | None = None) -> float | None:
    """Accuracy pooled over the branches of several runs' mechanism counters (each
    workload weighted by its branches, unlike the chapter's mean over workloads): over
    class ``cls``, or over every conditional branch when None."""
    key = (lambda o: f"bp.{o}") if cls is None else (lambda o: f"bp_class.{cls}.{o}")
    ok = sum(m.get(key("correct"), 0) for m in runs)
    bad = sum(m.get(key("mispredict"), 0) for m in runs)
    return ok / (ok + bad) if ok + bad else None


def _branch_classes(results, opts, names, md, data) -> None:
    """Accuracy per static branch class (golden/mechanisms/ilp/branch_class.py): loop-end
    (backward), loop-exit (forward out of a loop), data (other forward: if/else)."""
    from golden.mechanisms.ilp.branch_class import BRANCH_CLASSES
    preds = [p for p in PREDICTORS if p != "perfect"]
    md += ["### Accuracy per branch class", "",
           "Conditional branches by static class: **loop-end** = backward (closes a loop), "
           "**loop-exit** = forward out of an enclosing loop, **data** = any other forward "
           "branch (if/else on data). Per class: uniform = non-divergent predicted branches "
           "(the accuracy's denominator), div = share of the class's branches that diverged "
           "(never mispredicted, not in the accuracy), long = share not predicted because "
           "they depend on a long-latency operation; counts from the static run; accuracy "
           "per predictor. **mean** = over workloads (the chapter's average); **pooled** = "
           "over all branches of all workloads.", "",
           "| workload | " + " | ".join(
               f"{c}: uniform / div / long | " + " | ".join(f"{c} {p}" for p in preds)
               for c in BRANCH_CLASSES) + " |",
           "|---|" + ("--:|" * (1 + len(preds))) * len(BRANCH_CLASSES)]
    sums = {(c, p): [] for c in BRANCH_CLASSES for p in preds}
    pooled_runs = {p: [] for p in preds}
    rows = []
    for w in names:
        runs = {p: results.get(_bp_job(w, opts, p).key) for p in preds}
        if not all(succeeded(r) for r in runs.values()):
            continue
        cells, row = [], {"workload": w}
        for p in preds:
            pooled_runs[p].append(runs[p]["timing"]["mechanism"])
        for c in BRANCH_CLASSES:
            m_static = runs["static"]["timing"]["mechanism"]
            _, n, div = class_accuracy(m_static, c)
            lng = m_static.get(f"bp_class.{c}.not_predicted", 0)
            tot = n + div + lng
            cells.append(f"{n:,} / {100 * div / tot:.0f}% / {100 * lng / tot:.0f}%" if tot else "–")
            row[c] = {"uniform": n, "divergent": div, "not_predicted": lng}
            for p in preds:
                acc, _, _ = class_accuracy(runs[p]["timing"]["mechanism"], c)
                row[c][p] = acc
                if acc is not None:
                    sums[(c, p)].append(acc)
                cells.append("–" if acc is None else f"{100 * acc:.1f}%")
        rows.append(row)
        md.append(f"| {workload_label(w)} | " + " | ".join(cells) + " |")
    mean = {f"{c}/{p}": (sum(v) / len(v) if v else None) for (c, p), v in sums.items()}
    md.append("| **mean** | " + " | ".join(
        " | ".join([""] + ["–" if mean[f"{c}/{p}"] is None else f"**{100 * mean[f'{c}/{p}']:.1f}%**"
                           for p in preds]) for c in BRANCH_CLASSES) + " |")
    pooled = {f"{c}/{p}": pooled_accuracy(pooled_runs[p], c)
              for c in BRANCH_CLASSES for p in preds}
    md.append("| **pooled** | " + " | ".join(
        " | ".join([""] + ["–" if pooled[f"{c}/{p}"] is None else f"**{100 * pooled[f'{c}/{p}']:.1f}%**"
                           for p in preds]) for c in BRANCH_CLASSES) + " |")
    overall = {p: pooled_accuracy(pooled_runs[p]) for p in preds}
    md += ["", "Pooled over all conditional branches: " + ", ".join(
        f"{p} {'–' if a is None else f'{100 * a:.1f}%'}" for p, a in overall.items()) + ".", ""]
    data["per_class"] = {"rows": rows, "mean_accuracy": mean, "pooled_accuracy": pooled,
                         "pooled_overall": overall}


def _sc_sizes(results, opts, names, md, data) -> None:
    md += ["## Scoreboard size (§4.4.4)", "",
           "BP+SC with N scoreboard entries, speedup over the baseline. The chapter finds 8 "
           "the most cost-effective (its per-size numbers are in a figure only).", "",
           "| workload | " + " | ".join(f"{n} entries" for n in SC_SIZES) + " |",
           "|---|" + "--:|" * len(SC_SIZES)]
    rows, data_rows, gm = speedup_sweep(results, names, lambda w: _job(w, opts),
                                        lambda w, n: _sc_job(w, opts, n), SC_SIZES)
    md += rows
    md.append("")
    data["scoreboard_sizes"] = {"rows": data_rows, "geomean_speedup": gm}


def _rf(results, opts, names, md, data) -> None:
    md += ["## ILP vs TLP: register-file size (§4.4.4, Fig. 46)", "",
           "Performance normalised to the 16 k-register baseline (baseline cycles at 16 k / "
           "cycles); TLP = baseline, ILP = BP+SC. † = the PTX's register estimate was "
           "clamped to fit one TB (spills not modelled).", "",
           "| workload | " + " | ".join(f"{r // 1024}k {k}" for r in RF_SIZES for k in ("TLP", "ILP"))
           + " |", "|---|" + "--:|" * (2 * len(RF_SIZES))]
    cols = {(r, k): [] for r in RF_SIZES for k in ("TLP", "ILP")}
    data_rows = []
    for w in names:
        ref = results.get(_job(w, opts).key)
        cells, row = [], {"workload": w}
        for r in RF_SIZES:
            for k in ("TLP", "ILP"):
                res = results.get(_rf_job(w, opts, r, k == "ILP").key)
                if not (succeeded(ref) and succeeded(res)) or not same_outputs(res, ref):
                    cells.append("error" if res is not None else "missing")
                    continue
                perf = ref["cycles"] / res["cycles"]
                clamped = res["timing"]["mechanism"].get("baseline.registers_clamped_from", 0)
                cols[(r, k)].append(perf)
                row[f"{r}_{k}"] = {"perf": perf, "clamped": bool(clamped)}
                cells.append(f"{perf:.3f}{'†' if clamped else ''}")
        data_rows.append(row)
        md.append(f"| {workload_label(w)} | " + " | ".join(cells) + " |")
    gm = {f"{r}_{k}": geomean(v) for (r, k), v in cols.items()}
    md.append("| **geomean** | " + " | ".join(f"**{gm[f'{r}_{k}']:.3f}**" for r in RF_SIZES
                                               for k in ("TLP", "ILP")) + " |")
    ilp8 = gm.get("8192_ILP")
    md += ["", f"ILP with 8 k registers vs the 16 k baseline: **{_fmt(ilp8)}** "
           f"(chapter: {1 + PAPER_ILP_8K / 100:.3f}, i.e. +{PAPER_ILP_8K}%).", ""]
    data["ilp_vs_tlp"] = {"rows": data_rows, "geomean": gm, "paper_ilp_8k_gain_percent": PAPER_ILP_8K}


def _tb_work(results, opts, names, md, data) -> None:
    from golden.workloads.tb_work import main_launch
    md += ["## Workloads on the baseline: occupancy and work per thread block", "",
           "Main kernel (the launch with the most warp instructions) of each workload, sized "
           f"on `{CONFIG}` as the timing model sizes it, and its work per TB from a functional "
           "run. TB0 share = TB0's warp instructions / the launch's; largest / mean = the "
           "busiest TB against the average TB (1.00 = balanced); branches = `bra` share of "
           "the warp instructions. The chapter: NQU uses 15.4 kB of shared memory per TB "
           "and STO 16 kB (one TB per SM), NQU's TB0 dominates the runtime, and 13.7% of "
           "NQU TB0's instructions are branches.", "",
           "| workload | main kernel | TBs | threads/TB | shared/TB | TBs/SM (limit) | waves | "
           "TB0 share | largest / mean | branches (all / TB0) | chapter |",
           "|---|---|--:|--:|--:|---|--:|--:|--:|--:|---|"]
    rows = []
    for w in names:
        r = results.get(TBWorkJob(w, opts.size, opts.seed).key)
        m = main_launch(r) if succeeded(r) else None
        if m is None:
            md.append(f"| {workload_label(w)} | {'missing' if r is None else 'error'} |" + " |" * 9)
            continue
        k = next((k for k in r["occupancy"]["kernels"] if k["kernel"] == m["kernel"]), None)
        row = {"workload": w, **m, "outputs_match": r["outputs_match"]}
        if k:
            row.update(threads_per_tb=k["threads_per_tb"], shared_per_tb=k["shared_per_tb"],
                       tbs_per_sm=k["tbs_per_sm"], limiters=list(k["limiters"]),
                       waves=k["waves_max"])
        rows.append(row)
        occ = (f"{k['threads_per_tb']} | {k['shared_per_tb'] / 1024:.1f} kB | "
               f"{k['tbs_per_sm']} ({', '.join(k['limiters'])}) | {k['waves_max']:.2f}"
               if k else " | | |")
        chapter = PAPER_SHARED.get(w, "")
        if w == "NQU":
            chapter += f"; TB0 dominates; {PAPER_NQU_TB0_BRANCHES}% of TB0's are branches"
        md.append(f"| {workload_label(w)} | `{m['kernel']}` | {m['num_tbs']:,} | {occ} | "
                  f"{100 * m['tb0_share']:.2f}% | {m['largest_over_mean']:.2f} (TB{m['largest_tb']}) | "
                  f"{100 * m['branch_share']:.1f}% / {100 * m['tb0_branch_share']:.1f}% | "
                  f"{chapter} |")
    md.append("")
    nqu = next((r for r in rows if r["workload"] == "NQU"), None)
    if nqu:
        dominates = nqu["largest_tb"] == 0 and nqu["tb0_share"] > 0.5
        md += [f"NQU's TB0 executes {100 * nqu['tb0_share']:.2f}% of the warp instructions of "
               f"its {nqu['num_tbs']} TBs, and the busiest TB (TB{nqu['largest_tb']}) "
               f"{nqu['largest_over_mean']:.2f}x the mean TB: "
               + ("TB0 dominates, as the chapter's NQU TB0 does (every sub-problem falls in "
                  "TB0; the other TBs fail `idx < total_conditions` and only run the block "
                  "reduction)" if dominates else
                  "no TB dominates as the chapter's NQU TB0 does (its other TBs mostly fail "
                  "`idx < total_conditions`)")
               + ". One TB per SM for lack of shared memory, which the chapter's low-TLP "
               "argument needs, is in the table above for NQU and STO.", ""]
    data["workloads"] = rows


def render(results: dict, opts: ReportOptions) -> tuple[str, dict]:
    names = _workloads(opts)
    md = ["# ILP for shader cores (seed 002 ch. 4): bypassing, the many-thread-aware "
          "scoreboard and branch prediction", "",
          f"Timing on `{CONFIG}` (gtx280_ilp, ILP Table 6: 30 SMs, 32 lanes at 325 MHz, RR, one "
          f"instruction in flight per warp), size `{opts.size}`, seed {opts.seed}. Outputs of "
          "every variant must equal the baseline's bit for bit (`outputs`).", ""]
    data = {"config": CONFIG, "size": opts.size, "seed": opts.seed}
    _hazards(results, opts, names, md, data)
    _branch(results, opts, names, md, data)
    _sc_sizes(results, opts, names, md, data)
    _rf(results, opts, names, md, data)
    _tb_work(results, opts, names, md, data)
    md += [DIFFERENCES, "The heterogeneous GPU (§4.5) with concurrent kernels: "
           "`simtlab report hetero`.", ""]
    return "\n".join(md) + "\n", data
