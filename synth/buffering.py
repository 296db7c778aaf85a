"""Fanout buffering of a mapped netlist: the design rule ``max_capacitance`` (issue 69).

Yosys' ABC maps for area, so a net that fans out to hundreds of cells keeps the one small
cell that computes it as its only driver. On the 512-entry UV SRF map one such net drives
58.6 pF, 120x what its osu018 cell may drive: its transition (98.6 ns) lies far outside the
library's tables, and both its delay (236 ns critical path) and the cells' internal power
are extrapolations.

**The rule.** A net is buffered when its load (the input pins it drives -- for an input bit
of a shared submodule, what that bit drives inside -- plus the FO4 load of an output port on
it) exceeds the ``max_capacitance`` of its driver's output pin in the Liberty
file: the library's own design rule, which a sign-off flow repairs on every target. Such a net
keeps its driver, its name and its output ports; its cell inputs move onto a tree of
:attr:`BufferRule.cell` buffers (osu018 ``BUFX4``), each buffer driving at most
:attr:`BufferRule.tree_load_pf` (default: the largest load of the buffer's own delay table,
0.6 pF for ``BUFX4``, so every buffer is timed inside its characterised range), built level by
level until the driver's load is within its ``max_capacitance``. A net that meets the rule is
left alone, so a netlist without violations comes out unchanged, text for text.

Not buffered: nets driven by an input port (the flow's ports are ideal drivers with the FO4
slew; their load does not slow them in STA) or by a cell that is not in the library (an SRAM
black box, a shared submodule's output), and nets with more than one driver; the load a
shared submodule's output port sees in its parent is not added to the nets inside. The tree is grouped in
netlist order, not by placement (there is none): it is the logic a buffering pass adds, not a
placed, sized clock-tree-like optimum; gates are not resized.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

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
    buffers: int                    # per instance of its module
    levels: int
    module: str = ""
    instances: int = 1              # times its module occurs in the design


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
        return sum(n.buffers * n.instances for n in self.nets)

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


_MODULE_RE = re.compile(r"^module\s+(\\\S+|[\w$]+)\s*\(.*?\);\n(.*?)^endmodule", re.M | re.S)
_PIN = r"(?:\\\S+\s+|\w+)"
_INSTANCE_RE = re.compile(r"^(\s*)(\\\S+|[\w$]+)\s+(\\\S+|[\w$]+)\s*\(\s*\n((?:\s*\." + _PIN
                          + r"\(.*?\),?\s*\n)*?)\s*\);\n", re.M)
_CONN_RE = re.compile(r"\.(" + _PIN + r")\((.*?)\)\s*(?:,|$)", re.M)
_ASSIGN_RE = re.compile(r"^\s*assign\s+(\\\S+\s|[\w$]+(?:\[\d+\])?)\s*=\s*(\\\S+\s|[\w$]+(?:\[\d+\])?)\s*;",
                        re.M)
_DECL_RE = re.compile(r"^\s*(input|output|inout|wire)\s+(?:\[(\d+):(\d+)\]\s*)?(\\\S+|[\w$]+)\s*;", re.M)


def _net(expr: str) -> str:
    """A connection's net key: the expression without padding, ``\\a [3]`` as ``\\a[3]``."""
    return re.sub(r"\s+\[", "[", expr.strip())


def _bit(name: str, i: int) -> str:
    """Bit ``i`` of the bus ``name`` as Verilog (an escaped name needs its space)."""
    return f"{name} [{i}]" if name.startswith("\\") else f"{name}[{i}]"


def _range_bits(name: str, hi: int, lo: int) -> list[str]:
    step = -1 if hi >= lo else 1
    return [_bit(name, i) for i in range(hi, lo + step, step)]


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


