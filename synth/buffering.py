"""Fanout buffering of a mapped netlist: the design rule ``max_capacitance`` (issue 69).

Yosys' ABC maps for area, so a net that fans out to hundreds of cells keeps the one small
cell that computes it as its only driver. On the 512-entry UV SRF map one such net drives
58.6 pF, 120x what its osu018 cell may drive: its transition (98.6 ns) lies far outside the
library's tables and OpenSTA's power report returns NaN.

**The rule.** A net is buffered when its load (the input pins it drives, plus the FO4 load of
an output port on it) exceeds the ``max_capacitance`` of its driver's output pin in the Liberty
file: the library's own design rule, which a sign-off flow repairs on every target. Such a net
keeps its driver, its name and its output ports; its cell inputs move onto a tree of
:attr:`BufferRule.cell` buffers (osu018 ``BUFX4``), each buffer driving at most
:attr:`BufferRule.tree_load_pf` (default: the largest load of the buffer's own delay table,
0.6 pF for ``BUFX4``, so every buffer is timed inside its characterised range), built level by
level until the driver's load is within its ``max_capacitance``. A net that meets the rule is
left alone, so a netlist without violations comes out unchanged, text for text.

Not buffered: nets driven by an input port (the flow's ports are ideal drivers with the FO4
slew; their load does not slow them in STA) or by a cell that is not in the library (an SRAM
black box, a shared submodule), and nets with more than one driver. The tree is grouped in
netlist order, not by placement (there is none): it is the logic a buffering pass adds, not a
placed, sized clock-tree-like optimum; gates are not resized.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import SynthError

#: buffer cell of the trees (osu018's strongest non-clock buffer)
DEFAULT_BUFFER_CELL = "BUFX4"


@dataclass(frozen=True)
class LibPin:
    """One pin of a Liberty cell: direction, input capacitance (pF), output max load (pF)."""

    direction: str
    capacitance: float = 0.0
    max_capacitance: float | None = None


@dataclass(frozen=True)
class LibCell:
    """A Liberty cell: its area and pins, and the largest load of its delay tables (pF)."""

    name: str
    area: float
    pins: dict[str, LibPin]
    table_max_load_pf: float | None = None


def _blocks(text: str, keyword: str):
    """(name, body) of every ``keyword (name) { ... }`` group at any depth of ``text``."""
    for m in re.finditer(rf"\b{keyword}\s*\(\s*\"?([^)\"]*)\"?\s*\)\s*{{", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            c = text[i]
            depth += (c == "{") - (c == "}")
            i += 1
        yield m.group(1).strip(), text[m.end():i - 1]


def _attr(body: str, name: str) -> str | None:
    m = re.search(rf"(?<!\w){name}\s*:\s*\"?([^;\"]+)\"?\s*;", body)
    return m.group(1).strip() if m else None


def parse_liberty_cells(liberty_text: str) -> dict[str, LibCell]:
    """Every cell of a Liberty file with its pins' directions and capacitances."""
    cells = {}
    for name, body in _blocks(liberty_text, "cell"):
        pins = {}
        for pin, pbody in _blocks(body, "pin"):
            own = re.sub(r"\{[^{}]*(\{[^{}]*\}[^{}]*)*\}", "", pbody)    # the pin's own attributes
            cap, mcap = _attr(own, "capacitance"), _attr(own, "max_capacitance")
            pins[pin] = LibPin(direction=_attr(own, "direction") or "",
                               capacitance=float(cap) if cap else 0.0,
                               max_capacitance=float(mcap) if mcap else None)
        loads = [float(x) for idx in re.findall(r"cell_rise\s*\([^)]*\)\s*{\s*index_1\s*\(\s*\"([^\"]+)\"",
                                                  body) for x in idx.split(",")]
        area = _attr(body, "area")
        cells[name] = LibCell(name, float(area) if area else 0.0, pins, max(loads) if loads else None)
    if not cells:
        raise SynthError("liberty: no cells found")
    return cells


@dataclass(frozen=True)
class BufferRule:
    """When and how nets are buffered (the rule is in the module docstring)."""

    cell: str = DEFAULT_BUFFER_CELL
    #: load one buffer of a tree may drive (pF); None: the largest load of its delay tables
    tree_load_pf: float | None = None
    #: load of an output port (pF), as STA's ``set_load`` puts on it
    port_load_pf: float = 0.0


