"""``simtlab validate --sampling --archive [DIR]``: sampled timing checked against the
archive of full runs (issue 68 item 2).

The ground truth is every archived :class:`~golden.jobs.job.TimingJob` result in ``DIR``
(default ``results/runs``) that is **valid on today's source**
(:func:`golden.jobs.cache.entry_valid`: every file its job depends on unchanged), so the
full figure is what today's model would give; stale entries are counted, never compared.
For each one the matching sampled job (same workload, config, size, seed, mechanisms and
overrides) is chosen by the reports' own rule, :func:`golden.jobs.sampled.sample_jobs`:
sampled at the requested level (``tb`` by default) where the mechanisms allow it, at
``launch`` level where they need whole launches, and run in full (listed with the reason,
never counted as an error) where they may not be sampled at all. The sampled jobs run
through the normal result cache and executor (:func:`golden.jobs.executors.run_jobs`), so
they are stored as they finish, an interrupted campaign resumes, concurrent processes
share the work through claims and ``-j N`` runs N at once.

A row (:func:`compare`) gives the archived full cycles, the sampled estimate, its signed
error in %, the stated 95% interval and whether the full figure lies inside, the detailed
and total warp instructions (their quotient is the reduction of simulated detail), the
CPU seconds of both runs, the total energy of both with the energy interval, and whether
the sampled run's outputs are bit-identical to the archived run's (output digests).

A pair (:func:`pair_rows`) is a mechanism run and its baseline (same workload, config,
size, seed and overrides, no mechanism), both in the selection: the speed-up
``baseline cycles / mechanism cycles`` full against sampled, with the interval the
reports compute (:class:`golden.report.present.estimates.Estimate`: first-order delta
method on independent estimates).

The summary (:func:`summary`) counts errors over the rows where sampling skipped
something (a row simulated whole is exact by construction: its error must be 0 and is
checked, not averaged in) and sets them beside the issue's targets (:data:`TARGETS`),
which are printed as targets, never as measurements.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

from golden.errors import SimtlabError
from golden.jobs.job import TimingJob
from golden.validate.sampling_table import percentile

__all__ = ["TARGETS", "ArchivedRun", "archived_runs", "baseline_of", "compare",
           "format_markdown", "in_full_row", "pair_rows", "select", "summary", "target_lines",
           "cmd_archive"]

#: issue 68's targets for ``simtlab validate --sampling`` (targets, not measurements):
#: median and 95th-percentile |error| of cycles and speed-ups in %, coverage of the stated
#: 95% interval, and the reduction of detailed warp instructions on ``paper`` runs
TARGETS = {"median_abs_error_pct": 1.0, "p95_abs_error_pct": 3.0, "coverage": 0.90,
           "paper_detailed_inst_reduction": 10.0}


@dataclass(frozen=True)
class ArchivedRun:
    """One archived full timing result valid today: its job, the stored record (without
    the dependency map) and the file it was read from."""

    job: TimingJob
    record: dict
    path: Path

    @property
    def cpu_seconds(self) -> float | None:
        """The archived run's CPU seconds; None when not stored or 0 (a result derived from
        a passive observer run, :mod:`golden.jobs.passive`, records no simulation time)."""
        c = self.record.get("cpu_seconds")
        return float(c) if isinstance(c, (int, float)) and c > 0 else None


def archived_runs(directory, finder=None) -> tuple[list[ArchivedRun], dict]:
    """The valid archived timing results of ``directory`` and counts of what it holds
    (``entries``, ``invalid``, ``stale``, ``valid``, ``valid_timing``, ``valid_timing_bad``:
    valid timing results with an error or outputs that differ from numpy, not usable as
    ground truth). A one-line :class:`SimtlabError` for a directory that is missing, a
    file, or holds no result entries."""
    from golden.jobs.cache import checked_entry, entries_of, entry_valid
    from golden.jobs.entries import CHECKSUM
    from golden.jobs.deps import DependencyFinder
    from golden.jobs.kinds import job_of

    d = Path(directory)
    if not d.exists():
        raise SimtlabError(f"--archive {d}: no such directory")
    if not d.is_dir():
        raise SimtlabError(f"--archive {d} is a file, not a directory of archived results")
    paths = entries_of(d)
    if not paths:
        raise SimtlabError(f"--archive {d}: no result entries (<24 hex digits>.json) in it")
    finder = finder or DependencyFinder()
    counts = {"dir": str(d), "entries": len(paths), "invalid": 0, "stale": 0, "valid": 0,
              "valid_timing": 0, "valid_timing_bad": 0}
    runs = []
    for p in paths:
        data, problem = checked_entry(p)
        if data is None:
            counts["invalid"] += 1
            continue
        if not entry_valid(data, finder):
            counts["stale"] += 1
            continue
        counts["valid"] += 1
        job = job_of(data)
        if type(job) is not TimingJob:
            continue
        counts["valid_timing"] += 1
        if "error" in data or not data.get("outputs_match"):
            counts["valid_timing_bad"] += 1
            continue
        rec = {k: v for k, v in data.items() if k not in ("deps", CHECKSUM)}
        runs.append(ArchivedRun(job, rec, p))
    return runs, counts


def baseline_of(job: TimingJob) -> TimingJob:
    """The baseline a mechanism run is compared with: the same job without mechanisms."""
    return TimingJob(job.workload, job.config, job.size, job.seed, (), tuple(job.overrides))


def select(runs: list, only=None, size=None, config=None, limit=None) -> list:
    """``runs`` filtered by workload names ``only``, ``size`` and ``config`` (None: any),
    cheapest first by archived CPU seconds (unknown last, then by key); ``limit``: the
    first ``limit`` of them plus the baselines (from ``runs``) of the mechanism runs among
    them, so that their speed-ups can be compared."""
    want = {w.upper() for w in only} if only else None
    got = [r for r in runs
           if (want is None or r.job.workload.upper() in want)
           and (size is None or r.job.size == size)
           and (config is None or r.job.config == config)]
    got.sort(key=lambda r: (r.cpu_seconds is None, r.cpu_seconds or 0.0, r.job.key))
    if limit is None:
        return got
    chosen = got[:limit]
    keys = {r.job.key for r in chosen}
    by_key = {r.job.key: r for r in runs}
    for r in list(chosen):
        b = baseline_of(r.job).key
        if r.job.mechanisms and b in by_key and b not in keys:
            chosen.append(by_key[b])
            keys.add(b)
    return chosen


def _pct_err(est: float, full: float) -> float:
    return 100.0 * (est - full) / full if full else math.nan


def _ident(run: ArchivedRun) -> dict:
    j = run.job
    return {"key": j.key, "workload": j.workload, "config": j.config, "size": j.size,
            "seed": j.seed, "mechanisms": list(j.mechanisms),
            "overrides": [list(o) for o in j.overrides]}


def compare(run: ArchivedRun, sampled: dict, level: str, note: str | None = None) -> dict:
    """One row: archived full ``run`` against its ``sampled`` record, sampled at
    ``level`` (``tb`` or ``launch``; ``note``: why not at the requested level)."""
    full = run.record
    s = sampled["sampling"]
    iv = s["intervals"]["cycles"]
    fc = full["cycles"]
    est = float(iv["estimate"])
    inside = (iv["low"] <= fc <= iv["high"]) if iv["estimable"] and not iv["exact"] else None
    tot, det = s["total_warp_instructions"], s["detailed_warp_instructions"]
    cpu_f, cpu_s = run.cpu_seconds, sampled.get("cpu_seconds")
    row = {**_ident(run), "level": level, "level_note": note,
           "full_cycles": fc, "estimate": est, "error_pct": _pct_err(est, fc),
           "low": iv["low"], "high": iv["high"], "half_width_pct": iv["half_width_pct"],
           "std_error": iv.get("std_error"), "df": iv.get("df"), "exact": bool(iv["exact"]),
           "estimable": bool(iv["estimable"]), "inside": inside,
           "interval_note": iv.get("note"),
           "units_detailed": s["units_detailed"], "units_total": s["units_total"],
           "total_warp_instructions": tot, "detailed_warp_instructions": det,
           "detail_reduction": tot / det if det else None,
           "cpu_full": cpu_f, "cpu_sampled": cpu_s,
           "cpu_reduction": cpu_f / cpu_s if cpu_f and cpu_s else None,
           "outputs_match": bool(sampled.get("outputs_match")),
           "outputs_identical": (sampled.get("output_digest") == full.get("output_digest")
                                 if full.get("output_digest") else None)}
    row.update(_energy(full, sampled))
    return row


def _energy(full: dict, sampled: dict) -> dict:
    """The total-energy columns of a row: archived, sampled estimate, error, inside the
    sampled run's energy interval (None when the record carries no estimate)."""
    fe = (full.get("energy") or {}).get("total_j")
    ive = sampled["sampling"]["intervals"].get("energy_total_j")
    if not isinstance(fe, (int, float)) or not isinstance(ive, dict):
        return {"full_energy_j": fe, "sampled_energy_j": None, "energy_error_pct": None,
                "energy_inside": None}
    e = float(ive["estimate"])
    inside = (ive["low"] <= fe <= ive["high"]) if ive["estimable"] and not ive["exact"] \
        else None
    return {"full_energy_j": fe, "sampled_energy_j": e, "energy_error_pct": _pct_err(e, fe),
            "energy_inside": inside}


