"""``simtlab darsie-marks`` and ``simtlab darsie-limit`` (registered by :func:`add_subcommands`).

    simtlab darsie-marks WORKLOAD [--size small|default] [--kernel NAME] [--block X,Y,Z]
                         [--reasons] [--summary]
        PTX of the workload's kernels annotated DR/CR/V per PC (DARSIE Fig. 6). TB shapes
        come from the workload's real launches (it is run functionally at --size), or from
        --block without running.
    simtlab darsie-limit [WORKLOAD ...] [--size small|default] [--seed N] [--json FILE]
        Limit study (Figs. 1-2): grid/TB/warp redundancy by value, the uniform/affine/
        unstructured split, and the compiler marking's skippable fraction and soundness.
    simtlab darsie-pcs WORKLOAD [--size S] [--mechanism M] [--config C] [--top N] [--json FILE]
        Per PC: TB-redundant instructions of the limit study beside those the mechanism
        (default darsie) skipped in a timing run, and its refusals (golden.report.darsie_pc).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from golden.cli_args import output_file, seed as seed_arg
from golden.errors import SimtlabError


def _parse_block(text: str) -> tuple[int, int, int]:
    try:
        dims = tuple(int(x) for x in re.split(r"[,x]", text.strip()))
    except ValueError:
        raise SimtlabError(f"--block must look like 16,16 or 16,16,1, got {text!r}") from None
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise SimtlabError(f"--block must be 1-3 positive integers, got {text!r}")
    return dims + (1,) * (3 - len(dims))


def launch_shapes(workload: str, size: str, seed: int = 0) -> list[tuple[str, tuple[int, int, int]]]:
    """Unique (kernel, TB shape) pairs of the workload's launches, in first-launch order."""
    from golden.workloads import registry
    run = registry.run_workload(workload, size=size, seed=seed)
    seen: list[tuple[str, tuple[int, int, int]]] = []
    for rec in run.launches:
        key = (rec.kernel, tuple(rec.block))
        if key not in seen:
            seen.append(key)
    return seen


def cmd_darsie_marks(args) -> int:
    from golden.host import Device
    from golden.mechanisms.darsie.listing import format_marking, format_summary
    from golden.mechanisms.darsie.marking import mark_kernel
    from golden.workloads import registry
    w = registry.get(args.workload)
    module = Device(echo_printf=False).load_module(w.ptx_path)
    if args.kernel and args.kernel not in module.ir.kernels:
        raise SimtlabError(f"workload {w.name} has no kernel {args.kernel!r}; kernels: "
                           f"{', '.join(sorted(module.ir.kernels))}")
    if args.block:
        block = _parse_block(args.block)
        shapes = [(n, block) for n in ([args.kernel] if args.kernel else sorted(module.ir.kernels))]
    else:
        shapes = launch_shapes(w.name, args.size, args.seed)
        if args.kernel:
            shapes = [s for s in shapes if s[0] == args.kernel]
    if not shapes:
        raise SimtlabError(f"workload {w.name} did not launch kernel {args.kernel!r} at size {args.size}")
    out = []
    for name, block in shapes:
        marking = mark_kernel(module.get_function(name).program, block)
        out.append(format_summary(marking) if args.summary else format_marking(marking, reasons=args.reasons))
    print(("\n" if args.summary else "\n\n").join(out))
    return 0


