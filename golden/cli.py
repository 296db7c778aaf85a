"""The ``simtlab`` command.

    simtlab list                               workloads (and their seed stand-ins)
    simtlab list --occupancy CONFIG [--size S] [--only W...] [--json FILE]
                                               TBs per SM, limiter and waves of every launch
    simtlab run WORKLOAD [--size small|default|paper|published] [--seed N] [--json FILE]
                [--mode functional|timing] [--config NAME] [--mechanism NAME]
    simtlab characterise [--size small|default|paper] [-j N] [--out build/results]
    simtlab characterise --against-papers [--size S (default paper)] [--only W...] [--simulate]
                                               stand-ins beside the papers' published properties
    simtlab gscalar-stats [WORKLOAD...] [--size small|default|paper] [-j N] [--json FILE]
    simtlab darsie-marks WORKLOAD [--size small|default] [--kernel NAME] [--block X,Y,Z] [--reasons]
    simtlab darsie-limit [WORKLOAD...] [--size small|default] [--json FILE]
    simtlab report baseline|darsie|gscalar|all [--size small|default|paper|published] [--full] [-j N] [--out DIR]
    simtlab locality WORKLOAD [--config NAME] [--size S] [--windows 1..1024] [--neighbourhoods 128..4096]
                [--unit line|sector] [--loads-only] [--merged] [--fetch-group G] [--json FILE]

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
from pathlib import Path

from golden.cli_args import (
    SIZES,
    jobs as jobs_arg, output_dir, output_file, positive_count, pow2_list, seed as seed_arg,
)
from golden.errors import SimtlabError
from golden.fileio import write_output


def _registry():
    from golden.workloads import registry
    return registry


def _summarise(name: str, size: str, seed: int, max_instructions: int | None = None) -> dict:
    reg = _registry()
    w = reg.get(name) if isinstance(name, str) else name  # a user Workload (--args, --workloads)
    device = None
    if max_instructions is not None:
        from golden.host import Device
        device = Device(max_instructions=max_instructions)
    cpu0 = time.process_time()
    run = reg.run_workload(w, size=size, seed=seed, device=device)
    cpu = time.process_time() - cpu0
    bad = reg.check_outputs(w, run.outputs, run.reference)
    from golden.simt.stats import LaunchStats
    total = LaunchStats(kernel="+".join(sorted({s.kernel for s in run.stats})), grid=(0, 0, 0), block=w.tb_dims)
    for s in run.stats:
        total.merge(s)
    d = total.to_dict()
    d.update(workload=w.name, size=size, seed=seed, launches=len(run.stats), tb_dims=list(w.tb_dims),
             divergent=w.divergent, outputs_match=not bad, mismatches=bad[:5],
             wall_seconds=run.wall_time, cpu_seconds=cpu)
    return d


def _cpu_line(d: dict, insts: int) -> str:
    """The host speed per CPU-second (process time: robust on a shared machine) of a run."""
    return (f"  host CPU time (whole run)  : {d['cpu_seconds']:.2f} s "
            f"({insts / max(d['cpu_seconds'], 1e-9):,.0f} warp-inst per CPU-s)")


def cmd_list(args) -> int:
    if args.occupancy:
        return cmd_list_occupancy(args)
    reg = _registry()
    from golden.workloads.user_kernel import extra_workloads
    ws = {**reg.all_workloads(), **extra_workloads(args)}
    width = max([10, *map(len, ws)])
    print(f"{'name':<{width}} {'TB dims':<12} {'div':<4} stands for")
    for n, w in sorted(ws.items()):
        version = f"[version of {w.variant_of}] " if getattr(w, "variant_of", None) else ""
        print(f"{n:<{width}} {str(w.tb_dims):<12} {'yes' if w.divergent else 'no':<4} "
              f"{version}{'; '.join(w.stands_for)}")
    from golden.configs.loader import list_aliases
    from golden.mechanisms.registry import names as mechanism_names
    from golden.configs.loader import list_configs
    configs = list_configs()
    print("\nconfigs (timing mode, --config): " + ", ".join(configs))
    print("  aliases: " + ", ".join(f"{a} = {c}" for a, c in sorted(list_aliases().items())))
    print("mechanisms (--mechanism): " + ", ".join(mechanism_names()))
    return 0


def cmd_list_occupancy(args) -> int:
    """``simtlab list --occupancy CONFIG``: every workload at every size (or ``--size``),
    run functionally once, each launch sized on CONFIG by the timing model's occupancy."""
    from golden.configs import load_config
    from golden.workloads.occupancy import format_table, occupancy_of, probe_workload
    cfg = load_config(args.occupancy)
    reg = _registry()
    names = [reg.get(n).name for n in args.only] if args.only else list(reg.all_workloads())
    rows, bad = [], []
    for n in names:
        w = reg.get(n)
        for size in args.size or list(w.sizes):
            if size not in w.sizes:
                continue
            probe = probe_workload(n, size, args.seed)
            if probe.mismatches:
                bad.append(f"{n} {size}: " + "; ".join(probe.mismatches[:2]))
            rows.append(occupancy_of(probe, cfg))
    core = cfg.core
    print(f"{cfg.name}: {core.num_sms} SMs; per SM {core.max_tbs_per_sm} TB slots, "
          f"{core.max_threads_per_sm} threads, {core.max_warps_per_sm} warps, "
          f"{core.registers_per_sm} registers, {core.shared_mem_per_sm} B shared memory")
    print("regs/thr: the timing model's PTX estimate (a<b: lowered from b to fit one TB); "
          "waves = TBs / (TBs per SM x SMs) per launch; main waves: the most waves w such that "
          "launches of >= w waves do 80% of the warp instructions\n")
    print(format_table(rows))
    if args.json:
        write_output(Path(args.json), json.dumps([r.to_dict() for r in rows], indent=1))
    for b in bad:
        print(f"simtlab: outputs differ from the numpy reference: {b}", file=sys.stderr)
    return 1 if bad else 0


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
    print(_cpu_line(d, d["warp_instructions"]))


