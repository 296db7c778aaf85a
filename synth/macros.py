"""SRAM macro prices for the memories the area flow keeps as black boxes.

The liberty flow (:mod:`synth.liberty`) leaves every synchronous-read memory of a design
as a black box and asks this module what it costs in silicon. Prices come from
``synth/macros.yaml``: one entry per shape an SRAM compiler (OpenRAM, FreePDK45) actually
produced, with its provenance (tool, version, technology, options, compile time). A shape
that was not compiled is priced as the smallest compiled macro of its width and write mask
that holds it (compilers have a minimum depth), or else by a least-squares power law over
the compiled ones (``area = k * words^a * width^b``); the report says which.

Port mapping (stated in the report): a memory with one read and one write port is one
``1r1w`` macro; with ``r > 1`` read ports it is ``r`` ``1r1w`` copies written together (the
usual way to add read ports to an SRAM); a write granularity narrower than the word is a
write mask, which OpenRAM compiles (``write_size``). Memories with asynchronous read ports
or more than one write port are not SRAM; the flow maps those to flip-flops instead.

``python -m synth.macros list`` prints the table and the fit; ``python -m synth.macros
compile WORDSxWIDTH[_we8] ...`` runs OpenRAM (``make macros`` installs it into its own venv)
and adds the result to ``macros.yaml``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from golden.errors import ConfigError

from .errors import SynthError

DEFAULT_MACROS = Path(__file__).with_name("macros.yaml")

#: Technology nodes used to scale areas to the papers' 40 nm (ideal quadratic scaling).
PAPER_NODE_NM = 40.0

_SHAPE_RE = re.compile(r"^(\d+)x(\d+)(?:_we(\d+))?$")


@dataclass(frozen=True)
class MemoryShape:
    """The geometry of one memory as the RTL declares it.

    ``words`` x ``width`` bits, ``read_ports`` synchronous read ports, ``write_ports`` write
    ports, ``write_granule`` bits per write-enable bit (``width`` when there is no mask).
    """

    words: int
    width: int
    read_ports: int = 1
    write_ports: int = 1
    write_granule: int = 0

    @property
    def bits(self) -> int:
        return self.words * self.width

    @property
    def granule(self) -> int:
        return self.write_granule or self.width

    @property
    def key(self) -> str:
        """``64x128_we8`` (one 1r1w macro); the port count is not part of the macro key."""
        we = f"_we{self.granule}" if self.granule < self.width else ""
        return f"{self.words}x{self.width}{we}"

    def describe(self) -> str:
        return f"{self.words} x {self.width} b, {self.read_ports}R{self.write_ports}W" + (
            f", {self.granule}-bit write mask" if self.granule < self.width else "")

    @classmethod
    def parse(cls, text: str) -> "MemoryShape":
        m = _SHAPE_RE.match(text.strip())
        if not m:
            raise ValueError(f"macro shape {text!r}: expected WORDSxWIDTH or WORDSxWIDTH_weN")
        words, width, we = int(m[1]), int(m[2]), int(m[3] or 0)
        if words < 1 or width < 1 or (we and width % we):
            raise ValueError(f"macro shape {text!r}: sizes must be positive and the write "
                             "mask granule must divide the width")
        return cls(words, width, 1, 1, we)


@dataclass(frozen=True)
class MacroEntry:
    """One macro an SRAM compiler produced: its shape, size and where it came from."""

    shape: MemoryShape
    ports: str                 # "1r1w" or "1rw"
    width_um: float
    height_um: float
    tech: str
    node_nm: float
    tool: str
    provenance: dict = field(default_factory=dict)

    @property
    def area_um2(self) -> float:
        return self.width_um * self.height_um


@dataclass(frozen=True)
class MacroPrice:
    """What a memory of the design costs: ``copies`` macros of ``unit_um2`` each."""

    shape: MemoryShape
    copies: int
    unit_um2: float
    node_nm: float
    source: str               # "openram <tech>" or "fit over N macros"

    @property
    def area_um2(self) -> float:
        return self.copies * self.unit_um2

    @property
    def storage_bits(self) -> int:
        return self.shape.bits


class MacroLibrary:
    """The compiled macros of ``macros.yaml`` and the area fit over them."""

    PORTS = "1r1w"

    def __init__(self, entries: list[MacroEntry], source: str = "<macros>"):
        self.entries = entries
        self.source = source
        self._by_key = {(e.shape.key, e.ports): e for e in entries}
        self._fit = None

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, path: str | Path = DEFAULT_MACROS) -> "MacroLibrary":
        path = Path(path)
        if not path.is_file():
            return cls([], str(path))
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML: {exc}") from None
        rows = doc.get("macros", []) if isinstance(doc, dict) else None
        if not isinstance(rows, list):
            raise ConfigError(f"{path}: macros: expected a list")
        entries = []
        for i, row in enumerate(rows):
            where = f"{path}: macros[{i}]"
            if not isinstance(row, dict):
                raise ConfigError(f"{where}: expected a mapping")
            try:
                shape = MemoryShape.parse(str(row["shape"]))
                entries.append(MacroEntry(
                    shape=shape, ports=str(row.get("ports", cls.PORTS)),
                    width_um=float(row["width_um"]), height_um=float(row["height_um"]),
                    tech=str(row["tech"]), node_nm=float(row["node_nm"]), tool=str(row["tool"]),
                    provenance=dict(row.get("provenance") or {})))
            except KeyError as exc:
                raise ConfigError(f"{where}: missing key {exc.args[0]!r}") from None
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"{where}: {exc}") from None
        return cls(entries, str(path))

    # ------------------------------------------------------------------ pricing
    @property
    def fit_rows(self) -> list[MacroEntry]:
        """The compiled macros of the port kind the designs' memories are priced as (1r1w)."""
        return [e for e in self.entries if e.ports == self.PORTS]

    def fit(self) -> tuple[float, float, float] | None:
        """Least-squares ``(k, a, b)`` of the power law ``area = exp(k) * words^a * width^b``
        over the compiled 1r1w macros (None with fewer than 5 of them). A power law follows
        the periphery's share of small arrays better than a linear model in bits."""
        if self._fit is None:
            import numpy as np
            rows = self.fit_rows
            if len(rows) < 5:
                self._fit = ()
            else:
                a = np.array([[1.0, math.log(e.shape.words), math.log(e.shape.width)] for e in rows])
                y = np.array([math.log(e.area_um2) for e in rows])
                coef, *_ = np.linalg.lstsq(a, y, rcond=None)
                self._fit = tuple(float(c) for c in coef)
        return self._fit or None

    def fit_error(self) -> float | None:
        """Largest relative error of the fit on the compiled macros themselves."""
        coef = self.fit()
        if coef is None:
            return None
        errs = [abs(self._fitted(e.shape, coef) / e.area_um2 - 1)
                for e in self.fit_rows]
        return max(errs)

    @staticmethod
    def _fitted(shape: MemoryShape, coef) -> float:
        k, a, b = coef
        return math.exp(k + a * math.log(shape.words) + b * math.log(shape.width))

    def node_nm(self) -> float:
        nodes = {e.node_nm for e in self.entries}
        if len(nodes) != 1:
            raise SynthError(f"{self.source}: the compiled macros must share one technology node, "
                             f"found {sorted(nodes)}")
        return nodes.pop()

    def price(self, shape: MemoryShape, label: str) -> MacroPrice:
        """The area of ``shape``: the compiled macro of that shape; else the smallest compiled
        macro of the same width and write mask with at least as many words (a compiler has a
        minimum depth: OpenRAM's is 16 words); else the power-law fit."""
        copies = max(1, shape.read_ports)
        unit = MemoryShape(shape.words, shape.width, 1, 1, shape.write_granule)
        entry = self._by_key.get((unit.key, self.PORTS))
        if entry is not None:
            return MacroPrice(shape, copies, entry.area_um2, entry.node_nm, f"{entry.tool} {entry.tech}")
        deeper = [e for e in self.fit_rows if e.shape.width == unit.width
                  and e.shape.granule == unit.granule and e.shape.words >= unit.words]
        if deeper:
            e = min(deeper, key=lambda e: e.shape.words)
            return MacroPrice(shape, copies, e.area_um2, e.node_nm,
                              f"{e.tool} {e.tech}, rounded up to {e.shape.key}")
        coef = self.fit()
        if coef is None:
            raise SynthError(f"{label}: no SRAM macro {unit.key} in {self.source} and fewer than 5 "
                             "compiled macros to fit an area model; run `make macros`")
        area = self._fitted(unit, coef)
        rows = self.fit_rows
        tools = "/".join(sorted({e.tool for e in rows}))
        return MacroPrice(shape, copies, area, self.node_nm(), f"fit over {len(rows)} {tools} macros")


