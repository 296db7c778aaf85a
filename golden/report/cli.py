"""``simtlab report NAME... | all``: run reports' simulations in parallel, write Markdown + JSON.

Writes ``<out>/<name>.md`` and ``<out>/<name>.json`` per report (atomically, only after
every simulation finished) and ``<out>/speedups.md`` concatenating them. Each simulation's
result is also kept in the result cache (golden/report/cache.py) the moment it finishes,
so a re-run, or an interrupted run started again, simulates only what is missing.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from golden.cli import _atomic_write as _write
from golden.cli_args import jobs as jobs_arg, output_dir, seed as seed_arg
from golden.errors import SimtlabError
from golden.report import REPORTS, available_reports
from golden.report.cache import DEFAULT_ROOT, ResultCache
from golden.report.runner import ReportOptions, run_jobs


def add_subcommand(sub) -> None:
    r = sub.add_parser("report", help="run reports (baseline, darsie, gscalar or all) -> build/results")
    r.add_argument("names", nargs="+", metavar="REPORT", help=f"one of {', '.join(REPORTS)} or all")
    r.add_argument("--size", default="paper", choices=("small", "default", "paper"),
                   help="workload input size (default: paper = at least two full waves of "
                        "TBs on each reported config; small: a quick run for tests)")
    r.add_argument("--full", action="store_true", help="same as --size default (long)")
    r.add_argument("--all-configs", action="store_true",
                   help="every workload, not only each seed's stand-ins: baseline on every "
                        "config, darsie on all workloads")
    r.add_argument("--seed", type=seed_arg, default=0)
    r.add_argument("-j", "--jobs", type=jobs_arg, default=os.cpu_count() or 1)
    r.add_argument("--out", type=output_dir, default="build/results")
    r.add_argument("--no-cache", action="store_true",
                   help="simulate everything again instead of reusing results of the same "
                        "model source from the result cache")
    r.add_argument("--cache-dir", default=str(DEFAULT_ROOT),
                   help="result cache root (default: %(default)s); one directory per model "
                        "source fingerprint")
    r.set_defaults(fn=cmd_report)


def cmd_report(args) -> int:
    avail = available_reports()
    names = list(avail) if "all" in args.names else args.names
    for n in names:
        if n not in REPORTS:
            raise SimtlabError(f"unknown report '{n}'; known reports: {', '.join(REPORTS)}, all")
        if n not in avail:
            raise SimtlabError(f"report '{n}' is not available in this checkout")
    opts = ReportOptions(size="default" if args.full else args.size, seed=args.seed,
                         jobs=args.jobs, all_configs=args.all_configs or args.full)
    all_jobs = [j for n in names for j in avail[n].jobs(opts)]
    t0 = time.perf_counter()
    n_unique = len({j.key for j in all_jobs})
    print(f"simtlab report {' '.join(names)}: {n_unique} simulations, size {opts.size}, "
          f"{opts.jobs} worker(s)", file=sys.stderr)
    cache = None if args.no_cache else ResultCache(args.cache_dir)
    results = run_jobs(all_jobs, workers=opts.jobs, cache=cache)
    wall = time.perf_counter() - t0
    out = Path(args.out)
    docs = []
    for n in names:
        md, data = avail[n].render(results, opts)
        data = {"report": n, "wall_seconds_all_reports": wall, **data}
        _write(out / f"{n}.md", md)
        _write(out / f"{n}.json", json.dumps(data, indent=1, default=str))
        docs.append(md)
        print(md)
    fresh = [r for r in results.values() if "timing" in r and not r.get("from_cache")]
    cpu = sum(r.get("cpu_seconds", r.get("wall_seconds", 0.0)) for r in fresh)
    winst = sum(r["timing"]["instructions_issued"] for r in fresh)
    footer = (f"\n---\n{n_unique} simulations ({n_unique - len(fresh)} reused from the result "
              f"cache) in {wall:.0f} s wall on {opts.jobs} worker(s); the {len(fresh)} simulated "
              f"issued {winst:,} warp instructions, {winst / max(cpu, 1e-9):,.0f} warp-inst per "
              f"CPU-second.\n")
    _write(out / "speedups.md", "\n".join(docs) + footer)
    print(footer)
    print(f"wrote {out}/speedups.md and {', '.join(f'{n}.md/.json' for n in names)}", file=sys.stderr)
    errors = [r for r in results.values() if "error" in r]
    bad = [r for r in results.values() if "error" not in r and not r["outputs_match"]]
    for r in errors:
        print(f"simtlab: error in {r['key']}: {r['error']}", file=sys.stderr)
    for r in bad:
        print(f"simtlab: outputs differ from the reference in {r['key']}", file=sys.stderr)
    return 1 if errors or bad else 0