@dataclass(frozen=True)
class BufferedNet:
    """One net the rule buffered: its name, driver, load before (pF) and the buffers added."""

    net: str
    driver: str
    load_pf: float
    limit_pf: float
    buffers: int
    levels: int


@dataclass(frozen=True)
class BufferResult:
    """The buffered netlist and what the pass did."""

    netlist: str
    cell: str
    tree_load_pf: float
    nets: tuple[BufferedNet, ...] = ()
    cell_area: float = 0.0

    @property
    def buffers(self) -> int:
        return sum(n.buffers for n in self.nets)

    @property
    def area_um2(self) -> float:
        """Area of the added buffers (library units, um^2)."""
        return self.buffers * self.cell_area

    def summary(self) -> dict:
        worst = max(self.nets, key=lambda n: n.load_pf, default=None)
        return {"rule": "load > driver max_capacitance", "cell": self.cell,
                "tree_load_pf": round(self.tree_load_pf, 4), "nets": len(self.nets),
                "buffers": self.buffers, "area_um2": round(self.area_um2, 1),
                "worst_net": None if worst is None else
                {"net": worst.net, "driver": worst.driver, "load_pf": round(worst.load_pf, 3),
                 "limit_pf": worst.limit_pf, "buffers": worst.buffers, "levels": worst.levels}}


_MODULE_RE = re.compile(r"^module\s+(\\?\S+?)\s*\(.*?\);\n(.*?)^endmodule", re.M | re.S)
_INSTANCE_RE = re.compile(r"^(\s*)(\\?[\w$]+)\s+(\\?\S+)\s*\(\s*\n((?:\s*\.\w+\(.*?\),?\s*\n)*?)\s*\);\n",
                          re.M)
_CONN_RE = re.compile(r"\.(\w+)\((.*?)\)\s*(?:,|$)", re.M)
_ASSIGN_RE = re.compile(r"^\s*assign\s+(\\\S+\s|[\w$]+(?:\[\d+\])?)\s*=\s*(\\\S+\s|[\w$]+(?:\[\d+\])?)\s*;",
                        re.M)
_OUTPUT_RE = re.compile(r"^\s*output\s+(?:\[(\d+):(\d+)\]\s*)?(\\\S+|[\w$]+)\s*;", re.M)


def _net(expr: str) -> str:
    """A connection's net key: the expression without padding (``\\a[3] `` -> ``\\a[3]``)."""
    return expr.strip()


def _ref(expr: str) -> str:
    """A connection expression to write back: an escaped name keeps its closing space."""
    s = expr.strip()
    return s + " " if s.startswith("\\") else s


def _is_const(expr: str) -> bool:
    return bool(re.match(r"^\d*'[bhdo]", expr.strip())) or expr.strip() == ""


class _Aliases:
    """Union-find of the nets joined by one-bit ``assign a = b;`` statements."""

    def __init__(self):
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        while self.parent.get(x, x) != x:
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _group(sinks: list[tuple[float, object]], limit: float) -> list[list[tuple[float, object]]]:
    """Sinks (cap, ref) in netlist order as contiguous groups, each filled up to ``limit``."""
    groups, cur, load = [], [], 0.0
    for cap, ref in sinks:
        if cur and load + cap > limit * (1 + 1e-9):
            groups.append(cur)
            cur, load = [], 0.0
        cur.append((cap, ref))
        load += cap
    if cur:
        groups.append(cur)
    return groups


def buffer_netlist(netlist: str, cells: dict[str, LibCell], rule: BufferRule = BufferRule()) -> BufferResult:
    """Apply the max_capacitance rule to every module of a Yosys ``write_verilog`` netlist."""
    buf = cells.get(rule.cell)
    if buf is None:
        raise SynthError(f"buffering: the buffer cell {rule.cell} is not in the liberty library")
    ins = [p for p, x in buf.pins.items() if x.direction == "input"]
    outs = [p for p, x in buf.pins.items() if x.direction == "output"]
    if len(ins) != 1 or len(outs) != 1:
        raise SynthError(f"buffering: {rule.cell} is not a one-input, one-output cell")
    tree_load = rule.tree_load_pf or buf.table_max_load_pf or buf.pins[outs[0]].max_capacitance
    if not tree_load or tree_load <= 2 * buf.pins[ins[0]].capacitance:
        raise SynthError(f"buffering: no usable load limit for the tree of {rule.cell}")
    taken = set(re.findall(r"simtlab_buf_(\d+)", netlist))
    counter = [max((int(t) for t in taken), default=-1) + 1]
    pieces, pos, nets = [], 0, []
    for m in _MODULE_RE.finditer(netlist):
        body_start, body_end = m.start(2), m.end(2)
        new_body, done = _buffer_module(m.group(2), cells, rule, buf.name, ins[0], outs[0],
                                        buf.pins[ins[0]].capacitance, tree_load, counter)
        pieces += [netlist[pos:body_start], new_body]
        pos = body_end
        nets += done
    pieces.append(netlist[pos:])
    return BufferResult(netlist="".join(pieces) if nets else netlist, cell=buf.name,
                        tree_load_pf=tree_load, nets=tuple(nets), cell_area=buf.area)