def scale_area(area_um2: float, from_nm: float, to_nm: float = PAPER_NODE_NM) -> float:
    """Ideal quadratic node scaling (``area * (to/from)^2``); optimistic for SRAM and wires."""
    return area_um2 * (to_nm / from_nm) ** 2


# ---------------------------------------------------------------------- compiling macros
#: Node of each OpenRAM technology this flow knows (nm).
TECH_NODE_NM = {"freepdk45": 45.0, "sky130": 130.0, "scn4m_subm": 500.0, "gf180mcu": 180.0}

HEADER = """\
# SRAM macros compiled by OpenRAM for the area flow (synth/liberty.py, synth/macros.py).
# Written by `python -m synth.macros compile` (`make macros`); each entry records the tool
# version, technology and options. width_um x height_um is the bounding box of the placed
# and internally routed macro (no supply ring, no perimeter pin escape routes, no DRC/LVS).
"""


def _openram_python() -> Path:
    import os
    env = os.environ.get("SIMTLAB_OPENRAM_PYTHON")
    path = Path(env) if env else Path(".venv-openram/bin/python")
    if not path.is_file():
        raise SynthError(f"OpenRAM python {path} not found: run `make macros` (it creates "
                         ".venv-openram with the openram package) or set SIMTLAB_OPENRAM_PYTHON")
    return path


