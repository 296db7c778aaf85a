"""Energy per access measured on real-kernel traces: ``python -m synth.trace_energy`` (issue 69, item 3).

For each structure with recorded real-kernel traces whose parameters equal a synthesis
target's -- the DARSIE structures (MM, DCT and HS on the pascal config, recorded by
:func:`tb.darsie.golden_traces.record_workload_traces`) and the structures whose cocotb bench
records real kernels (:data:`BENCH_TARGETS`: UV, WarpMan, CAPRI, the ILP scoreboard; the same
workloads and cycle counts as their ``*_kernel_traces_cocotb`` tests) and G-Scalar's compressor
and decompressor (register traces of the bank bench's kernels, :mod:`synth.gscalar_traces`) --
the trace's ops replay on the RTL in the Amaranth simulator (:mod:`synth.activity`), the switching activity of each operation type
is mapped onto the target's osu018 netlist (``build/synth/netlists/<target>.v``, written by
``make synth``; synthesised here only when missing) and OpenSTA's ``report_power`` gives the
dynamic energy of one cycle of that type (:func:`synth.sta.run_power`). Output:
``build/synth/trace_energy.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from golden.errors import SimtlabError

from . import gscalar_traces
from .activity import (CLOCK_ONLY, ActivityMap, Toggles, map_netlist, op_class, record_vcd,
                       sta_activity_commands, toggle_counts)
from .errors import SynthError
from .fileio import write_atomic
from .fo4 import fo4_of
from .liberty import Liberty
from .sta import PowerScenario, run_power
from .targets import DEFAULT_TARGETS, load_targets, select_targets

#: synthesis target -> DARSIE trace structure name
DARSIE_TARGETS = {
    "darsie_skip_table_32tb": "skip_table",
    "darsie_pc_coalescer_8": "pc_coalescer",
    "darsie_rename_table_1tb": "rename_table",
    "darsie_version_table_1tb": "version_table",
    "darsie_phys_freelist_1tb": "phys_freelist",
}
#: synthesis target -> (module, bench key or None for a module-level BENCH); the workloads and
#: cycles come from the module's REAL_TRACES (or TRACE_WORKLOADS / TRACE_CYCLES)
BENCH_TARGETS = {
    "uv_irb_8": ("tb.uv.benches", "uv_irb"),
    "uv_irb_8_parity": ("tb.uv.benches", "uv_irb"),
    "uv_irb_8_v64": ("tb.uv.benches", "uv_irb"),
    "uv_srf_map_512x128": ("tb.uv.benches", "uv_srf_map"),
    "uv_detect": ("tb.uv.benches", "uv_detect"),
    "warpman_wb": ("tb.warpman.benches", "warpman_wb"),
    "warpman_check": ("tb.warpman.benches", "warpman_check"),
    "capri_capt_8": ("tb.capri.benches", "capri_capt"),
    "capri_capt_32": ("tb.capri.benches", "capri_capt"),
    "capri_wcu": ("tb.capri.benches", "capri_wcu"),
    "ilp_scoreboard_8": ("tb.ilp.test_scoreboard", None),
}
#: every target with real-kernel traces (G-Scalar's blocks: register traces, synth/gscalar_traces.py)
ALL_TARGETS = (*DARSIE_TARGETS, *BENCH_TARGETS, *gscalar_traces.TARGETS)
#: operation types shown per structure (the most frequent); the rest are pooled as "other"
TOP_OPS = 4


@dataclass(frozen=True)
class TraceEnergy:
    """Energy per cycle of each operation type of one target, from one set of traces."""

    target: str
    structure: str
    workloads: tuple[str, ...]
    cycles: dict[str, int]
    power: dict[str, PowerScenario]
    flops_matched: int
    flop_bits: int
    inputs: int

    def to_dict(self) -> dict:
        return {"target": self.target, "structure": self.structure, "workloads": list(self.workloads),
                "cycles": self.cycles, "flops_matched": self.flops_matched, "flop_bits": self.flop_bits,
                "inputs": self.inputs,
                "energy_pj": {k: round(p.energy_pj, 4) for k, p in self.power.items()},
                "energy_above_clock_pj": {k: round(p.energy_pj - self.power[CLOCK_ONLY].energy_pj, 4)
                                          for k, p in self.power.items() if k != CLOCK_ONLY},
                "leakage_w": next(iter(self.power.values())).leakage_w if self.power else None}


def _merge(parts: list[Toggles]) -> Toggles:
    counts: dict = {}
    cycles: Counter = Counter()
    signals: set = set()
    for t in parts:
        for k, c in t.counts.items():
            counts.setdefault(k, Counter()).update(c)
        cycles.update(t.cycles)
        signals |= t.signals
    return Toggles(counts=counts, cycles=cycles, signals=frozenset(signals))


@dataclass(frozen=True)
class TraceSource:
    """How to get and replay one structure's real-kernel traces."""

    structure: str                 # trace ``structure`` key
    rtl: Any                       # params dataclass -> Amaranth component
    clocked: bool
    record: Any                    # (out_dir, cycles) -> [trace files]
    load: Any = None               # trace file -> Trace (None: a JSON-lines structure trace)
    classify: Any = None           # ops -> operation type (None: activity.op_class)