def in_full_row(run: ArchivedRun, reason: str) -> dict:
    """A run sampling refuses: run in full (the archived result answers it), listed with
    ``reason``, never counted as an error."""
    t = run.record.get("timing") or {}
    return {**_ident(run), "level": "full", "reason": reason, "full_cycles": run.record["cycles"],
            "warp_instructions": t.get("instructions_issued"), "cpu_full": run.cpu_seconds}


def _cycles_estimate(row: dict):
    """The sampled cycles of a row as the reports see them (an Estimate carrying its
    interval, or the plain full figure of a run in full / simulated whole)."""
    from golden.report.present.estimates import with_estimates
    if row["level"] == "full":
        return row["full_cycles"]
    # the unrounded estimate (a record's ``cycles`` is rounded to an integer), with the
    # record's interval, as the reports build it
    return with_estimates({"r": {**row["_sampled"], "cycles": row["estimate"]}})["r"]["cycles"]


def pair_rows(rows: list, in_full: list) -> tuple[list, list]:
    """``(pairs, unpaired)``: each mechanism run of ``rows`` / ``in_full`` with its
    baseline, the full speed-up ``baseline / mechanism`` cycles against the sampled one
    (delta-method interval, :mod:`golden.report.present.estimates`); ``unpaired``: keys of
    mechanism runs whose baseline is not in the selection (or its sampled run failed)."""
    from golden.report.present.estimates import Estimate
    every = {r["key"]: r for r in (*rows, *in_full)}
    pairs, unpaired = [], []
    for m in every.values():
        if not m["mechanisms"]:
            continue
        b = every.get(baseline_of(_job_of_row(m)).key)
        if b is None:
            unpaired.append(m["key"])
            continue
        full = b["full_cycles"] / m["full_cycles"]
        samp = _cycles_estimate(b) / _cycles_estimate(m)
        exact = not isinstance(samp, Estimate)
        est = not exact and samp.se is not None
        pairs.append({"key": m["key"], "baseline": b["key"], "workload": m["workload"],
                      "config": m["config"], "size": m["size"],
                      "mechanism": "+".join(m["mechanisms"]),
                      "levels": f"{b['level']}/{m['level']}",
                      "full_speedup": full, "sampled_speedup": float(samp),
                      "error_pct": _pct_err(float(samp), full),
                      "low": samp.low if est else None, "high": samp.high if est else None,
                      "exact": exact, "estimable": est,
                      "inside": (samp.low <= full <= samp.high) if est else None})
    return pairs, unpaired


