"""Parse Yosys ``stat -json`` output of a flattened, gate-level netlist into area numbers.

After ``synth`` every flip-flop is a one-bit Yosys internal cell (``$_DFF_P_``,
``$_DFFE_PP_``, ``$_SDFF_PP0_``, ...), so the number of flip-flop cells is the number of
flip-flop bits.  Memories left unmapped would appear as memory bits; ``synth`` maps
Amaranth memories to flip-flops, so those are normally zero.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field

from .errors import SynthError

#: One-bit flip-flop cells of Yosys' internal gate library (any clock/reset/enable flavour).
_FF_RE = re.compile(r"^\$_(DFF|DFFE|SDFF|SDFFE|SDFFCE|ALDFF|ALDFFE|DFFSR|DFFSRE|FF)_")
#: One-bit latch cells.
_LATCH_RE = re.compile(r"^\$_(DLATCH|DLATCHSR|SR)_")
#: Word-level storage cells that ``synth`` should have lowered; their bit count is unknown here.
_COARSE_STORAGE_RE = re.compile(r"^\$(dff|dffe|sdff|sdffe|sdffce|adff|adffe|aldff|aldffe|dffsr|dffsre|dlatch|adlatch|dlatchsr|sr|ff)$")


@dataclass(frozen=True)
class CellStats:
    """Cell counts of one netlist as ``stat`` reports them."""

    cells: int
    cells_by_type: dict[str, int]
    memory_bits: int
    port_bits: int
    transistors: int | None = None
    transistors_exact: bool = True
    creator: str = ""


@dataclass(frozen=True)
class AreaStats:
    """Area of one synthesised component.

    ``cells_by_type`` is the netlist right after ``synth``; ``transistors`` is Yosys'
    ``stat -tech cmos`` estimate of the same netlist after ``dffunmap`` (flip-flops with
    enable or synchronous reset re-expressed as plain ``$_DFF_`` plus ``$_MUX_`` cells,
    because the CMOS cost table only prices plain flip-flops), with ``cmos_cells_by_type``
    its cell mix.
    """

    flip_flops: int
    latches: int
    memory_bits: int
    cells: int
    port_bits: int
    transistors: int
    transistors_exact: bool
    cells_by_type: dict[str, int] = field(default_factory=dict)
    cmos_cells_by_type: dict[str, int] = field(default_factory=dict)

    @property
    def storage_bits(self) -> int:
        """Bits of state: flip-flop and latch bits plus any unmapped memory bits."""
        return self.flip_flops + self.latches + self.memory_bits

    def top_cell_types(self, n: int = 4) -> list[tuple[str, int]]:
        """The ``n`` most numerous cell types after ``synth`` (ties by name)."""
        return sorted(self.cells_by_type.items(), key=lambda kv: (-kv[1], kv[0]))[:n]

    def to_dict(self) -> dict:
        """All numbers, including ``storage_bits``, as a JSON-ready dict."""
        d = asdict(self)
        d["storage_bits"] = self.storage_bits
        return d


def stat_design(text: str, label: str) -> tuple[dict, dict]:
    """(whole document, whole-design section) of the text ``stat -json`` wrote (``tee -o``):
    the ``design`` totals (hierarchy counted per instance), or the only module's numbers."""
    start, end = text.find("{"), text.rfind("}")
    try:
        doc = json.loads(text[start:end + 1]) if start >= 0 else None
    except json.JSONDecodeError as exc:
        raise SynthError(f"{label}: cannot parse Yosys stat JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise SynthError(f"{label}: Yosys stat output has no JSON object")
    design = doc.get("design")
    if design is None:
        modules = doc.get("modules") or {}
        if len(modules) != 1:
            raise SynthError(f"{label}: Yosys stat JSON has no 'design' totals and "
                             f"{len(modules)} modules; expected a flattened design")
        design = next(iter(modules.values()))
    return doc, design


def parse_stat_json(text: str, label: str) -> CellStats:
    """Read the whole-design numbers from the text ``stat -json`` wrote (``tee -o``)."""
    doc, design = stat_design(text, label)
    try:
        by_type = {str(k): int(v) for k, v in design.get("num_cells_by_type", {}).items()}
        transistors, exact = _parse_transistors(design.get("estimated_num_transistors"))
        return CellStats(cells=int(design["num_cells"]), cells_by_type=by_type,
                         memory_bits=int(design.get("num_memory_bits", 0)),
                         port_bits=int(design.get("num_port_bits", 0)),
                         transistors=transistors, transistors_exact=exact,
                         creator=str(doc.get("creator", "")))
    except (KeyError, TypeError, ValueError) as exc:
        raise SynthError(f"{label}: unexpected Yosys stat JSON layout ({type(exc).__name__}: {exc})") from None


def _parse_transistors(value) -> tuple[int | None, bool]:
    """Yosys prints ``1234`` or ``"1234+"`` (``+``: some cells had no CMOS cost)."""
    if value is None:
        return None, True
    if isinstance(value, int):
        return value, True
    s = str(value).strip()
    exact = not s.endswith("+")
    return int(s.rstrip("+")), exact


def area_from_stats(mapped: CellStats, cmos: CellStats, label: str) -> AreaStats:
    """Combine the post-``synth`` and the CMOS-priced netlist statistics of one component."""
    coarse = sorted(t for t in mapped.cells_by_type if _COARSE_STORAGE_RE.match(t))
    if coarse:
        raise SynthError(f"{label}: word-level storage cells {coarse} survived synthesis; "
                         "their bit count cannot be read from the cell count")
    if cmos.transistors is None:
        raise SynthError(f"{label}: Yosys stat -tech cmos gave no transistor estimate")
    ffs = sum(n for t, n in mapped.cells_by_type.items() if _FF_RE.match(t))
    latches = sum(n for t, n in mapped.cells_by_type.items() if _LATCH_RE.match(t))
    return AreaStats(flip_flops=ffs, latches=latches, memory_bits=mapped.memory_bits,
                     cells=mapped.cells, port_bits=mapped.port_bits,
                     transistors=cmos.transistors, transistors_exact=cmos.transistors_exact,
                     cells_by_type=dict(sorted(mapped.cells_by_type.items())),
                     cmos_cells_by_type=dict(sorted(cmos.cells_by_type.items())))