def trace_source(target: str) -> TraceSource:
    """The trace source of a target of :data:`DARSIE_TARGETS` or :data:`BENCH_TARGETS`."""
    import importlib

    if target in gscalar_traces.TARGETS:
        from rtl.gscalar.compressor import Compressor
        from rtl.gscalar.decompressor import Decompressor
        structure = gscalar_traces.TARGETS[target]
        comp = structure == "gscalar_compressor"
        block = Compressor if comp else Decompressor
        op = "compress" if comp else "decompress"   # every cycle of the trace is one access
        return TraceSource(structure, lambda p: block(lanes=p.lanes, groups=p.groups), False,
                           lambda out, cycles: gscalar_traces.record(out),
                           load=lambda path: gscalar_traces.load(path, structure),
                           classify=lambda ops: op)
    if target in DARSIE_TARGETS:
        from tb.darsie.benches import BENCHES
        from tb.darsie.golden_traces import WORKLOADS, record_workload_traces
        b = BENCHES[DARSIE_TARGETS[target]]

        def record(out: Path, cycles: int) -> list[Path]:
            return [f for w in WORKLOADS for f in record_workload_traces(w, out / "darsie", max_cycles=cycles)]
        return TraceSource(b.name, b.rtl, b.clocked, record)
    if target not in BENCH_TARGETS:
        raise SynthError(f"no real-kernel traces for target {target!r} "
                         f"(known: {', '.join(ALL_TARGETS)})")
    module, key = BENCH_TARGETS[target]
    mod = importlib.import_module(module)
    b = mod.BENCH if key is None else mod.BENCHES[key]
    workloads, cycles_default = ((mod.TRACE_WORKLOADS, mod.TRACE_CYCLES) if key is None
                                 else mod.REAL_TRACES[key])

    def record_bench(out: Path, cycles: int) -> list[Path]:
        paths = []
        for w in workloads:
            path = out / b.name / f"{w}_{cycles_default}.jsonl"
            if not path.is_file():
                path.parent.mkdir(parents=True, exist_ok=True)
                b.record_trace(w, path, max_cycles=cycles_default)
            paths.append(path)
        return paths
    return TraceSource(b.name, lambda params: b.rtl(**asdict(params)), not b.comb, record_bench)


def trace_energy(target: str, netlist: str, trace_files: list[Path], liberty: Liberty,
                 max_cycles: int = 2000, source: TraceSource | None = None) -> TraceEnergy:
    """Replay ``trace_files`` (one structure, the target's parameters) and price each op type."""
    from golden.structures.trace import read_trace

    bench = source or trace_source(target)
    structure = bench.structure
    (tgt,) = select_targets(load_targets(str(DEFAULT_TARGETS)), [target])
    parts, workloads, other_params = [], set(), set()
    with tempfile.TemporaryDirectory(prefix="simtlab-vcd-") as tmp:
        for i, path in enumerate(trace_files):
            tr = bench.load(path) if bench.load else read_trace(path)
            if tr.structure != structure:
                continue
            if asdict(tr.params) != {**asdict(tr.params), **tgt.params}:
                other_params.add(json.dumps(asdict(tr.params), sort_keys=True))
                continue                  # recorded at other sizes than the synthesised target
            ops = [o for o, _ in tr.cycles][:max_cycles]
            if not ops:
                continue
            classes = [(bench.classify or op_class)(o) for o in ops]
            vcd = Path(tmp) / f"{i}.vcd"
            record_vcd(bench.rtl(tr.params), ops, bench.clocked, vcd)
            # amaranth.sim's VCD: scope "bench", the simulated top "top", a wrapped DUT "top.dut"
            scope = ("bench", "top") if bench.clocked else ("bench", "top", "dut")
            parts.append(toggle_counts(vcd, classes, scope, ("bench", "top")))
            vcd.unlink()
            workloads.add(str(tr.meta.get("workload", "?")))
    if not parts:
        why = (f"the traces have parameters {' or '.join(sorted(other_params))}, the target {tgt.params}"
               if other_params else f"no {structure} traces among {len(trace_files)} files")
        raise SynthError(f"{target}: no trace at the target's parameters: {why}")
    toggles = _merge(parts)
    common = [c for c, _ in toggles.cycles.most_common(TOP_OPS)]
    rest = sum(n for c, n in toggles.cycles.items() if c not in common)
    if rest:   # pool the rare op types
        toggles = Toggles(counts={k: Counter({(c if c in common else "other"): n for c, n in v.items()})
                                  for k, v in toggles.counts.items()},
                          cycles=Counter({**{c: toggles.cycles[c] for c in common}, "other": rest}),
                          signals=toggles.signals)
    amap = map_netlist(netlist, target, toggles)
    scenarios = {"all": sta_activity_commands(amap, toggles, None)}
    scenarios.update({c: sta_activity_commands(amap, toggles, c) for c in toggles.cycles})
    scenarios[CLOCK_ONLY] = sta_activity_commands(amap, toggles, CLOCK_ONLY)
    fo4 = fo4_of(liberty.text())
    power = run_power(netlist, target, liberty.path, fo4, scenarios, label=f"{target} trace power")
    return TraceEnergy(target=target, structure=structure, workloads=tuple(sorted(workloads)),
                       cycles={"all": sum(toggles.cycles.values()), **dict(toggles.cycles)},
                       power=power, flops_matched=amap.matched_flops, flop_bits=amap.flop_bits,
                       inputs=len(amap.inputs))