def cmd_darsie_limit(args) -> int:
    from golden.mechanisms.darsie.limit_study import study_workload
    from golden.mechanisms.darsie.table import format_legend, format_limit_table
    from golden.workloads import registry
    names = [registry.get(n).name for n in args.workloads] if args.workloads else list(registry.all_workloads())
    results = [study_workload(n, size=args.size, seed=args.seed) for n in names]
    print(f"DARSIE limit study, size {args.size}, seed {args.seed}\n")
    print(format_limit_table(results))
    print()
    print(format_legend())
    notes = [n for r in results for n in r.violation_notes]
    for n in notes:
        print(f"UNSOUND: {n}")
    bad = [r.workload for r in results if not r.outputs_match]
    if bad:
        print(f"outputs differ from the numpy reference: {', '.join(bad)}")
    if args.json:
        rows = [{"workload": r.workload, "tb_dims": list(r.tb_dims), "dims": r.dims, "size": r.size,
                 "outputs_match": r.outputs_match, "counts": r.counts.to_dict(),
                 "launches": [{"kernel": lr.kernel, "grid": list(lr.grid), "block": list(lr.block),
                               "promotion": lr.marking.decision.reason, "counts": lr.counts.to_dict()}
                              for lr in r.launches],
                 "violations": r.violation_notes} for r in results]
        from golden.fileio import write_output
        write_output(Path(args.json), json.dumps(rows, indent=2))
    return 1 if notes or bad else 0


def cmd_darsie_pcs(args) -> int:
    from golden.report.darsie_pc import breakdown, render, to_dict
    from golden.workloads import registry
    w = registry.get(args.workload)
    if args.size not in w.sizes:
        raise SimtlabError(f"workload {w.name} has no size {args.size!r}; sizes: {', '.join(w.sizes)}")
    if args.top < 0:
        raise SimtlabError(f"--top must be >= 0, got {args.top}")
    rows, tot = breakdown(w.name, size=args.size, seed=args.seed, config=args.config,
                          mechanism=args.mechanism)
    print(f"size {args.size}, seed {args.seed}, config {args.config}, mechanism {args.mechanism}\n")
    print(render(w.name, rows, tot, top=args.top or len(rows)))
    if args.json:
        from golden.fileio import write_output
        write_output(Path(args.json), json.dumps(to_dict(rows, tot), indent=1))
    return 0


def add_subcommands(sub) -> None:
    """Register ``darsie-marks``, ``darsie-limit`` and ``darsie-pcs`` on an argparse
    subparsers object."""
    m = sub.add_parser("darsie-marks", help="PTX annotated with DARSIE's DR/CR/V marks (Fig. 6)")
    m.add_argument("workload")
    m.add_argument("--size", default="small", choices=("small", "default"),
                   help="size run functionally to capture the launches' TB shapes")
    m.add_argument("--seed", type=seed_arg, default=0)
    m.add_argument("--kernel", help="only this kernel")
    m.add_argument("--block", help="TB shape X,Y[,Z] to mark for, instead of running the workload")
    m.add_argument("--reasons", action="store_true", help="say why each PC has its class")
    m.add_argument("--summary", action="store_true", help="only the per-kernel summary lines")
    m.set_defaults(fn=cmd_darsie_marks)
    lim = sub.add_parser("darsie-limit", help="DARSIE limit study: grid/TB/warp redundancy and taxonomy")
    lim.add_argument("workloads", nargs="*", metavar="WORKLOAD", help="default: the whole suite")
    lim.add_argument("--size", default="small", choices=("small", "default"))
    lim.add_argument("--seed", type=seed_arg, default=0)
    lim.add_argument("--json", type=output_file, help="also write the counts as JSON to this file")
    lim.set_defaults(fn=cmd_darsie_limit)
    pcs = sub.add_parser("darsie-pcs", help="per PC: TB-redundant instructions (limit study) vs "
                                            "those DARSIE skipped, with its refusals")
    pcs.add_argument("workload")
    pcs.add_argument("--size", default="small", choices=("small", "default", "paper"))
    pcs.add_argument("--seed", type=seed_arg, default=0)
    pcs.add_argument("--config", default="pascal", help="GPU configuration of the timing run")
    pcs.add_argument("--mechanism", default="darsie", help="e.g. darsie:freelist=64,rename_entries=64")
    pcs.add_argument("--top", type=int, default=25, help="PCs listed, most missed first (0: all)")
    pcs.add_argument("--json", type=output_file, help="also write every row as JSON to this file")
    pcs.set_defaults(fn=cmd_darsie_pcs)