def cmd_run(args) -> int:
    from golden.workloads.user_kernel import run_target
    workload, size = run_target(args)  # a built-in's name, or a user kernel's Workload
    from golden.runs.sampled_cli import check_arguments, run_sampled
    check_arguments(args)
    from golden.report.profile_cli import RunProfileCollector, check_run_arguments
    check_run_arguments(args)
    if args.mode == "timing" and args.sample:
        return run_sampled(args, workload, size)
    if args.mode == "timing":
        from golden.runs.timing_workload import format_timing_summary, run_timing_workload
        limits = {k: v for k, v in (("max_cycles", args.max_cycles),
                                    ("max_instructions", args.max_instructions)) if v}
        mechs = tuple(args.mechanism or ())
        prof = RunProfileCollector(args.profile, mechs) if args.profile else None
        if prof is not None:
            limits.update(pc_profiler=prof.pc_profiler, on_run=prof.on_run)
        cpu0 = time.process_time()
        d = run_timing_workload(workload, size, args.seed, args.config or "pascal",
                                mechanisms=mechs, **limits)
        d["cpu_seconds"] = time.process_time() - cpu0
        print(format_timing_summary(d))
        print(_cpu_line(d, d["timing"]["instructions_executed"]))  # the wall line's numerator
        if args.json:
            write_output(Path(args.json), json.dumps(d, indent=2))
        if prof is not None:
            prof.write()
        return 0 if d["outputs_match"] else 1
    d = _summarise(workload, size, args.seed, args.max_instructions)
    _print_run(d)
    if args.json:
        write_output(Path(args.json), json.dumps(d, indent=2))
    return 0 if d["outputs_match"] else 1