def _job_of_row(row: dict) -> TimingJob:
    return TimingJob(row["workload"], row["config"], row["size"], row["seed"],
                     tuple(row["mechanisms"]), tuple(tuple(o) for o in row["overrides"]))


def _distribution(items: list) -> dict:
    """Error distribution and coverage of rows or pairs that were not exact."""
    errs = [abs(r["error_pct"]) for r in items]
    est = [r for r in items if r["estimable"]]
    return {"n": len(items), "median_abs_error_pct": percentile(errs, 50),
            "p95_abs_error_pct": percentile(errs, 95),
            "max_abs_error_pct": max(errs) if errs else None,
            "coverage": (sum(1 for r in est if r["inside"]) / len(est)) if est else None,
            "coverage_n": len(est), "not_estimable": len(items) - len(est)}


def summary(rows: list, pairs: list, in_full: list) -> dict:
    """The error distribution of cycles (over rows that skipped something) and of the
    speed-ups (pairs not both exact), coverage, the exact rows' check, the reduction of
    detailed warp instructions (all rows; ``paper`` rows with runs in full counted whole)
    and CPU seconds (rows whose archived run recorded them)."""
    sampled = [r for r in rows if not r["exact"]]
    exact = [r for r in rows if r["exact"]]
    paper = [r for r in rows if r["size"] == "paper"]
    paper_full = [r for r in in_full if r["size"] == "paper" and r["warp_instructions"]]
    p_tot = sum(r["total_warp_instructions"] for r in paper) + \
        sum(r["warp_instructions"] for r in paper_full)
    p_det = sum(r["detailed_warp_instructions"] for r in paper) + \
        sum(r["warp_instructions"] for r in paper_full)
    tot = sum(r["total_warp_instructions"] for r in rows)
    det = sum(r["detailed_warp_instructions"] for r in rows)
    timed = [r for r in rows if r["cpu_full"] and r["cpu_sampled"]]
    energy = [r for r in sampled if r["energy_error_pct"] is not None]
    return {"rows": len(rows), "in_full": len(in_full), "exact_rows": len(exact),
            "exact_rows_differing": sum(1 for r in exact if r["error_pct"] != 0),
            "cycles": _distribution(sampled),
            "cycles_by_level": {lv: _distribution([r for r in sampled if r["level"] == lv])
                                for lv in sorted({r["level"] for r in sampled})},
            "speedups": _distribution([q for q in pairs if not q["exact"]]),
            "pairs": len(pairs), "pairs_exact": sum(1 for q in pairs if q["exact"]),
            "energy": {"n": len(energy),
                       "median_abs_error_pct": percentile(
                           [abs(r["energy_error_pct"]) for r in energy], 50),
                       "max_abs_error_pct": max((abs(r["energy_error_pct"]) for r in energy),
                                                default=None)},
            "detailed_inst_reduction": tot / det if det else None,
            "paper_rows": len(paper) + len(paper_full),
            "paper_detailed_inst_reduction": p_tot / p_det if p_det else None,
            "cpu_full": sum(r["cpu_full"] for r in timed),
            "cpu_sampled": sum(r["cpu_sampled"] for r in timed), "cpu_rows": len(timed),
            "outputs_identical": all(r["outputs_identical"] is not False for r in rows),
            "outputs_match": all(r["outputs_match"] for r in rows)}


