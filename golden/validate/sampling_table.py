"""``simtlab validate --sampling``: sampled timing against full timing on today's model.

For every workload (and each mechanism set given) both a full timing run
(:func:`golden.runs.timing_workload.run_timing_workload`) and a sampled one
(:func:`golden.runs.sampled_run.run_sampled_timing_workload`) run now, on the current
model -- never against archived results, which may be stale. A row gives the full cycles,
the sampled estimate, its error, its 95% interval and whether the full figure lies
inside, the detailed share of launches and warp instructions, and the CPU seconds of
both. With ``--mechanism M`` every workload also runs with M, and the speed-up
baseline/M is compared full against sampled (same sample seed, so both runs detail the
same launches when their grouping agrees).

The summary: median and 95th percentile of |error| over the rows where sampling skipped
something (rows simulated whole are exact by construction and listed apart), coverage
(share of estimable intervals that hold the full figure), and the reduction of detailed
warp instructions and CPU time.
"""

from __future__ import annotations

import math
import time

DEFAULT_SMALL = ("BFS", "NW", "LUD", "RS", "FWS", "CFD", "SR1", "PF", "KMEANS", "HS", "SCAN")
DEFAULT_PAPER = ("NW", "RS", "FWS", "LUD", "CFD")
#: single-launch (or few-launch) workloads with the most occupancy waves at ``paper`` size:
#: the default of ``--sample-level tb``
DEFAULT_TB = ("MM", "CONV", "CP", "INLM", "HS", "LIB", "BS")


def one_pair(workload: str, size: str, seed: int, config: str, mechanisms: tuple,
             sample_seed: int, level: str = "launch") -> dict:
    """Full and sampled timing of one workload and mechanism set: one table row.
    ``level``: ``"launch"`` (launch sampling) or ``"tb"`` (thread-block sampling)."""
    from golden.runs.timing_workload import run_timing_workload
    if level == "tb":
        from golden.runs.tb_sampled_run import run_tb_sampled_timing_workload as run
        from golden.timing.tb_sampling import TBSamplingPlan as Plan
    else:
        from golden.runs.sampled_run import run_sampled_timing_workload as run
        from golden.timing.sampling import SamplingPlan as Plan
    c0 = time.process_time()
    full = run_timing_workload(workload, size, seed, config, mechanisms=mechanisms)
    c1 = time.process_time()
    samp = run(workload, size, seed, config, mechanisms=mechanisms, plan=Plan(seed=sample_seed))
    c2 = time.process_time()
    s = samp["sampling"]
    iv = s["intervals"]["cycles"]
    err = 100.0 * (iv["estimate"] - full["cycles"]) / full["cycles"]
    inside = None
    if iv["estimable"]:
        inside = iv["low"] <= full["cycles"] <= iv["high"]
    return {"workload": full["workload"], "size": size, "config": full["config"],
            "level": level,
            "mechanisms": list(mechanisms), "launches": full["launches"],
            "full_cycles": full["cycles"], "estimate": iv["estimate"], "error_pct": err,
            "low": iv["low"], "high": iv["high"], "half_width_pct": iv["half_width_pct"],
            "exact": iv["exact"], "estimable": iv["estimable"], "inside": inside,
            "note": iv["note"],
            "units_detailed": s["units_detailed"], "units_total": s["units_total"],
            "detailed_inst_fraction": s["detailed_warp_instruction_fraction"],
            "detailed_warp_instructions": s["detailed_warp_instructions"],
            "total_warp_instructions": s["total_warp_instructions"],
            "cpu_full": c1 - c0, "cpu_sampled": c2 - c1,
            "outputs_match": full["outputs_match"] and samp["outputs_match"],
            "full_energy_j": full["energy"]["total_j"],
            "sampled_energy_j": samp["energy"]["total_j"]}


def _pct(v, nd=2):
    return "n/a" if v is None else f"{v:.{nd}f}%"