@dataclass
class _Module:
    """One module of the netlist: its instances ([match, type, name, {pin: expr}]), the nets
    joined by assigns, its declarations (name -> (kind, hi, lo) or (kind, None, None))."""

    name: str
    body: str
    instances: list
    alias: _Aliases
    decls: dict

    def port_bits(self, kind: str) -> list[tuple[str, list[str]]]:
        """(port, its bits MSB first) of every port of ``kind`` (input / output)."""
        return [(n, _range_bits(n, hi, lo) if hi is not None else [n])
                for n, (k, hi, lo) in self.decls.items() if k == kind]

    def expand(self, expr: str) -> list[str] | None:
        """A connection expression as one-bit expressions, MSB first; None when not understood."""
        e = expr.strip()
        parts = [p.strip() for p in e[1:-1].split(",")] if e.startswith("{") and e.endswith("}") else [e]
        bits: list[str] = []
        for p in parts:
            m = re.match(r"^(\\\S+|[\w$]+)\s*\[(\d+):(\d+)\]$", p)
            if m:
                bits += _range_bits(m.group(1), int(m.group(2)), int(m.group(3)))
            elif p in self.decls and self.decls[p][1] is not None:
                _, hi, lo = self.decls[p]
                bits += _range_bits(p, hi, lo)
            elif re.match(r"^\d+'", p):
                m = re.match(r"^(\d+)'[bhd]", p)
                if not m:
                    return None
                bits += [p] * int(m.group(1))      # constants: never a sink, width only
            else:
                bits.append(p)
        return bits


def _parse_module(name: str, body: str) -> _Module:
    instances = [[m, m.group(2), m.group(3), {p.strip(): e for p, e in _CONN_RE.findall(m.group(4))}]
                 for m in _INSTANCE_RE.finditer(body)]
    alias = _Aliases()
    for a, b in _ASSIGN_RE.findall(body):
        if not _is_const(b):
            alias.union(_net(a), _net(b))
    decls = {}
    for kind, hi, lo, n in _DECL_RE.findall(body):
        if kind != "wire" or n not in decls:
            decls[n] = (kind, int(hi) if hi else None, int(lo) if lo else None)
    return _Module(name, body, instances, alias, decls)


def _sinks(mod: _Module, modules: dict, cells: dict[str, LibCell], memo: dict) -> dict:
    """Alias root -> [(cap, ref)] of every cell input and every submodule input bit of ``mod``;
    ref = (k, pin) for a cell pin, (k, pin, j) for bit j of a submodule's port."""
    out: dict[str, list] = {}
    for k, (_, cell, _, conns) in enumerate(mod.instances):
        lib = cells.get(cell)
        if lib is not None:
            for pin, expr in conns.items():
                p = lib.pins.get(pin)
                if p is not None and p.direction == "input" and not _is_const(expr):
                    out.setdefault(mod.alias.find(_net(expr)), []).append((p.capacitance, (k, pin)))
            continue
        child = modules.get(cell.strip())
        if child is None:                   # a black box (SRAM macro): no known load
            continue
        loads = _input_loads(child, modules, cells, memo)
        ports = dict(child.port_bits("input"))
        for pin, expr in conns.items():
            if pin not in ports:
                continue
            bits = mod.expand(expr)
            if bits is None or len(bits) != len(ports[pin]):
                continue
            for j, (outer, inner) in enumerate(zip(bits, ports[pin])):
                cap = loads.get(_net(inner), 0.0)
                if cap > 0 and not _is_const(outer):
                    out.setdefault(mod.alias.find(_net(outer)), []).append((cap, (k, pin, j)))
    return out


def _input_loads(mod: _Module, modules: dict, cells: dict[str, LibCell], memo: dict) -> dict[str, float]:
    """Input port bit -> the load it drives inside ``mod`` (its cells and submodules), pF."""
    if mod.name not in memo:
        memo[mod.name] = {}                 # a recursive instantiation counts as no load
        sinks = _sinks(mod, modules, cells, memo)
        memo[mod.name] = {_net(b): sum(c for c, _ in sinks.get(mod.alias.find(_net(b)), []))
                          for _, bits in mod.port_bits("input") for b in bits}
    return memo[mod.name]


def _multiplicity(modules: dict[str, _Module]) -> dict[str, int]:
    """How many times each module occurs under the top (the module nobody instantiates)."""
    uses = {n: [(i[1].strip()) for i in m.instances if i[1].strip() in modules] for n, m in modules.items()}
    children = {c for cs in uses.values() for c in cs}
    count = {n: 0 for n in modules}

    def visit(n: str, times: int, depth: int = 0) -> None:
        count[n] += times
        if depth < 50:
            for c in uses[n]:
                visit(c, times, depth + 1)
    for top in [n for n in modules if n not in children]:
        visit(top, 1)
    return {n: max(1, c) for n, c in count.items()}


