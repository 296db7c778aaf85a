"""``simtlab run W --mode timing --sample [launch|tb] [--sample-seed S] [--sample-warming
on|off]``: the sampled run
from the CLI.

:func:`add_run_arguments` adds the options to ``simtlab run``; :func:`run_sampled` runs
:func:`golden.runs.sampled_run.run_sampled_timing_workload` (``--sample`` or ``--sample
launch``: a sample of each group of similar launches) or
:func:`golden.runs.tb_sampled_run.run_tb_sampled_timing_workload` (``--sample tb``: a
sample of the thread blocks inside each launch), prints the usual timing summary (every
figure an estimate) followed by the sampling block, and writes the JSON record (same keys
as a full run, plus ``sampling``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from golden.cli_args import seed as seed_arg
from golden.errors import SimtlabError
from golden.fileio import write_output


def add_run_arguments(r) -> None:
    r.add_argument("--sample", nargs="?", const="launch", default=None,
                   choices=("launch", "tb"), metavar="LEVEL",
                   help="timing mode: simulate a seeded sample in detail, run the rest "
                        "functionally, and extrapolate with 95%% intervals (outputs stay "
                        "bit-identical; see docs/sampling.md). LEVEL 'launch' (default): a "
                        "sample of each group of similar launches; 'tb': a sample of the "
                        "occupancy waves of thread blocks inside each launch")
    r.add_argument("--sample-seed", type=seed_arg, default=None, metavar="S",
                   help="with --sample: the sample's seed (default 0)")
    r.add_argument("--sample-warming", choices=("on", "off"), default=None, metavar="on|off",
                   help="with --sample tb: the skipped thread blocks' memory accesses warm "
                        "the L1/L2 tags and DRAM rows (default on; docs/sampling.md)")


def check_arguments(args) -> None:
    """One-line errors for sampling options given where they do not apply."""
    if getattr(args, "sample_seed", None) is not None and not args.sample:
        raise SimtlabError("--sample-seed needs --sample")
    if getattr(args, "sample_warming", None) is not None and getattr(args, "sample", None) != "tb":
        raise SimtlabError("--sample-warming needs --sample tb (launch-level sampling runs "
                           "whole launches and warms nothing)")
    if getattr(args, "sample", False) and args.mode != "timing":
        raise SimtlabError("--sample needs --mode timing (functional mode has no cycles to "
                           "sample)")


def run_sampled(args, workload, size: str) -> int:
    """The ``--sample`` branch of ``simtlab run``; returns the exit status."""
    # lazy only for start-up speed: this module is imported to build every `simtlab`
    # parser, and the drivers import the whole timing model, mechanisms and workloads
    from golden.runs.timing_workload import format_timing_summary
    limits = {k: v for k, v in (("max_cycles", args.max_cycles),
                                ("max_instructions", args.max_instructions)) if v}
    cpu0 = time.process_time()
    if args.sample == "tb":
        from golden.runs.tb_sampled_run import (
            format_tb_sampling as fmt, run_tb_sampled_timing_workload as run,
        )
        from golden.timing.tb_sampling import TBSamplingPlan
        warming = getattr(args, "sample_warming", None) != "off"

        def Plan(seed):
            return TBSamplingPlan(seed=seed, warming=warming)
    else:
        from golden.runs.sampled_run import (
            format_sampling as fmt, run_sampled_timing_workload as run,
        )
        from golden.timing.sampling import SamplingPlan as Plan
    d = run(workload, size, args.seed, args.config or "pascal",
            mechanisms=tuple(args.mechanism or ()), plan=Plan(seed=args.sample_seed or 0),
            **limits)
    d["cpu_seconds"] = time.process_time() - cpu0
    print(format_timing_summary(d))
    print(fmt(d))
    print(f"  host CPU time (whole run)  : {d['cpu_seconds']:.2f} s")
    if args.json:
        write_output(Path(args.json), json.dumps(d, indent=2))
    return 0 if d["outputs_match"] else 1