def percentile(values: list, q: float) -> float | None:
    """The ``q``-th percentile (0..100) by linear interpolation; None for no values."""
    if not values:
        return None
    v = sorted(values)
    k = (len(v) - 1) * q / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def summary(rows: list) -> dict:
    """Error distribution, coverage and reductions of ``rows`` (see module docstring)."""
    sampled = [r for r in rows if not r["exact"]]
    errs = [abs(r["error_pct"]) for r in sampled]
    est = [r for r in sampled if r["estimable"]]
    tot = sum(r["total_warp_instructions"] for r in rows)
    det = sum(r["detailed_warp_instructions"] for r in rows)
    return {"rows": len(rows), "rows_sampled": len(sampled),
            "rows_exact": len(rows) - len(sampled),
            "median_abs_error_pct": percentile(errs, 50),
            "p95_abs_error_pct": percentile(errs, 95),
            "max_abs_error_pct": max(errs) if errs else None,
            "coverage": (sum(1 for r in est if r["inside"]) / len(est)) if est else None,
            "coverage_n": len(est),
            "detailed_inst_reduction": tot / det if det else None,
            "detailed_inst_reduction_sampled_rows": (
                sum(r["total_warp_instructions"] for r in sampled)
                / max(sum(r["detailed_warp_instructions"] for r in sampled), 1)
                if sampled else None),
            "cpu_full": sum(r["cpu_full"] for r in rows),
            "cpu_sampled": sum(r["cpu_sampled"] for r in rows)}


def ratio_rows(rows: list) -> list:
    """Speed-up baseline/mechanism, full vs sampled, per workload that ran both."""
    base = {(r["workload"], r["size"]): r for r in rows if not r["mechanisms"]}
    out = []
    for r in rows:
        b = base.get((r["workload"], r["size"]))
        if not r["mechanisms"] or b is None:
            continue
        full = b["full_cycles"] / r["full_cycles"]
        samp = b["estimate"] / r["estimate"]
        out.append({"workload": r["workload"], "size": r["size"],
                    "mechanism": "+".join(r["mechanisms"]), "full_speedup": full,
                    "sampled_speedup": samp, "error_pct": 100.0 * (samp - full) / full,
                    "both_exact": b["exact"] and r["exact"]})
    return out


def format_markdown(rows: list, ratios: list, summ: dict) -> str:
    """The table, the speed-up comparison and the summary as Markdown."""
    md = ["| workload | size | mechanisms | units detailed | detailed warp inst | full cycles "
          "| sampled estimate | error | 95% interval | inside? | CPU full / sampled |",
          "|---|---|---|--:|--:|--:|--:|--:|---|---|--:|"]
    for r in rows:
        if r["exact"]:
            iv, inside = "exact (nothing skipped)", "exact"
        elif r["estimable"]:
            iv = f"[{r['low']:,.0f}, {r['high']:,.0f}] (+-{_pct(r['half_width_pct'])})"
            inside = "yes" if r["inside"] else "NO"
        else:
            iv, inside = "not estimable", "n/a"
        md.append(f"| {r['workload']} | {r['size']} | {'+'.join(r['mechanisms']) or 'baseline'} "
                  f"| {r['units_detailed']}/{r['units_total']} "
                  f"| {100 * r['detailed_inst_fraction']:.1f}% | {r['full_cycles']:,} "
                  f"| {r['estimate']:,.0f} | {r['error_pct']:+.2f}% | {iv} | {inside} "
                  f"| {r['cpu_full']:.1f} s / {r['cpu_sampled']:.1f} s |")
    if ratios:
        md += ["", "| workload | size | mechanism | speed-up full | speed-up sampled | error |",
               "|---|---|---|--:|--:|--:|"]
        for q in ratios:
            md.append(f"| {q['workload']} | {q['size']} | {q['mechanism']} "
                      f"| {q['full_speedup']:.4f} | {q['sampled_speedup']:.4f} "
                      f"| {q['error_pct']:+.2f}%{' (both exact)' if q['both_exact'] else ''} |")
    s = summ
    md += ["", f"Rows: {s['rows']} ({s['rows_sampled']} sampled, {s['rows_exact']} simulated "
               f"whole because no group had launches to skip).",
           f"Over the sampled rows: median |error| {_pct(s['median_abs_error_pct'])}, "
           f"95th percentile {_pct(s['p95_abs_error_pct'])}, max {_pct(s['max_abs_error_pct'])}; "
           f"coverage of the 95% interval "
           + ("n/a" if s["coverage"] is None else
              f"{100 * s['coverage']:.0f}% ({s['coverage_n']} estimable intervals)") + ".",
           "Detailed warp instructions: "
           + ("n/a" if s["detailed_inst_reduction"] is None else
              f"{s['detailed_inst_reduction']:.2f}x fewer over all rows")
           + ("" if s["detailed_inst_reduction_sampled_rows"] is None else
              f", {s['detailed_inst_reduction_sampled_rows']:.2f}x over the sampled rows")
           + f"; CPU {s['cpu_full']:.0f} s full vs {s['cpu_sampled']:.0f} s sampled "
             f"({s['cpu_full'] / max(s['cpu_sampled'], 1e-9):.2f}x; the sampled run includes "
             f"its functional pre-pass)."]
    if ratios:
        errs = [abs(q["error_pct"]) for q in ratios if not q["both_exact"]]
        md.append(f"Speed-up ratios: {len(ratios)} pairs, median |error| "
                  f"{_pct(percentile(errs, 50))}, max {_pct(max(errs) if errs else None)} "
                  f"(over pairs not both exact).")
    return "\n".join(md)