def compile_macro(shape: MemoryShape, tech: str = "freepdk45", ports: str = "1r1w",
                  timeout_s: float = 3600.0) -> MacroEntry:
    """Run OpenRAM on ``shape`` (in its own venv) and return the entry for ``macros.yaml``."""
    import json
    import subprocess
    import tempfile
    if tech not in TECH_NODE_NM:
        raise SynthError(f"unknown OpenRAM technology {tech!r} (known: {sorted(TECH_NODE_NM)})")
    script = Path(__file__).with_name("openram_compile.py")
    we = shape.granule if shape.granule < shape.width else 0
    with tempfile.TemporaryDirectory(prefix="simtlab-openram-") as tmp:
        try:
            proc = subprocess.run([str(_openram_python()), str(script), str(shape.words),
                                   str(shape.width), str(we), ports, tech, tmp],
                                  cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise SynthError(f"OpenRAM did not finish {shape.key} within {timeout_s:.0f} s") from None
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("SIMTLAB_MACRO ")), None)
    if proc.returncode != 0 or line is None:
        tail = "\n".join("    " + ln for ln in (proc.stdout + proc.stderr).splitlines()[-20:])
        raise SynthError(f"OpenRAM failed on {shape.key} (exit {proc.returncode}):\n{tail}")
    row = json.loads(line.split(" ", 1)[1])
    return MacroEntry(shape=MemoryShape.parse(row["shape"]), ports=row["ports"],
                      width_um=row["width_um"], height_um=row["height_um"], tech=row["tech"],
                      node_nm=TECH_NODE_NM[tech], tool=row["tool"], provenance=row["provenance"])


def render_yaml(entries: list[MacroEntry]) -> str:
    rows = []
    for e in sorted(entries, key=lambda e: (e.ports, e.shape.words, e.shape.width, e.shape.granule)):
        rows.append({"shape": e.shape.key, "ports": e.ports, "width_um": e.width_um,
                     "height_um": e.height_um, "area_um2": round(e.area_um2, 1), "tech": e.tech,
                     "node_nm": e.node_nm, "tool": e.tool, "provenance": e.provenance})
    return HEADER + yaml.safe_dump({"macros": rows}, sort_keys=False, width=100)


def main(argv: list[str] | None = None) -> int:
    """``python -m synth.macros list|compile SHAPE...``; returns the exit code."""
    import argparse
    import sys

    from golden.errors import SimtlabError

    from .fileio import write_atomic
    ap = argparse.ArgumentParser(prog="python -m synth.macros",
                                 description="List or compile the SRAM macros of the area flow.")
    ap.add_argument("--macros", default=str(DEFAULT_MACROS), metavar="FILE")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="print the compiled macros and the area fit")
    c = sub.add_parser("compile", help="compile shapes with OpenRAM and add them to the file")
    c.add_argument("shapes", nargs="+", metavar="WORDSxWIDTH[_weN]")
    c.add_argument("--tech", default="freepdk45", choices=sorted(TECH_NODE_NM))
    c.add_argument("--force", action="store_true", help="recompile shapes already in the file")
    args = ap.parse_args(argv)
    try:
        lib = MacroLibrary.load(args.macros)
        if args.cmd == "list":
            print(f"{'shape':<14} {'ports':<5} {'w um':>8} {'h um':>8} {'um^2':>10} {'um^2/bit':>9}  source")
            for e in sorted(lib.entries, key=lambda e: (e.shape.bits, e.shape.key)):
                print(f"{e.shape.key:<14} {e.ports:<5} {e.width_um:>8.1f} {e.height_um:>8.1f} "
                      f"{e.area_um2:>10,.0f} {e.area_um2 / e.shape.bits:>9.2f}  {e.tool} {e.tech}")
            coef = lib.fit()
            if coef:
                print(f"fit: area = {math.exp(coef[0]):.1f} * words^{coef[1]:.3f} * width^{coef[2]:.3f}"
                      f" um^2 (worst error {lib.fit_error():.1%} on the compiled macros)")
            return 0
        entries = list(lib.entries)
        for text in args.shapes:
            shape = MemoryShape.parse(text)
            if not args.force and any(e.shape.key == shape.key for e in entries):
                print(f"{shape.key}: already compiled (use --force)")
                continue
            print(f"{shape.key}: compiling with OpenRAM ({args.tech}) ...", flush=True)
            entry = compile_macro(shape, args.tech)
            entries = [e for e in entries if not (e.shape.key == entry.shape.key
                                                   and e.ports == entry.ports)] + [entry]
            write_atomic(Path(args.macros), render_yaml(entries))
            print(f"{shape.key}: {entry.width_um:.1f} x {entry.height_um:.1f} um = "
                  f"{entry.area_um2:,.0f} um^2 ({entry.provenance.get('cpu_seconds')} CPU s)")
    except (SimtlabError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
