"""The committed table of RTL-measured energies per access: ``python -m synth.energy_table`` (issue 69, item 3).

Reads what ``make synth`` (``build/synth/area.json``: the activity-assumed energy of one
access of every target, its paper's GPU and node) and ``make synth-energy``
(``build/synth/trace_energy.json``: the energy of each operation type on real-kernel traces)
measured, and writes ``golden/timing/rtl_energy.yaml``: per target, its energies at 180 nm
(osu018), where each comes from (tool versions, traces, clock) and the rule that scales them
to the papers' nodes. Its provenance is machine-independent: the inputs by their paths
relative to the repository with their SHA-256, the command line that read them, and
``regenerate: make synth-energy``; an input outside the repository is refused. The timing model's option ``energy.structures: rtl``
(:mod:`golden.timing.rtl_energy`) reads that file, so a user without OpenSTA charges the
same numbers. Every number in the file is copied from the two JSON files; none is typed in.

Per-access energy of a traced operation type = the type's dynamic energy of one cycle minus
the ``clock only`` cycle (every input and flip-flop still): the access's own energy, without
the ungated clock of the flip-flops (a design that clock-gates an idle structure does not pay
it per access). The activity-assumed energy (every input toggling with probability 1/2)
includes the clock of a clocked structure; it is a stress figure, kept for the structures
with no trace at the synthesised parameters.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import yaml

from golden.errors import SimtlabError

from .activity import CLOCK_ONLY, SIM_PERIOD_S
from .errors import SynthError
from .fileio import write_atomic

#: the repository's root: the table names its inputs relative to it
REPO = Path(__file__).resolve().parent.parent
#: where the timing model finds the table (inside the golden package: installed with it)
DEFAULT_OUT = REPO / "golden" / "timing" / "rtl_energy.yaml"
FORMAT = "simtlab-rtl-energy/1"
#: the one command that re-measures everything and rewrites the committed table
REGENERATE = "make synth-energy"

#: first-order scaling of a switching energy from osu018 (180 nm, 1.8 V) to a paper's node:
#: switched capacitance ~ drawn length, energy ~ C V^2 (docs/timing-energy.md, "Energy method")
MEASURED_NODE_NM = 180.0
MEASURED_VDD_V = 1.8
NODE_VDD_V = {40: 1.0, 16: 1.0}
SCALING = {
    "rule": "E(node) = E(180 nm) x (node_nm / 180) x (vdd(node) / 1.8 V)^2",
    "measured_node_nm": MEASURED_NODE_NM,
    "measured_vdd_v": MEASURED_VDD_V,
    "vdd_v": NODE_VDD_V,
    "source": ("assumption (docs/timing-energy.md, Energy method): switched capacitance scales "
               "with the drawn length, energy with C V^2; 1.0 V at 40 nm and at 16 nm "
               "(16 nm FinFET is not a 16 nm drawn gate: a rough rule). The area flow scales "
               "by the same ideal-shrink assumption ((40 / node)^2 for area)."),
}


def _tool_versions(area: dict) -> dict:
    def run(cmd: list[str]) -> str:
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            return (out.stdout or out.stderr).strip().splitlines()[0]
        except (OSError, subprocess.SubprocessError, IndexError):
            return "unknown"
    try:
        import amaranth
        amaranth_v = amaranth.__version__
    except ImportError:
        amaranth_v = "unknown"
    liberty = area.get("liberty", {})
    return {"opensta": f"sta {run(['sta', '-version'])}",
            "yosys": "; ".join(yosys_version(v) for v in area.get("yosys", [])) or "unknown",
            "amaranth": amaranth_v,
            "liberty": f"{Path(liberty.get('file', '?')).name} (typical corner, 1.8 V, 25 C), "
                       f"{liberty.get('node_nm', MEASURED_NODE_NM):g} nm"}


def yosys_version(banner: str) -> str:
    """``Yosys 0.70 (git sha1 28ba3cb92)`` from Yosys's ``-V`` banner, without the compiler
    line (its path is the build machine's, not a property of the tool)."""
    m = re.match(r"\s*(Yosys \S+)(?: \((git sha1 [0-9a-f]+))?", banner)
    if not m:
        return banner.strip()
    return f"{m[1]} ({m[2]})" if m[2] else m[1]


def input_record(path: str | Path, root: Path | None = None) -> dict:
    """One measurement file as the table records it: its path relative to the repository
    (``build/synth/area.json``) and the SHA-256 of its content. A file outside the
    repository is refused: a /tmp or home path is machine-specific and nobody else can
    regenerate the table from it (``make synth-energy`` writes everything under build/)."""
    root = REPO if root is None else root
    p = Path(path)
    full = (p if p.is_absolute() else Path.cwd() / p).resolve()
    try:
        rel = full.relative_to(root.resolve())
    except ValueError:
        raise SynthError(f"input {path} is outside the repository ({root}); the table records "
                         f"only repository-relative inputs: measure with `{REGENERATE}` "
                         "(it writes build/synth/)") from None
    try:
        digest = hashlib.sha256(full.read_bytes()).hexdigest()
    except OSError as exc:
        raise SynthError(f"cannot read the measurements: {exc}") from exc
    return {"path": rel.as_posix(), "sha256": digest}


def _measured(x) -> bool:
    """A number OpenSTA actually gave (not None, not the NaN of a failed power report)."""
    return isinstance(x, (int, float)) and math.isfinite(x)


def _r(x: float) -> float:
    return float(f"{x:.6g}")


def merge_areas(areas: list[dict]) -> dict:
    """One ``area.json`` from several runs of the same flow (targets merged in order; the
    tool fields of the first). Runs of different flows or Yosys versions are refused."""
    if not areas:
        raise SynthError("no area.json given")
    first = areas[0]
    merged = {**first, "targets": {}}
    for a in areas:
        if a.get("flow") != first.get("flow") or a.get("yosys") != first.get("yosys"):
            raise SynthError("area.json files of different flows or Yosys versions cannot be merged")
        merged["targets"].update(a.get("targets", {}))
    return merged


def build_table(area: dict, traces: dict, generated: str | None = None,
                inputs: list[dict] = (), command: str | None = None) -> dict:
    """The table as a plain dict, from ``area.json`` and ``trace_energy.json`` contents.

    ``inputs``: :func:`input_record` of each file read; ``command``: the command line that
    wrote the table from them (repository-relative paths)."""
    rows = {}
    for name, t in sorted(area.get("targets", {}).items()):
        sta = t.get("sta") or {}
        budget = t.get("cycle_budget") or {}
        if not _measured(sta.get("energy_pj")):
            continue            # no STA, or OpenSTA's report_power failed (NaN: the SRF map)
        row = {"component": t.get("component"), "params": t.get("params", {}),
               "paper_gpu": budget.get("gpu"), "paper_node_nm": budget.get("node_nm"),
               "leakage_w_180nm": sta["leakage_w"] if _measured(sta.get("leakage_w")) else None,
               "activity_assumed": {"pj": _r(sta["energy_pj"]),
                                    "activity": sta.get("activity"),
                                    "clock_period_ns": sta.get("period_ns")}}
        tr = traces.get(name)
        if tr is not None:
            above = tr.get("energy_above_clock_pj", {})
            row["trace"] = {
                "workloads": list(tr.get("workloads", [])),
                "cycles": tr.get("cycles", {}).get("all"),
                "flip_flops_matched": f"{tr.get('flops_matched')} / {tr.get('flop_bits')}",
                "clock_only_pj": _r(tr.get("energy_pj", {}).get(CLOCK_ONLY, 0.0)),
                "ops": {op: {"pj": _r(max(0.0, pj)), "cycles": tr.get("cycles", {}).get(op)}
                        for op, pj in above.items() if op != "all"},
            }
        rows[name] = row
    missing = sorted(set(traces) - set(rows))
    if missing:
        raise SynthError(f"trace energies for targets not in area.json: {', '.join(missing)} "
                         "(run `make synth` and `make synth-energy` together)")
    if not rows:
        raise SynthError("area.json has no energy per access (was OpenSTA installed for `make synth`?)")
    return {
        "format": FORMAT,
        "regenerate": REGENERATE,
        "generated_by": command or "python -m synth.energy_table",
        "inputs": list(inputs),
        "generated": generated or datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "tools": _tool_versions(area),
        "method": {
            "trace": ("per operation type: dynamic energy of one cycle of that type minus the "
                      "'clock only' cycle (the ungated flip-flop clock), pJ at 180 nm; the trace's "
                      "ops replayed on the RTL in the Amaranth simulator (period "
                      f"{SIM_PERIOD_S * 1e9:g} ns, only the order of changes matters), per-bit "
                      "toggle rates set on the netlist's inputs and matched flip-flops, OpenSTA "
                      "report_power propagating them (synth/trace_energy.py)"),
            "activity_assumed": ("every input toggling with probability 1/2 each cycle, OpenSTA "
                                 "report_power, energy = dynamic power x clock period; pJ at "
                                 "180 nm, clock included (synth/sta.py)"),
            "traces": ("DARSIE: MM, DCT, HS on the pascal config (tb/darsie/golden_traces.py), "
                       "first 2,000 cycles of each file; G-Scalar's compressor and decompressor: "
                       "the register writes and reads of the bank bench's kernels (BFS, HS, NQU, "
                       "MM; synth/gscalar_traces.py); the others: the workloads and cycles of "
                       "their *_kernel_traces_cocotb benches (synth/trace_energy.py)"),
        },
        "scaling": SCALING,
        "targets": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m synth.energy_table",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--area", nargs="+", default=["build/synth/area.json"],
                        help="area.json of `make synth` (several: merged, a later file's "
                             "target replaces an earlier one's)")
    parser.add_argument("--traces", nargs="+", default=["build/synth/trace_energy.json"],
                        help="trace_energy.json of `make synth-energy` (several: merged)")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="table to write")
    args = parser.parse_args(argv)
    try:
        try:
            areas = [json.loads(Path(a).read_text()) for a in args.area]
            traces = {}
            for t in args.traces:
                traces.update(json.loads(Path(t).read_text()))
        except (OSError, json.JSONDecodeError) as exc:
            raise SynthError(f"cannot read the measurements: {exc}") from exc
        area = merge_areas(areas)
        records = [input_record(p) for p in [*args.area, *args.traces]]
        command = ("python -m synth.energy_table"
                   f" --area {' '.join(r['path'] for r in records[:len(args.area)])}"
                   f" --traces {' '.join(r['path'] for r in records[len(args.area):])}")
        table = build_table(area, traces, inputs=records, command=command)
        header = ("# RTL-measured energy per access of the simulated structures (issue 69, item 3).\n"
                  "# Written by `python -m synth.energy_table` (the last step of `make synth-energy`)\n"
                  "# from the inputs listed below: do not edit by hand. Read by\n"
                  "# golden/timing/rtl_energy.py for the option energy.structures: rtl.\n")
        write_atomic(Path(args.out), header + yaml.safe_dump(table, sort_keys=False, width=100))
        n_tr = sum("trace" in r for r in table["targets"].values())
        print(f"wrote {args.out}: {len(table['targets'])} targets, {n_tr} with trace energies")
    except (SimtlabError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