def buffer_netlist(netlist: str, cells: dict[str, LibCell], rule: BufferRule = BufferRule()) -> BufferResult:
    """Apply the max_capacitance rule to every module of a Yosys ``write_verilog`` netlist.

    A submodule's input bit loads its driver in the parent by what it drives inside (the
    ``sram_*`` black boxes count as no load); a tree in a module instantiated n times is
    counted n times in :attr:`BufferResult.buffers` and the area."""
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
    matches = list(_MODULE_RE.finditer(netlist))
    modules = {m.group(1).strip(): _parse_module(m.group(1).strip(), m.group(2)) for m in matches}
    times = _multiplicity(modules)
    memo: dict = {}
    taken = set(re.findall(r"simtlab_buf_(\d+)", netlist))
    counter = [max((int(t) for t in taken), default=-1) + 1]
    pieces, pos, nets = [], 0, []
    for m in matches:
        mod = modules[m.group(1).strip()]
        new_body, done = _buffer_module(mod, modules, cells, memo, rule, buf.name, ins[0], outs[0],
                                        buf.pins[ins[0]].capacitance, tree_load, counter)
        pieces += [netlist[pos:m.start(2)], new_body]
        pos = m.end(2)
        nets += [dataclasses.replace(n, instances=times[mod.name]) for n in done]
    pieces.append(netlist[pos:])
    return BufferResult(netlist="".join(pieces) if nets else netlist, cell=buf.name,
                        tree_load_pf=tree_load, nets=tuple(nets), cell_area=buf.area)


def _buffer_module(mod: _Module, modules: dict, cells: dict[str, LibCell], memo: dict, rule: BufferRule,
                   bcell: str, bin_: str, bout: str, bcap: float, tree_load: float, counter: list[int]):
    instances = mod.instances
    port_load: dict[str, float] = {}
    for _, bits in mod.port_bits("output"):
        for b in bits:
            root = mod.alias.find(_net(b))
            port_load[root] = port_load.get(root, 0.0) + rule.port_load_pf
    drivers: dict[str, list[tuple[int, str]]] = {}
    for k, (_, cell, _, conns) in enumerate(instances):
        lib = cells.get(cell)
        for pin, expr in (conns.items() if lib is not None else ()):
            p = lib.pins.get(pin)
            if p is not None and p.direction == "output" and not _is_const(expr):
                drivers.setdefault(mod.alias.find(_net(expr)), []).append((k, pin))
    sinks = _sinks(mod, modules, cells, memo)
    added, done, touched, bitlists = [], [], set(), {}
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
                    if isinstance(ref, int):
                        added[ref][1] = wire          # a buffer of the level below
                    elif len(ref) == 2:
                        instances[ref[0]][3][ref[1]] = wire
                        touched.add(ref[0])
                    else:
                        key = (ref[0], ref[1])
                        if key not in bitlists:
                            bitlists[key] = mod.expand(instances[ref[0]][3][ref[1]])
                        bitlists[key][ref[2]] = wire
                        touched.add(ref[0])
                added.append([n, None])               # its input net is set by the level above
                nxt.append((bcap, len(added) - 1))
                n_buf += 1
            level = nxt
            levels += 1
        for _, ref in level:
            added[ref][1] = src
        done.append(BufferedNet(net=src.strip(), driver=instances[k][1], load_pf=load, limit_pf=limit,
                                buffers=n_buf, levels=levels, module=mod.name))
    if not done:
        return mod.body, []
    for (k, pin), bits in bitlists.items():
        instances[k][3][pin] = "{ " + ", ".join(_ref(b) for b in bits) + " }"
    body, out, pos = mod.body, [], 0
    for k in sorted(touched):
        m, cell, name, conns = instances[k]
        new = (f"{m.group(1)}{_ref(cell)}{'' if cell.startswith(chr(92)) else ' '}{name} (\n"
               + ",\n".join(f"    .{_ref(p)}({e})" for p, e in conns.items()) + "\n  );\n")
        out += [body[pos:m.start()], new]
        pos = m.end()
    out.append(body[pos:])
    out += [f"  wire simtlab_buf_{n};\n" for n, _ in added]
    out += [f"  {bcell} simtlab_bufi_{n} (\n    .{bin_}({src}),\n    .{bout}(simtlab_buf_{n})\n  );\n"
            for n, src in added]
    return "".join(out), done
