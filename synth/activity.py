"""Switching activity of a structure replaying a real-kernel trace, per operation type (issue 69, item 3).

The RTL (Amaranth) replays the trace's ops one per cycle in the Amaranth simulator, which
writes a VCD. :func:`toggle_counts` counts, for every bit of every signal, the 0/1
transitions that happen in the cycles of each operation type (a cycle's changes are those
after its clock edge up to the next edge: the inputs it applies and the registers its edge
writes). :func:`sta_activity_commands` turns the counts of the signals that exist in the osu018
netlist -- every input port, and every flip-flop whose Q net keeps its RTL name -- into
OpenSTA ``set_power_activity`` commands (transitions per cycle); OpenSTA propagates them
through the combinational cells. Flip-flops whose Q net Yosys renamed keep OpenSTA's
default activity; :class:`ActivityMap` says how many bits were matched.

What it is not: glitches are not counted (zero-delay RTL simulation, and OpenSTA's
propagation is probabilistic), duty cycles are left at 1/2, and internal nodes are
estimated from the matched sources, not simulated at gate level.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from .errors import SynthError

#: simulated clock period (s); only the ordering of the VCD's changes matters
SIM_PERIOD_S = 1e-8


def op_class(ops: Any) -> str:
    """The operation type of one cycle: its nonzero ``*_en`` / ``*_op`` / ``*_valid`` fields
    (``idle`` when none)."""
    active = [f"{f.name}={int(getattr(ops, f.name))}" if f.name.endswith("_op") else f.name
              for f in fields(ops) if re.search(r"(_en|_op|_valid|^valid|^en)$", f.name)
              and int(getattr(ops, f.name))]
    return "+".join(active) or "idle"


def record_vcd(dut: Any, ops_list: list, clocked: bool, vcd_path: Path) -> None:
    """Replay ``ops_list`` (one ops dataclass per cycle) on ``dut`` in the Amaranth simulator,
    writing every signal to ``vcd_path``. A combinational ``dut`` gets a dummy clock."""
    from amaranth.sim import Simulator

    from tb.darsie.amaranth_sim import Clocked

    top = dut if clocked else Clocked(dut)
    names = [f.name for f in fields(type(ops_list[0]))] if ops_list else []

    async def bench(ctx):
        for ops in ops_list:
            for n in names:
                ctx.set(getattr(dut, n), int(getattr(ops, n)))
            await ctx.tick()

    sim = Simulator(top)
    sim.add_clock(SIM_PERIOD_S)
    sim.add_testbench(bench)
    with open(vcd_path, "w") as vcd:
        with sim.write_vcd(vcd_file=vcd):
            sim.run()


@dataclass
class Toggles:
    """Per-bit transition counts of every VCD signal, split by operation type."""

    #: (signal path relative to the DUT, bit) -> op class -> transitions
    counts: dict[tuple[str, int], Counter]
    #: op class -> cycles
    cycles: Counter
    #: every signal path of the DUT in the VCD (a bit that never toggled has no counts entry)
    signals: frozenset = frozenset()


def _vcd_int(value: str) -> int | None:
    v = value.lower()
    return None if any(c in v for c in "xz") else int(v, 2)


def toggle_counts(vcd_path: Path, classes: list[str], dut_scope: tuple[str, ...],
                  clock_scope: tuple[str, ...] | None = None) -> Toggles:
    """Count transitions per bit in each cycle of the VCD; cycle ``k`` has class ``classes[k]``.

    ``dut_scope`` is the scope path of the DUT in the VCD (``("top",)``, or ``("top", "dut")``
    for a wrapped combinational DUT); signals outside it are ignored, the rest are named by
    their path below it joined with ``.`` (as Yosys names flattened submodule wires). The
    clock is ``clk`` of ``clock_scope`` (default: ``dut_scope``)."""
    clock_scope = dut_scope if clock_scope is None else clock_scope
    ids: dict[str, list[tuple[str, int]]] = defaultdict(list)   # code -> [(name, width)]
    scope: list[str] = []
    clock_code = None
    text = Path(vcd_path).read_text()
    header, _, body = text.partition("$enddefinitions")
    for m in re.finditer(r"\$scope\s+\w+\s+(\S+)\s+\$end|\$upscope\s+\$end|"
                         r"\$var\s+\w+\s+(\d+)\s+(\S+)\s+(\S+)(?:\s+\[[^\]]*\])?\s+\$end", header):
        if m.group(1) is not None:
            scope.append(m.group(1))
        elif m.group(2) is None:
            scope.pop()
        else:
            width, code, name = int(m.group(2)), m.group(3), m.group(4)
            if m.group(0).split()[1] in ("string", "real"):
                continue
            if tuple(scope) == clock_scope and name == "clk":
                clock_code = code
            if tuple(scope[:len(dut_scope)]) == dut_scope:
                path = ".".join(scope[len(dut_scope):] + [name])
                ids[code].append((path, width))
    if clock_code is None:
        raise SynthError(f"{vcd_path}: no clk signal in scope {'.'.join(clock_scope)!r}")
    counts: dict[tuple[str, int], Counter] = defaultdict(Counter)
    value: dict[str, int | None] = {}
    edges = -1                        # rising clock edges seen; cycle k starts after edge k-1
    cycle_class = "idle"
    for line in body.split("\n"):
        line = line.strip()
        if not line or line[0] in "#$":
            continue
        if line[0] in "sSrR":         # string (decoded enum) or real values: not wires
            continue
        if line[0] in "bB":
            raw, code = line[1:].split()
        else:
            raw, code = line[0], line[1:]
        new = _vcd_int(raw)
        if code == clock_code:
            if new == 1 and value.get(code) == 0:
                edges += 1
                cycle_class = classes[edges] if 0 <= edges < len(classes) else ""
            value[code] = new
            continue
        old = value.get(code)
        value[code] = new
        if old is None or new is None or not cycle_class or code not in ids:
            continue
        diff = old ^ new
        while diff:
            low = diff & -diff
            bit = low.bit_length() - 1
            for name, width in ids[code]:
                if bit < width:
                    counts[(name, bit)][cycle_class] += 1
            diff ^= low
    return Toggles(counts=counts, cycles=Counter(classes),
                   signals=frozenset(name for v in ids.values() for name, _ in v))


#: an instance: type (a cell, or an escaped submodule name such as ``\\top.bank0``), name, connections
_CELL_RE = re.compile(r"^\s*(\\?[\w.$]+)\s+(\S+)\s*\((.*?)\);", re.M | re.S)
_CONN_RE = re.compile(r"\.(\w+)\(\s*(.*?)\s*\)\s*(?:,|$)", re.S)
_MODULE_RE = re.compile(r"^module\s+(\S+)\s*\((.*?)\);(.*?)^endmodule", re.M | re.S)
_PORT_RE = re.compile(r"^\s*input\s+(?:\[(\d+):(\d+)\]\s+)?(\S+)\s*;", re.M)


def _net_key(net: str) -> tuple[str, int] | None:
    """``\\meta[0] [37]`` -> ("meta[0]", 37); ``valid`` -> ("valid", 0); ``_12_`` -> None."""
    net = net.strip()
    m = re.match(r"^\\?(\S+?)\s*(?:\[(\d+)\])?$", net)
    if not m or re.match(r"^_\d+_$", m.group(1)) or net.startswith(("1'", "0'")):
        return None
    return m.group(1).lstrip("\\"), int(m.group(2) or 0)


@dataclass(frozen=True)
class ActivityMap:
    """Where OpenSTA activities come from: matched input ports and flip-flop Q pins."""

    inputs: dict[str, tuple[str, int]]      # port bit (OpenSTA name) -> VCD key
    flops: dict[str, tuple[str, int]]       # Q pin path (OpenSTA name) -> VCD key
    flop_bits: int                          # flip-flops in the netlist

    @property
    def matched_flops(self) -> int:
        return len(self.flops)


def map_netlist(netlist: str, top: str, toggles: Toggles) -> ActivityMap:
    """Match the netlist's input ports and flip-flop Q nets with the VCD's signals by name.

    Flip-flops inside submodule instances (replicated banks) are named ``inst/cell/Q``, their
    nets ``inst.net`` on the VCD side."""
    modules = {m.group(1).lstrip("\\"): m.group(3) for m in _MODULE_RE.finditer(netlist)}
    if top not in modules:
        raise SynthError(f"netlist has no module {top}")
    inputs: dict[str, tuple[str, int]] = {}
    for m in _PORT_RE.finditer(modules[top]):
        name = m.group(3).lstrip("\\")
        if name in ("clk", "rst"):
            continue
        if m.group(1) is None:
            inputs[name] = (name, 0)
        else:
            hi, lo = int(m.group(1)), int(m.group(2))
            for b in range(min(hi, lo), max(hi, lo) + 1):
                inputs[f"{name}[{b}]"] = (name, b)
    flops: dict[str, tuple[str, int]] = {}
    total = 0

    def walk(module: str, prefix_pin: str, prefix_net: str) -> None:
        nonlocal total
        for cell, inst, conns in _CELL_RE.findall(modules[module]):
            cell = cell.lstrip("\\")
            if cell in ("module", "input", "output", "wire", "assign"):
                continue
            inst = inst.lstrip("\\")
            if cell in modules:
                walk(cell, f"{prefix_pin}{inst}/", f"{prefix_net}{inst}.")
                continue
            if not cell.startswith(("DFF", "LATCH")):
                continue
            total += 1
            q = dict(_CONN_RE.findall(conns)).get("Q")
            key = _net_key(q) if q else None
            if key is not None:
                vcd_key = (prefix_net + key[0], key[1])
                if vcd_key in toggles.counts or vcd_key[0] in toggles.signals:
                    flops[f"{prefix_pin}{inst}/Q"] = vcd_key
    walk(top, "", "")
    return ActivityMap(inputs=inputs, flops=flops, flop_bits=total)


def _tcl_name(name: str) -> str:
    return "{" + name + "}"


#: pseudo operation type of :func:`sta_activity_commands`: every source still (only the clock runs)
CLOCK_ONLY = "clock only"


def sta_activity_commands(amap: ActivityMap, toggles: Toggles, op: str | None) -> str:
    """OpenSTA commands setting each matched source's activity (transitions per cycle) in the
    cycles of operation type ``op`` (None: all cycles; :data:`CLOCK_ONLY`: every activity 0)."""
    cycles = (1 if op == CLOCK_ONLY else
              sum(toggles.cycles.values()) if op is None else toggles.cycles[op])
    if cycles == 0:
        raise SynthError(f"no cycles of operation type {op!r}")

    def rate(key: tuple[str, int]) -> float:
        if op == CLOCK_ONLY:
            return 0.0
        c = toggles.counts.get(key, Counter())
        n = sum(c.values()) if op is None else c[op]
        return n / cycles

    lines = [f"set_power_activity -input_ports [get_ports {_tcl_name(p)}] -activity {rate(k):.6g} -duty 0.5"
             for p, k in amap.inputs.items()]
    # the -pins branch of this OpenSTA's set_power_activity is broken (it calls an undefined
    # get_pins_error and only accepts input pins): set the Q pins' activity directly
    lines += [f"sta::set_power_pin_activity [get_pins {_tcl_name(p)}] {rate(k):.6g} 0.5"
              for p, k in amap.flops.items()]
    return "\n".join(lines) + "\n"