def _p(v, nd=2) -> str:
    return "n/a" if v is None else f"{v:.{nd}f}%"


def _cov(d: dict) -> str:
    return ("n/a" if d["coverage"] is None else
            f"{100 * d['coverage']:.0f}% ({d['coverage_n']} intervals"
            + (f"; {d['not_estimable']} not estimable" if d["not_estimable"] else "") + ")")


def _meets(value, target, at_most: bool) -> str:
    if value is None:
        return "n/a"
    return "met" if (value <= target if at_most else value >= target) else "NOT met"


def target_lines(s: dict) -> list[str]:
    """The summary against :data:`TARGETS`: target, measured value, met or not."""
    t = TARGETS
    rows = []
    for label, x in (("cycles", s["cycles"]), ("speed-up", s["speedups"])):
        rows += [(f"{label} median abs error", f"<= {t['median_abs_error_pct']}%",
                  _p(x["median_abs_error_pct"]),
                  _meets(x["median_abs_error_pct"], t["median_abs_error_pct"], True)),
                 (f"{label} 95th percentile abs error", f"<= {t['p95_abs_error_pct']}%",
                  _p(x["p95_abs_error_pct"]),
                  _meets(x["p95_abs_error_pct"], t["p95_abs_error_pct"], True)),
                 (f"{label} coverage of the 95% interval", f">= {100 * t['coverage']:.0f}%",
                  _cov(x), _meets(x["coverage"], t["coverage"], False))]
    rows.append(("fewer detailed warp instructions, paper runs",
                 f">= {t['paper_detailed_inst_reduction']:.0f}x",
                 "n/a" if s["paper_detailed_inst_reduction"] is None
                 else f"{s['paper_detailed_inst_reduction']:.2f}x ({s['paper_rows']} runs)",
                 _meets(s["paper_detailed_inst_reduction"], t["paper_detailed_inst_reduction"],
                        False)))
    out = ["| quantity | issue 68 target | measured | |", "|---|--:|--:|---|"]
    out += [f"| {a} | {b} | {m} | {ok} |" for a, b, m, ok in rows]
    return out