def _buffer_module(body: str, cells: dict[str, LibCell], rule: BufferRule, bcell: str, bin_: str,
                   bout: str, bcap: float, tree_load: float, counter: list[int]):
    instances = []        # [match, cell, name, {pin: expr}]
    for m in _INSTANCE_RE.finditer(body):
        conns = {p: e for p, e in _CONN_RE.findall(m.group(4))}
        instances.append([m, m.group(2), m.group(3), conns])
    alias = _Aliases()
    for a, b in _ASSIGN_RE.findall(body):
        if not _is_const(b):
            alias.union(_net(a), _net(b))
    port_bits = set()
    for hi, lo, name in _OUTPUT_RE.findall(body):
        if hi:
            port_bits |= {f"{name}[{i}]" for i in range(min(int(hi), int(lo)), max(int(hi), int(lo)) + 1)}
        else:
            port_bits.add(name)
    port_load: dict[str, float] = {}
    for bit in port_bits:
        root = alias.find(bit)
        port_load[root] = port_load.get(root, 0.0) + rule.port_load_pf
    drivers: dict[str, list[tuple[int, str]]] = {}
    sinks: dict[str, list[tuple[float, tuple[int, str]]]] = {}
    for k, (_, cell, _, conns) in enumerate(instances):
        lib = cells.get(cell)
        if lib is None:
            continue
        for pin, expr in conns.items():
            p = lib.pins.get(pin)
            if p is None or _is_const(expr):
                continue
            root = alias.find(_net(expr))
            if p.direction == "output":
                drivers.setdefault(root, []).append((k, pin))
            elif p.direction == "input":
                sinks.setdefault(root, []).append((p.capacitance, (k, pin)))
    added, done = [], []
    for root, drv in drivers.items():
        if len(drv) != 1:
            continue
        k, pin = drv[0]
        limit = cells[instances[k][1]].pins[pin].max_capacitance
        fixed = port_load.get(root, 0.0)
        level = sinks.get(root, [])
        load = fixed + sum(c for c, _ in level)
        if limit is None or load <= limit:
            continue
        src = _ref(instances[k][3][pin])
        n_buf, levels = 0, 0
        while fixed + sum(c for c, _ in level) > limit and len(level) > 1:
            nxt = []
            for group in _group(level, tree_load):
                n = counter[0]
                counter[0] += 1
                wire = f"simtlab_buf_{n}"
                for _, ref in group:
                    if isinstance(ref, tuple):
                        instances[ref[0]][3][ref[1]] = wire
                    else:
                        added[ref][1] = wire          # a buffer of the level below
                added.append([n, None])               # its input net is set by the level above
                nxt.append((bcap, len(added) - 1))
                n_buf += 1
            level = nxt
            levels += 1
        for _, ref in level:
            added[ref][1] = src
        done.append(BufferedNet(net=src.strip(), driver=instances[k][1], load_pf=load, limit_pf=limit,
                                buffers=n_buf, levels=levels))
    if not done:
        return body, []
    out, pos = [], 0
    for m, cell, name, conns in instances:
        new = (f"{m.group(1)}{cell} {name} (\n"
               + ",\n".join(f"    .{p}({e})" for p, e in conns.items()) + "\n  );\n")
        if new != m.group(0):
            out += [body[pos:m.start()], new]
            pos = m.end()
    out.append(body[pos:])
    out += [f"  wire simtlab_buf_{n};\n" for n, _ in added]
    out += [f"  {bcell} simtlab_bufi_{n} (\n    .{bin_}({src}),\n    .{bout}(simtlab_buf_{n})\n  );\n"
            for n, src in added]
    return "".join(out), done
