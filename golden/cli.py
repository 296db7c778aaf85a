"""The ``simtlab`` command.

    simtlab list                               workloads (and their seed stand-ins)
    simtlab run WORKLOAD [--size small|default] [--seed N] [--json FILE]
                [--mode functional|timing] [--config NAME] [--mechanism NAME]
    simtlab characterise [--size default] [-j N] [--out build/results]
    simtlab gscalar-stats [WORKLOAD...] [--size small|default] [-j N] [--json FILE]
    simtlab darsie-marks WORKLOAD [--size small|default] [--kernel NAME] [--block X,Y,Z] [--reasons]
    simtlab darsie-limit [WORKLOAD...] [--size small|default] [--json FILE]
    simtlab report baseline|darsie|gscalar|all [--size small|default] [--full] [-j N] [--out DIR]

``run`` executes a workload in functional mode, checks it against its numpy reference
and prints its statistics. ``characterise`` does that for the whole suite in parallel
worker processes and writes ``characterisation.md`` / ``.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from golden.errors import SimtlabError


def _registry():
    from golden.workloads import registry
    return registry


def _summarise(name: str, size: str, seed: int) -> dict:
    reg = _registry()
    w = reg.get(name)
    run = reg.run_workload(w, size=size, seed=seed)
    bad = reg.check_outputs(w, run.outputs, run.reference)
    from golden.simt.stats import LaunchStats
    total = LaunchStats(kernel="+".join(sorted({s.kernel for s in run.stats})), grid=(0, 0, 0), block=w.tb_dims)
    for s in run.stats:
        total.merge(s)
    d = total.to_dict()
    d.update(workload=w.name, size=size, seed=seed, launches=len(run.stats), tb_dims=list(w.tb_dims),
             divergent=w.divergent, outputs_match=not bad, mismatches=bad[:5],
             wall_seconds=run.wall_time)
    return d


def cmd_list(args) -> int:
    reg = _registry()
    ws = reg.all_workloads()
    print(f"{'name':<10} {'TB dims':<12} {'div':<4} stands for")
    for n, w in sorted(ws.items()):
        print(f"{n:<10} {str(w.tb_dims):<12} {'yes' if w.divergent else 'no':<4} {'; '.join(w.stands_for)}")
    from golden.configs.loader import list_aliases
    from golden.mechanisms.registry import names as mechanism_names
    from golden.configs.loader import list_configs
    configs = list_configs()
    print("\nconfigs (timing mode, --config): " + ", ".join(configs))
    print("  aliases: " + ", ".join(f"{a} = {c}" for a, c in sorted(list_aliases().items())))
    print("mechanisms (--mechanism): " + ", ".join(mechanism_names()))
    return 0


def _print_run(d: dict) -> None:
    print(f"{d['workload']} ({d['size']}, seed {d['seed']}): {d['launches']} launch(es), "
          f"{d['thread_blocks']} TBs of {tuple(d['tb_dims'])}")
    print(f"  outputs vs numpy reference : {'MATCH' if d['outputs_match'] else 'MISMATCH'}")
    for m in d["mismatches"]:
        print(f"    {m}")
    print(f"  warp instructions          : {d['warp_instructions']:,}")
    print(f"  thread instructions        : {d['thread_instructions']:,}")
    print(f"  SIMD utilisation           : {100 * d['simd_utilization']:.1f}%")
    print(f"  branches / divergent       : {d['branches']:,} / {d['divergent_branches']:,}")
    print(f"  by class                   : " + ", ".join(f"{k} {v:,}" for k, v in d["by_class"].items()))
    print(f"  memory (thread accesses)   : " + ", ".join(f"{k} {v:,}" for k, v in d["mem_thread_accesses"].items()))
    print(f"  host time                  : {d['wall_seconds']:.2f} s "
          f"({d['warp_instructions'] / max(d['wall_seconds'], 1e-9):,.0f} warp-inst/s)")


def cmd_run(args) -> int:
    if args.mode == "timing":
        from golden.timing.timing_device import format_timing_summary, run_timing_workload
        d = run_timing_workload(args.workload, args.size, args.seed, args.config,
                                mechanisms=tuple(args.mechanism or ()))
        print(format_timing_summary(d))
        if args.json:
            _atomic_write(Path(args.json), json.dumps(d, indent=2))
        return 0 if d["outputs_match"] else 1
    d = _summarise(args.workload, args.size, args.seed)
    _print_run(d)
    if args.json:
        _atomic_write(Path(args.json), json.dumps(d, indent=2))
    return 0 if d["outputs_match"] else 1


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def cmd_characterise(args) -> int:
    reg = _registry()
    names = sorted(reg.get(n).name for n in args.only) if args.only else sorted(reg.all_workloads())
    results: dict[str, dict] = {}
    t0 = time.perf_counter()
    jobs = max(1, args.jobs)
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        tqdm = None
    with ProcessPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(_summarise, n, args.size, args.seed): n for n in names}
        it = as_completed(futs)
        if tqdm is not None:
            it = tqdm(it, total=len(futs), desc="workloads", unit="wl", file=sys.stderr,
                      disable=not sys.stderr.isatty())
        for f in it:
            results[futs[f]] = f.result()
    rows = [results[n] for n in names]
    md = ["# Functional characterisation of the workload suite", "",
          f"Size `{args.size}`, seed {args.seed}; golden model, functional mode "
          f"({time.perf_counter() - t0:.1f} s on {jobs} worker(s)).", "",
          "| workload | TB dims | launches | warp inst | thread inst | SIMD util | branches | divergent | "
          "global acc | shared acc | matches numpy |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for d in rows:
        md.append(f"| {d['workload']} | {tuple(d['tb_dims'])} | {d['launches']} | {d['warp_instructions']:,} | "
                  f"{d['thread_instructions']:,} | {100 * d['simd_utilization']:.1f}% | {d['branches']:,} | "
                  f"{d['divergent_branches']:,} | {d['mem_thread_accesses'].get('global', 0):,} | "
                  f"{d['mem_thread_accesses'].get('shared', 0):,} | {'yes' if d['outputs_match'] else 'NO'} |")
    out = Path(args.out)
    _atomic_write(out / "characterisation.md", "\n".join(md) + "\n")
    _atomic_write(out / "characterisation.json", json.dumps(rows, indent=2))
    print("\n".join(md))
    print(f"\nwrote {out / 'characterisation.md'} and .json")
    return 0 if all(d["outputs_match"] for d in rows) else 1


def cmd_gscalar_stats(args) -> int:
    from golden.mechanisms.gscalar.analysis import PAPER, analyse_suite, average_row, render_tables
    rows = analyse_suite(args.workloads or None, size=args.size, seed=args.seed, jobs=args.jobs)
    print(render_tables(rows))
    if args.json:
        _atomic_write(Path(args.json), json.dumps(
            {"rows": rows, "average": average_row(rows), "paper": PAPER}, indent=2))
    return 0 if all(r["outputs_match"] for r in rows) else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="simtlab", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list workloads").set_defaults(fn=cmd_list)
    r = sub.add_parser("run", help="run one workload in functional mode")
    r.add_argument("workload")
    r.add_argument("--size", default="small", choices=("small", "default"))
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--json")
    r.add_argument("--mode", default="functional", choices=("functional", "timing"))
    r.add_argument("--config", default="pascal", help="GPU configuration (timing mode)")
    r.add_argument("--mechanism", action="append", metavar="NAME",
                   help="attach a registered mechanism (timing mode; repeatable), e.g. darsie, gscalar")
    r.set_defaults(fn=cmd_run)
    c = sub.add_parser("characterise", help="run the whole suite, write build/results/characterisation.md")
    c.add_argument("--size", default="default", choices=("small", "default"))
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    c.add_argument("--out", default="build/results")
    c.add_argument("--only", nargs="+", metavar="WORKLOAD", help="run only these workloads")
    c.set_defaults(fn=cmd_characterise)
    g = sub.add_parser("gscalar-stats", help="G-Scalar value/eligibility statistics beside the paper (seed 003)")
    g.add_argument("workloads", nargs="*", metavar="WORKLOAD", help="default: the G-Scalar stand-ins")
    g.add_argument("--size", default="small", choices=("small", "default"))
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("-j", "--jobs", type=int, default=1)
    g.add_argument("--json", help="write rows, average and paper values as JSON")
    g.set_defaults(fn=cmd_gscalar_stats)
    from golden.mechanisms.darsie.cli import add_subcommands as add_darsie_subcommands
    add_darsie_subcommands(sub)
    from golden.report.cli import add_subcommand as add_report_subcommand
    add_report_subcommand(sub)
    args = ap.parse_args(argv)
    try:
        return args.fn(args)
    except SimtlabError as e:
        print(f"simtlab: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
