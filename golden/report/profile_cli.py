"""``simtlab profile``: the per-PC profile of a timing run, or two runs side by side (issue 72).

    simtlab profile WORKLOAD [--mechanism M ...] [--config C] [--size S] [--seed N]
                    [--diff baseline|MECH] [--top N] [--html FILE] [--json FILE]
                    [--no-source-lines]

Without ``--diff``: the annotated listing of the run (text on the terminal, ``--html`` a
self-contained page, ``--json`` every row). With ``--diff baseline``: run A is the
baseline (no mechanism), run B the run with the ``--mechanism`` s; ``--diff MECH``: run A
attaches MECH instead. The diff lists the instructions sorted by the scheduler-cycles B
gained or lost at each. See docs/profile.md.
"""

from __future__ import annotations

import json
from pathlib import Path

from golden.cli_args import add_timing_run_arguments, output_file
from golden.errors import SimtlabError
from golden.fileio import write_output



def add_subcommand(sub) -> None:
    """Register ``profile`` on the ``simtlab`` subcommand parser ``sub``."""
    p = sub.add_parser("profile", help="per-PC profile of a timing run: cycles, stalls, memory "
                                       "traffic and mechanism actions per PTX instruction and "
                                       "CUDA line (--diff: two runs side by side)")
    add_timing_run_arguments(p)
    p.add_argument("--diff", metavar="baseline|MECH",
                   help="also run the baseline (or mechanism MECH) and list the instructions "
                        "by cycles gained or lost")
    p.add_argument("--top", type=int, default=40, metavar="N",
                   help="with --diff: text shows the N largest changes (0: all; default 40)")
    p.add_argument("--html", type=output_file, metavar="FILE", help="write the HTML view")
    p.add_argument("--json", type=output_file, metavar="FILE", help="write the rows as JSON")
    p.add_argument("--no-source-lines", action="store_true",
                   help="do not map instructions to CUDA lines (skips the nvcc -lineinfo build)")
    p.set_defaults(fn=cmd_profile)


def _check_mechanisms(names) -> None:
    """An unknown mechanism or a bad argument of one fails before any run (ConfigError)."""
    from golden.mechanisms.registry import arguments
    for text in names:
        arguments(text)


def cmd_profile(args) -> int:
    from golden.report.profile import diff_profiles, profile_workload
    from golden.report.profile_render import html_diff, html_listing, text_diff, text_listing
    from golden.workloads import registry

    registry.get(args.workload)   # an unknown workload fails before any run
    if args.top < 0:
        raise SimtlabError(f"--top must be >= 0, got {args.top}")
    mechs = tuple(args.mechanism or ())
    ref = () if args.diff in (None, "baseline") else (args.diff,)
    _check_mechanisms(mechs + ref)
    from golden.configs import load_config
    load_config(args.config)
    kw = dict(size=args.size, seed=args.seed, config=args.config,
              source_lines=not args.no_source_lines)
    b = profile_workload(args.workload, mechanisms=mechs, **kw)
    ok = b.outputs_match
    if args.diff is None:
        print(text_listing(b))
        page = html_listing(b) if args.html else None
        data = b.to_dict()
    else:
        a = profile_workload(args.workload, mechanisms=ref, **kw)
        ok = ok and a.outputs_match
        diffs = diff_profiles(a, b)
        print(text_diff(a, b, diffs, args.top or None))
        page = html_diff(a, b, diffs) if args.html else None
        data = {"a": a.to_dict(), "b": b.to_dict(),
                "diff": [{"kernel": d.kernel, "pc": d.pc, "gained": d.gained,
                          "gained_by_reason": d.gained_by_reason()} for d in diffs]}
    if page is not None:
        write_output(Path(args.html), page)
    if args.json:
        write_output(Path(args.json), json.dumps(data, indent=1))
    return 0 if ok else 1
