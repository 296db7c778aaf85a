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


def add_run_arguments(r) -> None:
    """``--profile FILE`` on ``simtlab run``: the per-PC profile of that same run."""
    r.add_argument("--profile", type=output_file, metavar="FILE",
                   help="timing mode: also write the per-PC profile of this run (one run: the "
                        "profiler only observes). FILE.html: the annotated page, FILE.json: "
                        "every row, any other name: the text listing")


def check_run_arguments(args) -> None:
    """One-line errors for ``--profile`` where it does not apply."""
    if getattr(args, "profile", None) is None:
        return
    if args.mode != "timing":
        raise SimtlabError("--profile needs --mode timing (functional mode has no cycles to "
                           "attribute)")
    if getattr(args, "sample", None):
        raise SimtlabError("--profile and --sample do not go together: a sampled run times "
                           "only part of the work, so its per-PC cycles are not the run's")


class RunProfileCollector:
    """Collects the profile of one ``simtlab run --mode timing --profile FILE`` run: pass
    :attr:`pc_profiler` and :meth:`on_run` to ``run_timing_workload``, then :meth:`write`."""

    def __init__(self, path: str, mechanisms: tuple):
        from golden.timing.pc_profile import PCProfiler
        self.path = Path(path)
        self.mechanisms = tuple(mechanisms)
        self.pc_profiler = PCProfiler()
        self.profile = None

    def on_run(self, workload, cfg, run) -> None:
        from golden.report.profile import profile_of_run
        size, seed = run.size, run.seed
        self.profile = profile_of_run(workload, size, seed, cfg, self.mechanisms,
                                      self.pc_profiler, run)

    def write(self) -> None:
        from golden.report.profile_render import html_listing, text_listing
        p = self.profile
        if p is None:
            raise SimtlabError(f"--profile {self.path}: the run finished without a profile")
        suffix = self.path.suffix.lower()
        if suffix in (".html", ".htm"):
            text = html_listing(p)
        elif suffix == ".json":
            text = json.dumps(p.to_dict(), indent=1)
        else:
            text = text_listing(p) + "\n"
        write_output(self.path, text)
        print(f"wrote the per-PC profile to {self.path}")