def _iv(r) -> tuple[str, str]:
    if r["exact"]:
        return "exact (nothing skipped)", "exact"
    if not r["estimable"]:
        return "not estimable", "n/a"
    return (f"{r['low']:,.0f} to {r['high']:,.0f}",
            "yes" if r["inside"] else "NO")


def format_markdown(head: dict, rows: list, in_full: list, pairs: list, unpaired: list,
                    failed: list, missing: list, s: dict) -> str:
    """The committed table: header, summary against the targets, rows, speed-up pairs,
    runs in full with their reasons, failed and missing runs."""
    c = head["counts"]
    md = [f"# Sampled timing against the archive of full runs ({head['level']} sampling, "
          f"sample seed {head['sample_seed']})", "",
          f"Archive `{c['dir']}`: {c['entries']} entries, {c['valid']} valid on today's source "
          f"({c['stale']} stale, {c['invalid']} invalid), of them {c['valid_timing']} timing "
          f"results" + (f" ({c['valid_timing_bad']} with an error or wrong outputs, not used)"
                        if c["valid_timing_bad"] else "")
          + f"; {head['selected']} selected{head['filters']}.", "",
          f"Rows compared: {s['rows']} ({s['cycles']['n']} where sampling skipped something, "
          f"{s['exact_rows']} simulated whole: exact, of which {s['exact_rows_differing']} "
          f"differ from the archived figure); {s['in_full']} run in full because sampling "
          f"refuses their mechanisms; {len(failed)} failed; {len(missing)} not run yet.", "",
          "Errors are signed (sampled - full) / full. Summary over the rows and speed-up pairs "
          "where sampling skipped something; targets are issue 68's, measured values are "
          "this table's.", ""]
    md += target_lines(s)
    by_level = "; ".join(f"{lv} sampling: {d['n']} runs, median |error| "
                         f"{_p(d['median_abs_error_pct'])}, coverage {_cov(d)}"
                         for lv, d in s["cycles_by_level"].items())
    md += ["", f"Cycles: max |error| {_p(s['cycles']['max_abs_error_pct'])}"
               + (f" ({by_level})" if by_level else "") + ". Speed-ups: "
               f"{s['pairs']} pairs ({s['pairs_exact']} exact), max |error| "
               f"{_p(s['speedups']['max_abs_error_pct'])}; {len(unpaired)} mechanism run(s) "
               f"without their baseline in the selection. Total energy: "
               f"{s['energy']['n']} sampled estimates, median |error| "
               f"{_p(s['energy']['median_abs_error_pct'])}, max "
               f"{_p(s['energy']['max_abs_error_pct'])}.",
           "Detailed warp instructions: "
           + ("n/a" if s["detailed_inst_reduction"] is None
              else f"{s['detailed_inst_reduction']:.2f}x fewer over all compared rows")
           + f". CPU seconds (archived full vs sampled, {s['cpu_rows']} rows that recorded "
             f"both; the sampled run includes its functional pre-pass): "
             f"{s['cpu_full']:,.0f} s vs {s['cpu_sampled']:,.0f} s"
           + (f" ({s['cpu_full'] / s['cpu_sampled']:.2f}x)" if s["cpu_sampled"] else "")
           + ". Outputs of every sampled run "
           + ("bit-identical to the archived run's." if s["outputs_identical"]
              else "NOT all identical to the archived run's (see rows)."), ""]
    if rows:
        md += ["## Cycles", "",
               "| run | level | units detailed | detailed warp inst | full cycles | sampled "
               "| error | 95% interval | inside? | CPU full / sampled | energy error |",
               "|---|---|--:|--:|--:|--:|--:|---|---|--:|--:|"]
        for r in rows:
            iv, inside = _iv(r)
            cpu = ("n/a" if r["cpu_full"] is None else f"{r['cpu_full']:.1f}") + \
                f" / {r['cpu_sampled']:.1f} s"
            red = "" if r["detail_reduction"] is None else f" ({r['detail_reduction']:.1f}x)"
            md.append(f"| {r['key']} | {r['level']} | {r['units_detailed']}/{r['units_total']} "
                      f"| {r['detailed_warp_instructions']:,}{red} | {r['full_cycles']:,} "
                      f"| {r['estimate']:,.0f} | {r['error_pct']:+.2f}% | {iv} | {inside} "
                      f"| {cpu} | {_p(r['energy_error_pct'])} |")
        notes = sorted({r["level_note"] for r in rows if r["level_note"]})
        if notes:
            md += ["", f"Sampled at launch level instead of {head['level']}: " + "; ".join(notes)]
        md.append("")
    if pairs:
        md += ["## Speed-ups (baseline cycles / mechanism cycles)", "",
               "| mechanism run | levels (base/mech) | full | sampled | error | 95% interval "
               "(delta method) | inside? |", "|---|---|--:|--:|--:|---|---|"]
        for q in pairs:
            iv, inside = _iv(q)
            if q["estimable"]:
                iv = f"{q['low']:.4f} to {q['high']:.4f}"
            md.append(f"| {q['key']} | {q['levels']} | {q['full_speedup']:.4f} "
                      f"| {q['sampled_speedup']:.4f} | {q['error_pct']:+.2f}% | {iv} "
                      f"| {inside} |")
        md.append("")
    if in_full:
        md += ["## Run in full (sampling refused; not counted)", "", "| run | reason |",
               "|---|---|"]
        md += [f"| {r['key']} | {r['reason']} |" for r in in_full]
        md.append("")
    if failed:
        md += ["## Failed", "", "| run | error |", "|---|---|"]
        md += [f"| {f['key']} | {f['error']} |" for f in failed]
        md.append("")
    if missing:
        md += ["## Not run yet", "", ", ".join(missing), ""]
    return "\n".join(md)


