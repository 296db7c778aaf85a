"""Registers per thread: the PTX liveness estimate against ``ptxas -v`` (issue 66 item 3).

``python -m golden.report.registers`` (``make registers``):

1. runs ``ptxas -v -arch=sm_75`` on every workload kernel PTX
   (``golden/workloads/kernels/*.ptx``) and parses, per ``.entry``, the registers per
   thread, barriers, static shared and constant (bank 0) bytes, stack frame and spill
   bytes (:func:`parse_ptxas_output`);
2. computes the timing model's own estimate of the same kernels
   (:func:`golden.timing.gpu.ptx_registers_per_thread`);
3. sizes every launch of the workload at its ``paper`` size (the block shapes and shared
   memory of a functional run, :func:`golden.workloads.occupancy.probe_workload`) on every
   configuration in ``golden/configs/*.yaml`` and on every (configuration, overrides) pair
   the reports run the workload on at ``paper`` size, with each figure
   (:func:`golden.timing.occupancy.tb_occupancy`, the dispatcher's computation);
4. writes the comparison to ``docs/registers.md`` and, for each kernel source whose ptxas
   figures change TBs per SM on some reported (configuration, overrides) pair, the register
   file ``<stem>.ptxas.yaml`` beside its PTX (:mod:`golden.timing.ptxas_file`), which the
   timing model then reads instead of the estimate. A kernel source whose figures change
   nothing gets no file (an old one is removed), so its workload's results keep the
   estimate and stay valid.

Positional stems restrict which register files are written or removed (the table always
covers every kernel not ``--exclude``d). ``--hold`` stems are measured and tabled, but
their register file is not written (the table says ``held``): for a workload whose
``paper`` size must be re-sized first because ptxas's figure changes its waves. ``--check`` writes nothing and reports committed
register files that differ from what ptxas makes of today's PTX.

Architecture: the committed PTX targets ``sm_75`` (``nvcc -ptx -arch=sm_75``,
:mod:`golden.workloads.build_ptx`), and CUDA 13's ptxas compiles a PTX only for its own
target or newer; sm_75 (Turing) is also the oldest target CUDA 13 has, so the papers'
GPUs (sm_13 GTX 280/285 and Quadro FX 5800, sm_20 GTX 480, sm_61 GTX 1080 Ti) cannot be
asked for. The figures are therefore Turing's register allocation of our kernels, used on
every configuration; they are what a real compiler allocates, not what the papers' own
binaries used (those sources and compilers differ anyway).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from golden.configs.loader import ALIASES, list_configs, load_config
from golden.errors import SimtlabError
from golden.mechanisms.claims import TB_DISPATCH
from golden.mechanisms.registry import make_mechanisms
from golden.ptx import load_ptx
from golden.report.main_job import main_job, report_configs
from golden.report.warpman import TABLE5, paper_name
from golden.simt.program import link
from golden.timing.gpu import ptx_registers_per_thread
from golden.timing.occupancy import tb_occupancy
from golden.timing.ptxas_file import (FORMAT, KERNEL_FIELDS, PtxasKernel, ptx_sha256,
                                      ptxas_file_for, read_ptxas_file)
from golden.workloads import registry
from golden.workloads.base import KERNEL_DIR
from golden.workloads.ptxas import (ARCH, parse_ptxas_output, ptxas_version, require_ptxas,
                                    run_ptxas)
from golden.workloads.occupancy import probe_workload

#: where the comparison table goes (relative to the repository)
TABLE = Path(__file__).resolve().parents[2] / "docs" / "registers.md"
#: the command that regenerates everything
COMMAND = "python -m golden.report.registers"

# ------------------------------------------------------------------------ register files

def record_text(ptx: Path, kernels: dict[str, PtxasKernel], version: str,
                arch: str = ARCH) -> str:
    """The text of ``<stem>.ptxas.yaml`` for ``ptx`` (stable: kernels sorted by name)."""
    lines = [f"# ptxas register figures of {ptx.name}, read by the timing model for occupancy",
             f"# (golden/timing/ptxas_file.py). Written by `{COMMAND}`; do not edit.",
             f"format: {FORMAT}",
             f"ptx: {ptx.name}",
             f"ptx_sha256: {ptx_sha256(ptx.read_bytes())}",
             f"arch: {arch}",
             f"ptxas_version: '{version}'",
             f"command: 'ptxas -v -arch={arch} {ptx.name}'",
             "kernels:"]
    for name in sorted(kernels):
        k = kernels[name]
        body = ", ".join(f"{f}: {getattr(k, f)}" for f in KERNEL_FIELDS)
        lines.append(f"  {name}: {{{body}}}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------ comparison

@dataclass(frozen=True)
class Shape:
    """One launch shape of a kernel: threads and warps per TB, shared bytes per TB."""

    threads: int
    warps: int
    shared: int


@dataclass
class KernelComparison:
    """One kernel (``stem``, ``entry``) of workload ``workload``: the estimate, ptxas's
    figures, its paper-size launch shapes, and per configuration name the TBs per SM and
    limiters with each figure (``{config: (est_occ, ptxas_occ)}`` for the first shape)."""

    stem: str
    entry: str
    workload: str
    estimate: int
    ptxas: PtxasKernel
    shapes: list[Shape] = field(default_factory=list)
    configs: dict = field(default_factory=dict)
    #: reported (config, overrides) pairs where TBs per SM change: [(label, shape, est, ptx)]
    reported_changes: list = field(default_factory=list)


def _occ(core, shape: Shape, regs: int):
    return tb_occupancy(core, shape.threads, shape.warps, regs, shape.shared, clamp=True)


def warps_by_registers(core, regs: int) -> int:
    """Warps the SM can hold when registers are allocated per warp (WarpMan's warp-level
    allocation, dissertation ch. 3 §3.2): ``registers_per_sm // (regs x warp size)``,
    at most ``max_warps_per_sm``."""
    return min(core.max_warps_per_sm, core.registers_per_sm // max(1, regs * core.warp_size))


def warp_granular_configs(workload: str, size: str = "paper") -> set[tuple[str, tuple]]:
    """``(config, overrides)`` pairs on which the main job runs ``workload`` under a
    mechanism that claims TB dispatch (:data:`golden.mechanisms.claims.TB_DISPATCH`):
    there resources are released and allocated per warp, so registers per thread matter
    at warp granularity and not only through TBs per SM."""
    out: set = set()
    for j in main_job(size):
        if j.workload != workload or not j.mechanisms or (j.config, j.overrides) in out:
            continue
        config = load_config(j.config, dict(j.overrides) if j.overrides else None)
        if any(TB_DISPATCH in type(m).claims for m in make_mechanisms(j.mechanisms, config)):
            out.add((j.config, j.overrides))
    return out


def _overrides_label(config: str, overrides: tuple) -> str:
    return config + "".join(f",{k}={v}" for k, v in overrides)


def compare(exclude: tuple[str, ...] = (), ptxas: str | None = None,
            progress=None) -> tuple[list[KernelComparison], str, list[str]]:
    """Measure every workload kernel (stems in ``exclude`` left out): returns the
    comparisons, the ptxas version and problems (workloads that could not be probed)."""

    ptxas = ptxas or require_ptxas()
    version = ptxas_version(ptxas)
    cores = {c: load_config(c).core for c in list_configs()}
    loaded: dict[tuple, object] = {}
    rows: list[KernelComparison] = []
    problems: list[str] = []
    for w in sorted(registry.all_workloads().values(), key=lambda w: w.ptx_path.stem):
        stem = w.ptx_path.stem
        if stem in exclude:
            continue
        if progress:
            progress(f"{w.name} ({stem}.ptx)")
        figures = parse_ptxas_output(run_ptxas(w.ptx_path, ptxas))
        module = load_ptx(w.ptx_path)
        try:
            probe = probe_workload(w.name, "paper")
        except SimtlabError as e:
            problems.append(f"{w.name}: paper-size probe failed: {str(e).splitlines()[0]}")
            probe = None
        shapes: dict[str, list[Shape]] = {}
        for p in (probe.launches if probe else ()):
            g = p.launch.geo
            s = Shape(g.threads_per_tb, g.warps_per_tb, p.launch.shared_bytes)
            if s not in shapes.setdefault(p.kernel, []):
                shapes[p.kernel].append(s)
        reported = report_configs(w.name, "paper")
        warp_level = warp_granular_configs(w.name, "paper")
        for entry in module.kernels:
            if entry not in figures:
                raise SimtlabError(f"ptxas reported nothing for kernel '{entry}' of {w.ptx_path}")
            row = KernelComparison(stem, entry, w.name,
                                   ptx_registers_per_thread(link(module, entry)),
                                   figures[entry], shapes.get(entry, []))
            if row.shapes:
                s0 = row.shapes[0]
                for c, core in cores.items():
                    row.configs[c] = (_occ(core, s0, row.estimate),
                                      _occ(core, s0, row.ptxas.registers))
            for config, overrides in reported:
                key = (config, overrides)
                if key not in loaded:
                    loaded[key] = load_config(config, dict(overrides) if overrides else None).core
                for s in row.shapes:
                    a = _occ(loaded[key], s, row.estimate)
                    b = _occ(loaded[key], s, row.ptxas.registers)
                    if a.tbs_per_sm != b.tbs_per_sm:
                        row.reported_changes.append((_overrides_label(config, overrides), s, a, b))
                    elif key in warp_level:
                        # same TBs per SM, but warp-level allocation may hold a different
                        # number of warps (e.g. a TB's long warps plus the next whole TB)
                        wa = warps_by_registers(loaded[key], row.estimate)
                        wb = warps_by_registers(loaded[key], row.ptxas.registers)
                        if wa != wb:
                            row.reported_changes.append(
                                (f"{_overrides_label(config, overrides)} (warp-level "
                                 f"allocation: {wa} -> {wb} warps)", s, a, b))
            rows.append(row)
    return rows, version, problems


def changed_stems(rows: list[KernelComparison]) -> set[str]:
    """Kernel sources with a kernel whose TBs per SM (or, under warp-level allocation, warps
    held) change on a reported configuration."""
    return {r.stem for r in rows if r.reported_changes}


# ------------------------------------------------------------------------ the table

def table5_registers(workloads) -> dict[str, str]:
    """Registers per thread of WarpMan Table 5 (registers per TB / (warps per TB x 32))
    for the workloads that stand in for one of its benchmarks, formatted to one decimal."""
    out = {}
    for w in workloads:
        t5 = TABLE5.get(paper_name(w))
        if t5 is not None:
            out[w] = f"{t5[3] / (t5[1] * 32):.1f}"
    return out


def _cell(pair) -> str:
    a, b = pair
    lim = {"TB slots": "slots", "threads": "thr", "warps": "warps", "registers": "regs",
           "shared memory": "smem"}
    la = "+".join(lim[x] for x in a.limiters)
    lb = "+".join(lim[x] for x in b.limiters)
    if a.tbs_per_sm != b.tbs_per_sm:
        return f"**{a.tbs_per_sm} {la} → {b.tbs_per_sm} {lb}**"
    if la != lb:
        return f"{a.tbs_per_sm} {la} → {lb}"
    return f"{a.tbs_per_sm} {la}"


def format_table(rows: list[KernelComparison], version: str, problems: list[str],
                 exclude: tuple[str, ...], hold: tuple[str, ...] = ()) -> str:
    """``docs/registers.md``: summary, the per-kernel table, the reported changes."""
    configs = list_configs()
    diff = [r for r in rows if r.ptxas.registers != r.estimate]
    changed = changed_stems(rows) - set(hold)
    held = changed_stems(rows) & set(hold)
    out = [
        "# Registers per thread: PTX liveness estimate vs ptxas",
        "",
        f"Generated by `{COMMAND}` (`make registers`); do not edit by hand. "
        "Issue 66 item 3. The timing model sizes thread blocks per SM with registers per "
        "thread; it estimates them from the PTX (`golden/timing/gpu.py`, "
        "`ptx_registers_per_thread`) unless a register file `<stem>.ptxas.yaml` is committed "
        "beside the PTX (`golden/timing/ptxas_file.py`), which holds the figures below.",
        "",
        f"* ptxas: {version}, `ptxas -v -arch={ARCH}` on the committed PTX (which targets "
        f"{ARCH}; CUDA 13 has no older target, so the papers' sm_13/sm_20/sm_61 cannot be "
        "asked for: these are Turing's allocations).",
        "* Block shapes and shared memory: each workload's `paper` size (a functional run); "
        "TBs per SM by the dispatcher's own computation (`golden/timing/occupancy.py`, "
        "with the `__launch_bounds__` clamp).",
        f"* Kernels compared: {len(rows)}; ptxas differs from the estimate on {len(diff)}"
        + (f" (ptxas - estimate from {min(r.ptxas.registers - r.estimate for r in diff):+d} "
           f"to {max(r.ptxas.registers - r.estimate for r in diff):+d} registers; "
           f"mean |difference| {sum(abs(r.ptxas.registers - r.estimate) for r in diff) / len(diff):.1f})"
           if diff else "") + ".",
        f"* Kernel sources with a committed register file (TBs per SM, or the warps a "
        f"warp-level allocation holds, change on a configuration their workload is "
        f"reported on): {len(changed)}"
        + (f": {', '.join(sorted(changed))}" if changed else "") + ".",
    ]
    if held:
        out.append(f"* Held back (TBs per SM change, but no register file is committed yet: the "
                   f"workload's `paper` size must be re-sized first): {', '.join(sorted(held))}; "
                   f"`{COMMAND}` without `--hold` writes their files.")
    if exclude:
        out.append(f"* Left out for now: {', '.join(sorted(exclude))} (being rebuilt); "
                   f"`{COMMAND}` without `--exclude` adds them.")
    for p in problems:
        out.append(f"* Not sized: {p}")
    out += ["",
            "Cells: TBs per SM and limiter with the estimate; `→` what ptxas's figure gives "
            "when it differs (bold when the count changes). Limiters: slots (TB slots), thr "
            "(threads), warps, regs (registers), smem (shared memory). Configurations marked "
            "`*` are ones the workload is reported on (with or without overrides). `file`: "
            "a register file is committed for the kernel source. T5: registers per thread "
            "of the benchmark the workload stands in for in WarpMan Table 5 (registers per "
            "TB / threads per TB, paper-facts §3.4; GPGPU-Sim's figures for the suites' own "
            "binaries, so a reference point, not a target).",
            "",
            "| kernel | workload | thr/TB | smem/TB | estimate | ptxas | Δ | spill B | T5 | "
            + " | ".join(configs) + " | file |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|" + "---|" * len(configs) + "---|"]
    table5 = table5_registers({r.workload for r in rows})
    for r in rows:
        on = {ALIASES.get(c, c) for c, _ in report_configs(r.workload, "paper")}
        s = r.shapes[0] if r.shapes else None
        cells = [(_cell(r.configs[c]) if c in r.configs else "-") + (" *" if c in on else "")
                 for c in configs]
        more = f" (+{len(r.shapes) - 1} shapes)" if len(r.shapes) > 1 else ""
        out.append(
            f"| {r.stem}:{r.entry} | {r.workload} | {s.threads if s else '-'}{more} | "
            f"{s.shared if s else '-'} | {r.estimate} | {r.ptxas.registers} | "
            f"{r.ptxas.registers - r.estimate:+d} | "
            f"{r.ptxas.spill_stores + r.ptxas.spill_loads} | {table5.get(r.workload, '')} | "
            + " | ".join(cells)
            + f" | {'yes' if r.stem in changed else 'held' if r.stem in held else ''} |")
    out += ["", "## Reported configurations where TBs per SM change",
            "",
            "Every (configuration, overrides) pair a report runs the workload on at `paper` "
            "size where ptxas's figure gives a different TBs per SM than the estimate, or, "
            "where the workload runs under a mechanism that claims TB dispatch (WarpMan's "
            "warp-level allocation), a different number of warps the register file holds "
            "per warp. These workloads' archived results depend on the register file and "
            "go stale.",
            "",
            "| workload | kernel | configuration | thr/TB | estimate | ptxas |",
            "|---|---|---|---:|---|---|"]
    for r in rows:
        for label, s, a, b in r.reported_changes:
            where, _, note = label.partition(" (")
            out.append(f"| {r.workload} | {r.entry} | `{where}`{' (' + note if note else ''} | "
                       f"{s.threads} | "
                       f"{r.estimate} regs: {a.tbs_per_sm} TBs ({', '.join(a.limiters)}) | "
                       f"{r.ptxas.registers} regs: {b.tbs_per_sm} TBs ({', '.join(b.limiters)}) |")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------ command line

def sync_files(rows: list[KernelComparison], version: str,
               only: set[str] | None = None, hold: tuple[str, ...] = ()) -> list[str]:
    """Write the register file of every changed kernel source and remove the files of the
    others (restricted to ``only`` stems when given); returns what was done."""
    changed = changed_stems(rows) - set(hold)
    done = []
    for stem in sorted({r.stem for r in rows}):
        if only and stem not in only:
            continue
        ptx = KERNEL_DIR / f"{stem}.ptx"
        f = ptxas_file_for(ptx)
        if stem in changed:
            kernels = {r.entry: r.ptxas for r in rows if r.stem == stem}
            text = record_text(ptx, kernels, version)
            if not f.is_file() or f.read_text(encoding="utf-8") != text:
                f.write_text(text, encoding="utf-8")
                done.append(f"wrote {f.name}")
        elif f.is_file():
            f.unlink()
            done.append(f"removed {f.name} (held, or ptxas changes no reported occupancy)")
    return done


def check_files(ptxas: str) -> list[str]:
    """Committed register files that are unreadable, stale, or differ from what ptxas
    reports for today's PTX."""
    bad = []
    for f in sorted(KERNEL_DIR.glob("*.ptxas.yaml")):
        try:
            rec = read_ptxas_file(f)
        except SimtlabError as e:
            bad.append(str(e))
            continue
        fresh = parse_ptxas_output(run_ptxas(f.with_name(rec.ptx), ptxas, rec.arch))
        if fresh != rec.kernels:
            bad.append(f"{f}: ptxas now reports {fresh}, the file has {rec.kernels}")
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m golden.report.registers",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("stems", nargs="*", help="only write/remove these kernel sources' "
                    "register files (default: all)")
    ap.add_argument("--exclude", nargs="+", default=[], metavar="STEM",
                    help="leave these kernel sources out of the table and the files")
    ap.add_argument("--hold", nargs="+", default=[], metavar="STEM",
                    help="table these kernel sources but write no register file for them")
    ap.add_argument("--table", type=Path, default=TABLE, help=f"table file (default {TABLE})")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; report register files that differ from ptxas's output")
    args = ap.parse_args(argv)
    try:
        ptxas = require_ptxas()
        if args.check:
            bad = check_files(ptxas)
            for b in bad:
                print(b)
            print(f"{len(bad)} register file(s) out of date" if bad else "register files up to date")
            return 1 if bad else 0
        known = {p.stem for p in KERNEL_DIR.glob("*.ptx")}
        unknown = [s for s in [*args.stems, *args.exclude, *args.hold] if s not in known]
        if unknown:
            raise SimtlabError(f"no kernel PTX for {', '.join(unknown)}; known: "
                               f"{', '.join(sorted(known))}")
        exclude = tuple(args.exclude)
        rows, version, problems = compare(exclude, ptxas,
                                          progress=lambda s: print(s, file=sys.stderr))
        hold = tuple(args.hold)
        args.table.write_text(format_table(rows, version, problems, exclude, hold),
                              encoding="utf-8")
        print(f"wrote {args.table}")
        for line in sync_files(rows, version, set(args.stems) or None, hold):
            print(line)
        for p in problems:
            print(f"warning: {p}")
        return 0
    except SimtlabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
