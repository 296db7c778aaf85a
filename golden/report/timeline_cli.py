"""``simtlab timeline``: the over-time view of a timing run (issue 72 item 2).

    simtlab timeline WORKLOAD [--mechanism M ...] [--config C] [--size S] [--seed N]
                     [--every N] --html FILE [--json FILE]

Runs the workload with :class:`golden.timing.timeline.Timeline` attached, prints a short
summary and writes the interactive page (:mod:`golden.report.timeline_render`) and, with
``--json``, the samples. See docs/timeline.md.
"""

from __future__ import annotations

import argparse
import json

from golden.cli_args import add_timing_run_arguments, output_file
from golden.fileio import write_output



def _every(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--every must be an integer, not {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"--every must be >= 1 cycle, not {v}")
    return v


def add_subcommand(sub) -> None:
    """Register ``timeline`` on the ``simtlab`` subcommand parser ``sub``."""
    p = sub.add_parser("timeline", help="over-time view of a timing run: per-SM IPC, warps and "
                                        "stall mix, DRAM bandwidth and row hits per channel, "
                                        "mechanism activity, per launch (interactive HTML)")
    add_timing_run_arguments(p)
    p.add_argument("--every", type=_every, default=1000, metavar="N",
                   help="cycles per sampled interval (default 1000)")
    p.add_argument("--html", type=output_file, required=True, metavar="FILE",
                   help="write the interactive page (self-contained, works offline)")
    p.add_argument("--json", type=output_file, metavar="FILE", help="write the samples as JSON")
    p.set_defaults(fn=cmd_timeline)


def cmd_timeline(args) -> int:
    from golden.configs import load_config
    from golden.mechanisms.registry import arguments
    from golden.report.timeline import timeline_workload
    from golden.report.timeline_render import html_page
    from golden.workloads import registry

    registry.get(args.workload)            # unknown names fail before any run
    mechs = tuple(args.mechanism or ())
    for m in mechs:
        arguments(m)
    load_config(args.config)
    doc = timeline_workload(args.workload, size=args.size, seed=args.seed, config=args.config,
                            mechanisms=mechs, every=args.every)
    write_output(args.html, html_page(doc))
    if args.json:
        write_output(args.json, json.dumps(doc, indent=1))
    print(f"{doc['workload']} on {doc['config']} ({', '.join(mechs) or 'baseline'}): "
          f"{doc['cycles']:,} cycles, {len(doc['launches'])} launch(es), "
          f"{len(doc['sm_samples'])} SM samples, {len(doc['channel_samples'])} channel samples "
          f"every {doc['every']:,} cycles -> {args.html}"
          + (f", {args.json}" if args.json else ""))
    if not doc["outputs_match"]:
        print("simtlab: outputs differ from numpy")
        return 1
    return 0