def render_markdown(results: list[TraceEnergy], skipped: list[str] = ()) -> str:
    lines = ["# Energy per access on real-kernel traces (osu018, OpenSTA)", "",
             "Generated by `python -m synth.trace_energy` (docs/timing-energy.md). Each row: the cycles of one "
             "operation type of the trace replayed on the RTL (Amaranth simulator), their toggle rates set on "
             "the netlist's input ports and the flip-flops whose Q net keeps its RTL name, OpenSTA propagating "
             "the rest; dynamic energy of one cycle at 1.8 V, 180 nm (clock tree of the flip-flops included).",
             f"'above clock' subtracts the '{CLOCK_ONLY}' row (every input and flip-flop still, the ungated "
             "clock of the flip-flops running): the energy the access itself adds.",
             "", "| target | workloads | operation type | cycles | pJ/cycle (180 nm) | pJ above clock "
             "| flip-flops matched |", "|---|---|---|--:|--:|--:|--:|"]
    for r in results:
        idle = r.power.get(CLOCK_ONLY)
        for op, p in r.power.items():
            above = "-" if idle is None or op == CLOCK_ONLY else f"{p.energy_pj - idle.energy_pj:,.2f}"
            lines.append(f"| {r.target} | {', '.join(r.workloads)} | {op} | {r.cycles.get(op, 0):,} "
                         f"| {p.energy_pj:,.2f} | {above} | {r.flops_matched:,} / {r.flop_bits:,} |")
    if skipped:
        lines += ["", "Not measured:", ""] + [f"- {s}" for s in skipped]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m synth.trace_energy", description=__doc__.split("\n")[0])
    parser.add_argument("--traces", default="build/power/traces",
                        help="trace folder (recorded here when missing)")
    parser.add_argument("--netlists", default="build/synth/netlists", help="netlists of `make synth`")
    parser.add_argument("--out", default="build/synth", help="output folder")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these targets")
    parser.add_argument("--cycles", type=int, default=2000, help="cycles replayed per trace file")
    args = parser.parse_args(argv)
    try:
        liberty = Liberty.find()
        results, skipped = [], []
        for target in args.only or ALL_TARGETS:
            path = Path(args.netlists) / f"{target}.v"
            if not path.is_file():
                raise SynthError(f"{path} missing: run `make synth` first")
            try:
                src = trace_source(target)
                files = src.record(Path(args.traces), args.cycles)
                r = trace_energy(target, path.read_text(), files, liberty, args.cycles, src)
            except SynthError as exc:
                if args.only:
                    raise
                print(f"skipped: {exc}")
                skipped.append(str(exc))
                continue
            print(f"{target}: " + ", ".join(f"{k} {p.energy_pj:.2f} pJ" for k, p in r.power.items())
                  + f" (flip-flops matched {r.flops_matched}/{r.flop_bits})")
            results.append(r)
        out = Path(args.out)
        write_atomic(out / "trace_energy.md", render_markdown(results, skipped))
        write_atomic(out / "trace_energy.json",
                     json.dumps({r.target: r.to_dict() for r in results}, indent=2) + "\n")
    except (SimtlabError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
