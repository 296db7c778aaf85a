"""``simtlab validate``: correlation table against GPGPU-Sim plus the microbenchmarks.

``simtlab validate --sampling``: sampled against full timing on the current model
(:mod:`golden.validate.sampling_table`); with ``--archive [DIR]`` against every archived
full timing result valid today (:mod:`golden.validate.sampling_archive`).

Writes ``<out>/validate.md`` and ``<out>/validate.json`` (atomically) and prints the
Markdown; with correlation cases also the scatter of ours against the reference
(:mod:`golden.validate.scatter`: ``figures/validate-correlation.svg|png`` and the
interactive ``validate-correlation.html``). Exit status 0 when every correlation row is
within the tolerance of ``golden/validate/reference.yaml`` and every simulated output
matched numpy, else 1.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from golden.cli_args import jobs as jobs_arg, output_dir
from golden.errors import SimtlabError

DEFAULT_MICRO_CONFIGS = ("pascal", "gtx480", "gtx285", "fx5800", "gtx280")


def add_subcommand(sub) -> None:
    v = sub.add_parser("validate", help="correlate the baseline with GPGPU-Sim cycle counts "
                                        "and run the timing microbenchmarks")
    v.add_argument("--cases", nargs="+", metavar="NAME",
                   help="only these correlation cases (names as in reference.yaml)")
    v.add_argument("--micro-config", action="append", metavar="CONFIG",
                   help="configs for the microbenchmarks (repeatable; default: "
                        f"{', '.join(DEFAULT_MICRO_CONFIGS)})")
    v.add_argument("--no-micro", action="store_true", help="skip the microbenchmarks")
    v.add_argument("--no-correlation", action="store_true", help="skip the correlation cases")
    v.add_argument("-j", "--jobs", type=jobs_arg, default=os.cpu_count() or 1)
    v.add_argument("--out", type=output_dir, default="build/results")
    from golden.validate.sampling_table import add_arguments as add_sampling_arguments
    add_sampling_arguments(v)   # --sampling --only --size --mechanism --sample-seed --config
    from golden.validate.sampling_archive import add_arguments as add_archive_arguments
    add_archive_arguments(v)    # --archive [DIR] --limit --cache-dir --cached-only
    v.set_defaults(fn=cmd_validate)


def cmd_validate(args) -> int:
    from golden.fileio import write_output
    from golden.configs import load_config
    from golden.jobs.executors import run_jobs
    from golden.validate import correlation, microbench

    archive_only = [o for o, v in (("--limit", args.limit), ("--cached-only", args.cached_only))
                    if v]
    if archive_only and args.archive is None:
        raise SimtlabError(f"{', '.join(archive_only)} needs --sampling --archive")
    if args.archive is not None:
        if not args.sampling:
            raise SimtlabError("--archive needs --sampling (simtlab validate --sampling "
                               "--archive [DIR])")
        from golden.validate.sampling_archive import cmd_archive
        return cmd_archive(args)
    if args.sampling:
        from golden.validate.sampling_table import cmd_sampling
        return cmd_sampling(args)
    t0 = time.perf_counter()
    tol, cases = correlation.load_cases()
    if args.cases:
        known = {c.name for c in cases}
        bad = [n for n in args.cases if n not in known]
        if bad:
            raise SimtlabError(f"unknown correlation case(s) {', '.join(bad)}; known: "
                               f"{', '.join(sorted(known))}")
        cases = [c for c in cases if c.name in args.cases]
    md = ["# Baseline validation", ""]
    out_json: dict = {"tolerance": tol}
    ok = True
    if not args.no_correlation and cases:
        results = run_jobs([c.job() for c in cases], workers=args.jobs)
        table = correlation.rows(tol, cases, results)
        out_json["correlation"] = table
        ok = all(r.get("within") and r.get("outputs_match") for r in table)
        md += ["## Correlation with GPGPU-Sim (same PTX, sizes and inputs)", "",
               "Reference numbers: `golden/validate/reference.yaml` (provenance there). "
               "Each case runs our config with the reference's settings as overrides.", "",
               correlation.format_rows(tol, table), ""]
    if not args.no_micro:
        md += ["## Microbenchmarks (measured by the timing model vs the configuration's "
               "formula)", "", "| config | microbenchmark | measured | expected | ratio | note |",
               "|---|---|--:|--:|--:|---|"]
        out_json["microbenchmarks"] = []
        for name in args.micro_config or DEFAULT_MICRO_CONFIGS:
            cfg = load_config(name)
            for m in microbench.all_measurements(cfg):
                md.append(f"| {cfg.name} | {m.name} | {m.measured:,.2f} {m.unit} | "
                          f"{m.expected:,.2f} | {m.ratio:.3f} | {m.note} |")
                out_json["microbenchmarks"].append(
                    {"config": cfg.name, "name": m.name, "measured": m.measured,
                     "expected": m.expected, "unit": m.unit, "note": m.note})
        md.append("")
    wall = time.perf_counter() - t0
    md.append(f"_{wall:.0f} s wall._")
    text = "\n".join(md)
    out = Path(args.out)
    write_output(out / "validate.md", text + "\n")
    write_output(out / "validate.json", json.dumps(out_json, indent=2))
    print(text)
    if out_json.get("correlation"):
        from golden.validate.scatter import write_scatter
        for p in write_scatter(out, out_json):   # the correlation view (issue 72 item 3)
            print(f"wrote {p}")
    return 0 if ok else 1
