"""``make formal``: run the formal jobs -> build/formal/formal.md and formal.json.

Usage: ``python -m tb.formal.run [--only JOB ...] [--out DIR] [-j N] [--list] [--paper]
[--summary | --update-doc docs/formal.md]``.
Exit status 1 when an assertion fails or is not proved, or a cover goal is not reached.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tb.formal.flow import ok, run_jobs
from tb.formal.report import write_report
from tb.formal.jobs import all_jobs
from tb.formal.summary import stated_rows, summarise, summary_markdown, unmet, update_doc

REPO = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tb.formal.run", description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", metavar="JOB", help="run only these jobs")
    ap.add_argument("--out", default=str(REPO / "build" / "formal"), help="output folder")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="solver processes at a time")
    ap.add_argument("--list", action="store_true", help="list the jobs and exit")
    ap.add_argument("--paper", action="store_true",
                    help="also the paper-size jobs (minutes; make formal runs them)")
    ap.add_argument("--summary", action="store_true",
                    help="print the per-structure table of invariants and proof kinds, "
                         "elaborated from the code (no solver), and exit (1 if a key "
                         "structure or primitive has fewer than 3)")
    ap.add_argument("--update-doc", metavar="PAGE",
                    help="as --summary, and rewrite the generated block of PAGE "
                         "(docs/formal.md)")
    args = ap.parse_args(argv)
    jobs = all_jobs(paper=args.paper or bool(args.only))
    if args.list:
        for job in jobs:
            print(f"{job.name:24} {job.structure:22} {job.size:32} {job.mode} {job.depth}"
                  + ("  (paper size, --paper)" if job.paper else ""))
        return 0
    if args.summary or args.update_doc:
        table = summary_markdown(summarise(stated_rows(jobs), jobs))
        print(table, end="")
        if args.update_doc and not update_doc(Path(args.update_doc), table):
            print(f"error: {args.update_doc} has no generated formal-summary block",
                  file=sys.stderr)
            return 2
        return 1 if unmet(summarise(stated_rows(jobs), jobs)) else 0
    if args.only:
        names = {j.name for j in jobs}
        unknown = [n for n in args.only if n not in names]
        if unknown:
            print(f"error: unknown formal job(s) {', '.join(unknown)}; "
                  f"choose from {', '.join(sorted(names))}", file=sys.stderr)
            return 2
        jobs = [j for j in jobs if j.name in args.only]
    if args.jobs < 1:
        print("error: -j must be at least 1", file=sys.stderr)
        return 2
    start = time.monotonic()
    rows = run_jobs(jobs, Path(args.out), workers=args.jobs)
    wall = time.monotonic() - start
    path = write_report(rows, Path(args.out), wall, jobs)
    bad = [r for r in rows if not ok(r)]
    for r in bad:
        print(f"formal: {r.structure} ({r.job}) {r.kind} '{r.prop}': {r.result}")
    print(f"formal: {len(rows) - len(bad)}/{len(rows)} rows ok in {wall:.0f} s -> {path}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