def add_arguments(v) -> None:
    """The ``--archive`` options of ``simtlab validate --sampling``."""
    from golden.cli_args import positive_count
    from golden.jobs.cache import DEFAULT_ARCHIVE, DEFAULT_ROOT
    v.add_argument("--archive", nargs="?", const=str(DEFAULT_ARCHIVE), metavar="DIR",
                   help="with --sampling: compare a sampled run of every archived timing "
                        f"result valid today in DIR (default {DEFAULT_ARCHIVE}) with it; write "
                        "<out>/sampling-archive.md and .json")
    v.add_argument("--limit", type=positive_count, metavar="N",
                   help="with --archive: only the N cheapest selected runs (by archived CPU "
                        "seconds), plus the baselines of their mechanism runs")
    v.add_argument("--cache-dir", default=str(DEFAULT_ROOT),
                   help=f"with --archive: result cache of the sampled runs (default "
                        f"{DEFAULT_ROOT})")
    v.add_argument("--cached-only", action="store_true",
                   help="with --archive: simulate nothing; compare what the cache holds")


def cmd_archive(args) -> int:
    """``simtlab validate --sampling --archive [DIR]``: the table, printed and written to
    ``<out>/sampling-archive.md`` and ``.json``. Exit 1 when a sampled run failed, its
    outputs differ (from numpy or from the archived run's) or a run simulated whole
    differs from its archived cycles; missing the targets is reported, not an error."""
    from golden.fileio import write_output
    from golden.jobs.cache import ResultCache
    from golden.jobs.executors import run_jobs
    from golden.jobs.sampled import sample_jobs
    from golden.workloads import registry

    if args.mechanism:
        raise SimtlabError("--mechanism does not apply to --archive (each archived run names "
                           "its own mechanisms)")
    for n in args.only or ():
        registry.get(n)     # unknown names: one-line error before the archive is read
    level = args.sample_level or "tb"
    t0 = time.perf_counter()
    runs, counts = archived_runs(args.archive)
    chosen = select(runs, args.only, args.size, args.config, args.limit)
    filters = "".join(f", {k} {v}" for k, v in (
        ("workloads", " ".join(args.only or ()) or None), ("size", args.size),
        ("config", args.config), ("limit", args.limit)) if v)
    filters = f" (filters:{filters[1:]})" if filters else ""
    if not chosen:
        raise SimtlabError(f"--archive {args.archive}: no valid archived timing result "
                           f"matches{filters or ''} ({counts['valid_timing']} valid timing "
                           f"results of {counts['entries']} entries)")
    by_key = {r.job.key: r for r in chosen}
    plan = sample_jobs([r.job for r in chosen], level, args.sample_seed)
    todo = [j for j in plan.jobs if j.key not in plan.in_full]
    cache = ResultCache(args.cache_dir, archive=[args.archive])
    results = run_jobs(todo, workers=args.jobs, cache=cache, cached_only=args.cached_only)
    rows, failed, missing = [], [], []
    for plain, key in plan.alias.items():
        r = results.get(key)
        if r is None:
            missing.append(plain)
        elif "error" in r:
            failed.append({"key": plain, "error": r["error"]})
        else:
            lv = plan.level_of(plain)
            row = compare(by_key[plain], r, lv, plan.at_launch.get(plain))
            row["_sampled"] = r
            rows.append(row)
    in_full = [in_full_row(by_key[k], why) for k, why in plan.in_full.items()]
    pairs, unpaired = pair_rows(rows, in_full)
    for row in rows:
        del row["_sampled"]
    s = summary(rows, pairs, in_full)
    head = {"level": level, "sample_seed": args.sample_seed, "counts": counts,
            "selected": len(chosen), "filters": filters}
    text = format_markdown(head, rows, in_full, pairs, unpaired, failed, missing, s) + \
        f"\n_{time.perf_counter() - t0:.0f} s wall._\n"
    out = Path(args.out)
    write_output(out / "sampling-archive.md", text)
    write_output(out / "sampling-archive.json", json.dumps(
        {**head, "targets": TARGETS, "summary": s, "rows": rows, "pairs": pairs,
         "unpaired": unpaired, "in_full": in_full, "failed": failed, "missing": missing},
        indent=1, default=str))
    print(text)
    return 1 if (failed or not s["outputs_match"] or not s["outputs_identical"]
                 or s["exact_rows_differing"]) else 0