def run_table(workloads, size: str, seed: int, config: str, mechanisms: list,
              sample_seed: int, jobs: int = 1, level: str = "launch") -> tuple[list, list, dict]:
    """Rows (baseline, then each of ``mechanisms`` per workload), ratio rows, summary."""
    tasks = [(w, size, seed, config, m, sample_seed, level) for w in workloads
             for m in [()] + [(x,) for x in mechanisms]]
    if jobs > 1:
        from golden.workers import run_unordered   # the shared pool (Ctrl-C, orphan-safe)
        got: dict = {}
        run_unordered(one_pair, list(enumerate(tasks)), jobs, got.__setitem__)
        rows = [got[i] for i in range(len(tasks))]
    else:
        rows = [one_pair(*t) for t in tasks]
    return rows, ratio_rows(rows), summary(rows)


def add_arguments(v) -> None:
    """The ``--sampling`` options of ``simtlab validate``."""
    from golden.cli_args import SIZES, seed as seed_arg
    v.add_argument("--sampling", action="store_true",
                   help="run full and sampled timing of --only (default: multi-launch "
                        "workloads) on the current model; write <out>/sampling.md and .json")
    v.add_argument("--only", nargs="+", metavar="WORKLOAD", help="with --sampling: workloads")
    v.add_argument("--size", choices=SIZES, default=None,
                   help="with --sampling: input size (default small; with --archive: only "
                        "archived runs of this size)")
    v.add_argument("--mechanism", action="append", metavar="NAME",
                   help="with --sampling: also run each workload with NAME and compare the "
                        "speed-up baseline/NAME full vs sampled (repeatable)")
    v.add_argument("--sample-seed", type=seed_arg, default=0, metavar="S",
                   help="with --sampling: the sample's seed (default 0)")
    v.add_argument("--config", default=None,
                   help="with --sampling: GPU configuration (default pascal; with --archive: "
                        "only archived runs on this configuration)")
    v.add_argument("--sample-level", choices=("launch", "tb"), default=None,
                   help="with --sampling: 'launch' (default) samples launches; 'tb' samples "
                        "occupancy waves of thread blocks inside each launch (the default "
                        "with --archive, where mechanisms needing whole launches fall back "
                        "to 'launch' as in simtlab report --sample tb)")


def cmd_sampling(args) -> int:
    """``simtlab validate --sampling``: the table, printed and written to <out>."""
    import json
    from pathlib import Path

    from golden.errors import SimtlabError
    from golden.fileio import write_output
    from golden.workloads import registry
    args.size = args.size or "small"
    args.config = args.config or "pascal"
    args.sample_level = args.sample_level or "launch"
    names = args.only or list(DEFAULT_TB if getattr(args, "sample_level", "launch") == "tb"
                              else DEFAULT_PAPER if args.size == "paper" else DEFAULT_SMALL)
    for n in names:
        registry.get(n)     # unknown names: one-line error before any simulation
    mechs = list(args.mechanism or ())
    if not args.sampling:
        raise SimtlabError("cmd_sampling needs --sampling")
    t0 = time.perf_counter()
    level = getattr(args, "sample_level", "launch")
    rows, ratios, summ = run_table(names, args.size, 0, args.config, mechs, args.sample_seed,
                                   jobs=args.jobs, level=level)
    text = (f"# Sampled vs full timing ({args.size}, {args.config}, {level} sampling, "
            f"sample seed {args.sample_seed})\n\n" + format_markdown(rows, ratios, summ)
            + f"\n\n_{time.perf_counter() - t0:.0f} s wall._\n")
    out = Path(args.out)
    write_output(out / "sampling.md", text)
    write_output(out / "sampling.json", json.dumps(
        {"rows": rows, "ratios": ratios, "summary": summ}, indent=1))
    print(text)
    return 0 if all(r["outputs_match"] for r in rows) else 1