def cmd_characterise(args) -> int:
    if args.against_papers:
        from golden.report.fidelity_cli import run_against_papers
        return run_against_papers(args)
    if args.simulate or args.no_cache:
        raise SimtlabError("--simulate and --no-cache go with --against-papers")
    args.size = args.size or "default"
    reg = _registry()
    names = sorted(reg.get(n).name for n in args.only) if args.only else sorted(reg.all_workloads())
    results: dict[str, dict] = {}
    t0 = time.perf_counter()
    jobs = args.jobs
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        tqdm = None
    from golden.workers import Interrupted, run_unordered
    bar = tqdm(total=len(names), desc="workloads", unit="wl", file=sys.stderr,
               disable=not sys.stderr.isatty()) if tqdm is not None else None

    def done(name, row):
        results[name] = row
        if bar is not None:
            bar.update(1)

    try:
        run_unordered(_summarise, [(n, (n, args.size, args.seed)) for n in names], jobs, done)
    except Interrupted as e:
        raise Interrupted(f"{e.finished} of {len(names)} workload(s) had finished; nothing "
                          f"written (characterise writes {args.out} only when all have)") from None
    finally:
        if bar is not None:
            bar.close()
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
    write_output(out / "characterisation.md", "\n".join(md) + "\n")
    write_output(out / "characterisation.json", json.dumps(rows, indent=2))
    print("\n".join(md))
    print(f"\nwrote {out / 'characterisation.md'} and .json")
    return 0 if all(d["outputs_match"] for d in rows) else 1


def cmd_gscalar_stats(args) -> int:
    from golden.mechanisms.gscalar.analysis import PAPER, analyse_suite, average_row, render_tables
    rows = analyse_suite(args.workloads or None, size=args.size, seed=args.seed, jobs=args.jobs)
    print(render_tables(rows))
    if args.json:
        write_output(Path(args.json), json.dumps(
            {"rows": rows, "average": average_row(rows), "paper": PAPER}, indent=2))
    return 0 if all(r["outputs_match"] for r in rows) else 1


def cmd_locality(args) -> int:
    """``simtlab locality``: the ch. 5 locality table of a workload's L1 accesses."""
    from golden.analysis.locality import workload_locality
    kinds = ("load",) if args.loads_only else ("load", "load_bypass", "store", "atomic")
    d = workload_locality(args.workload, args.size, args.seed, args.config,
                          windows=args.windows, neighbourhoods=args.neighbourhoods,
                          unit=args.unit, kinds=kinds, merged=args.merged,
                          fetch_group=args.fetch_group)
    t = d["table"]
    scope = "one stream for the GPU" if d["merged"] else "windows per SM L1"
    group = "" if d["fetch_group"] == 1 else f", L1 fetch group {d['fetch_group']}"
    per = (f"coalesced transaction at its {d['unit_bytes']} B line" if d["unit"] == "line"
           else f"{d['unit_bytes']} B sector")
    print(f"{d['workload']} ({d['size']}, seed {d['seed']}) on {d['config']}{group}: "
          f"{t.accesses:,} L1 accesses ({', '.join(d['kinds'])}; one per {per}; {scope}), "
          f"{d['cycles']:,} cycles")
    print(f"P(an access is followed within the next W accesses by one in its aligned "
          f"N-byte neighbourhood); N = {d['unit_bytes']} is temporal locality")
    print(t.format())
    if not d["outputs_match"]:
        print("simtlab: outputs differ from the numpy reference", file=sys.stderr)
    if args.json:
        out = {k: v for k, v in d.items() if k != "table"}
        out.update(t.to_dict())
        write_output(Path(args.json), json.dumps(out, indent=1))
    return 0 if d["outputs_match"] else 1


def main(argv=None) -> int:
    """Run one simtlab command; its exit status. Ctrl-C at any point (also while the
    command's modules load) ends with one line and 130, never a traceback."""
    from golden.workers import interrupted_exit
    try:
        return _main(argv)
    except KeyboardInterrupt as e:
        return interrupted_exit(e)


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="simtlab", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    lp = sub.add_parser("list", help="list workloads (--occupancy CONFIG: TBs per SM and waves)")
    lp.add_argument("--occupancy", metavar="CONFIG",
                    help="per workload, size and kernel on CONFIG: threads, registers and shared "
                         "memory per TB, TBs per SM and what limits it, TBs and waves per launch, "
                         "warp instructions (one functional run per workload and size)")
    lp.add_argument("--size", action="append", metavar="SIZE",
                    help="with --occupancy: only this size (repeatable; default: every size)")
    lp.add_argument("--only", nargs="+", metavar="WORKLOAD", help="with --occupancy: only these workloads")
    lp.add_argument("--seed", type=seed_arg, default=0)
    lp.add_argument("--json", type=output_file, help="with --occupancy: also write the rows as JSON")
    lp.add_argument("--workloads", metavar="DIR", help="also list the user workloads of DIR")
    lp.set_defaults(fn=cmd_list)
    r = sub.add_parser("run", help="run one workload in functional mode")
    r.add_argument("workload", help="a workload name, or a .ptx/.cu file with --args SPEC.yaml")
    r.add_argument("--size", default="small", choices=SIZES)
    r.add_argument("--seed", type=seed_arg, default=0)
    r.add_argument("--json", type=output_file)
    r.add_argument("--mode", default="functional", choices=("functional", "timing"))
    r.add_argument("--config", help="GPU configuration (timing mode; default pascal)")
    r.add_argument("--mechanism", action="append", metavar="NAME",
                   help="attach a registered mechanism (timing mode; repeatable), e.g. darsie, gscalar")
    from golden.simt.engine import DEFAULT_MAX_CYCLES, DEFAULT_MAX_INSTRUCTIONS
    r.add_argument("--max-instructions", type=positive_count, metavar="N",
                   help="watchdog: stop a launch after N warp instructions and report the loops "
                        f"its warps run (default {DEFAULT_MAX_INSTRUCTIONS:,})")
    r.add_argument("--max-cycles", type=positive_count, metavar="N",
                   help="watchdog (timing mode): stop a launch after N cycles and report the "
                        f"loops its warps run (default {DEFAULT_MAX_CYCLES:,})")
    from golden.workloads.user_kernel import add_run_arguments
    add_run_arguments(r)  # --kernel --grid --block --args (a .ptx/.cu file), --workloads DIR
    from golden.runs.sampled_cli import add_run_arguments as add_sampling_arguments
    add_sampling_arguments(r)  # --sample --sample-seed
    from golden.report.profile_cli import add_run_arguments as add_profile_arguments
    add_profile_arguments(r)  # --profile FILE
    r.set_defaults(fn=cmd_run)
    c = sub.add_parser("characterise", help="run the whole suite, write build/results/characterisation.md "
                                            "(--against-papers: the workload-fidelity table)")
    c.add_argument("--size", choices=SIZES,
                   help="input size (default: default; with --against-papers: paper)")
    c.add_argument("--against-papers", action="store_true",
                   help="each stand-in beside the properties its papers publish for the benchmark "
                        "(golden/report/facts/fidelity.yaml) -> <out>/fidelity.md and .json")
    c.add_argument("--simulate", action="store_true",
                   help="with --against-papers: run the timing jobs the cache lacks (slow)")
    c.add_argument("--no-cache", action="store_true",
                   help="with --against-papers: neither read nor write the result cache")
    c.add_argument("--seed", type=seed_arg, default=0)
    c.add_argument("-j", "--jobs", type=jobs_arg, default=os.cpu_count() or 1)
    c.add_argument("--out", type=output_dir, default="build/results")
    c.add_argument("--only", nargs="+", metavar="WORKLOAD", help="run only these workloads")
    c.set_defaults(fn=cmd_characterise)
    g = sub.add_parser("gscalar-stats", help="G-Scalar value/eligibility statistics beside the paper (seed 003)")
    g.add_argument("workloads", nargs="*", metavar="WORKLOAD", help="default: the G-Scalar stand-ins")
    g.add_argument("--size", default="small", choices=SIZES)
    g.add_argument("--seed", type=seed_arg, default=0)
    g.add_argument("-j", "--jobs", type=jobs_arg, default=1)
    g.add_argument("--json", type=output_file, help="write rows, average and paper values as JSON")
    g.set_defaults(fn=cmd_gscalar_stats)
    lo = sub.add_parser("locality", help="temporal/spatial locality table of a workload's L1 "
                                         "accesses (dissertation ch. 5), timing mode")
    lo.add_argument("workload")
    lo.add_argument("--config", default="gtx480_coarse",
                    help="GPU configuration (default gtx480_coarse, the ch. 5 Table 8 baseline)")
    lo.add_argument("--size", default="small", choices=SIZES)
    lo.add_argument("--seed", type=seed_arg, default=0)
    lo.add_argument("--windows", type=pow2_list, metavar="LIST",
                    help="windows W in accesses: powers of two, comma list or A..B "
                         "(default 1..1024)")
    lo.add_argument("--neighbourhoods", type=pow2_list, metavar="LIST",
                    help="aligned neighbourhoods N in bytes, as --windows (default: the "
                         "unit, 128 B lines or 32 B sectors, ..4096)")
    lo.add_argument("--unit", default="line", choices=("line", "sector"),
                    help="one access per coalesced L1 transaction at its line address "
                         "(default) or one per touched 32 B sector")
    lo.add_argument("--loads-only", action="store_true",
                    help="only loads that use the L1 tags (default: loads, stores, atomics)")
    lo.add_argument("--merged", action="store_true",
                    help="one access stream for the whole GPU (port-cycle order) instead of "
                         "windows per SM L1")
    lo.add_argument("--fetch-group", type=int, choices=(1, 2, 4, 8), metavar="G",
                    help="run with memory.l1.fetch_group = G (coarse L1; default: the config's)")
    lo.add_argument("--json", type=output_file, help="also write the table as JSON")
    lo.set_defaults(fn=cmd_locality)
    from golden.mechanisms.darsie.cli import add_subcommands as add_darsie_subcommands
    add_darsie_subcommands(sub)
    from golden.report.cli import add_subcommand as add_report_subcommand
    add_report_subcommand(sub)
    from golden.validate.cli import add_subcommand as add_validate_subcommand
    add_validate_subcommand(sub)
    from golden.report.profile_cli import add_subcommand as add_profile_subcommand
    add_profile_subcommand(sub)
    from golden.report.timeline_cli import add_subcommand as add_timeline_subcommand
    add_timeline_subcommand(sub)
    from golden.configs.cli import add_subcommand as add_config_subcommand
    add_config_subcommand(sub)
    from golden.scaffold.cli import add_subcommand as add_new_subcommand
    add_new_subcommand(sub)
    args = ap.parse_args(argv)
    if args.cmd == "run" and args.mode != "timing":
        given = [o for o, v in (("--config", args.config), ("--mechanism", args.mechanism),
                                ("--max-cycles", args.max_cycles)) if v]
        if given:
            r.error(f"{' and '.join(given)} need{'s' if len(given) == 1 else ''} --mode timing "
                    f"(functional mode has no GPU configuration, mechanisms or cycles)")
    from golden.workers import Interrupted, interrupted_exit
    try:
        rc = args.fn(args)
        sys.stdout.flush()          # a closed pipe shows here, not in the interpreter's exit
        return rc
    except SimtlabError as e:
        print(f"simtlab: error: {e}", file=sys.stderr)
        return 2
    except (Interrupted, KeyboardInterrupt) as e:   # Ctrl-C: one line, exit 130
        return interrupted_exit(e)
    except BrokenPipeError:         # the reader went away (simtlab list | head): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())       # so the exit's flush has nowhere to fail
        return 141                  # 128 + SIGPIPE, what a shell reports for such a writer


if __name__ == "__main__":
    sys.exit(main())
