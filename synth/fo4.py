"""FO4 delay of a standard-cell library, computed from its Liberty NLDM tables.

The FO4 delay is the delay of an inverter driving four copies of itself. It is the unit
in which :mod:`synth.sta` states critical paths, so that a path measured on osu018
(0.18 um) can be compared with a cycle of a paper's GPU at 40 nm or 16 nm (issue 69).

Method (:func:`fo4_of`): take the inverter cell (``INVX1`` by default) and its input pin
capacitance C. The load is ``fanout x C`` (4 C). The inverter's ``cell_rise`` /
``cell_fall`` tables give delay as a function of (output load, input transition) and its
``rise_transition`` / ``fall_transition`` tables the output slew. In a chain of FO4
inverters each stage is driven by a stage like itself, so the input transition is the
fixed point ``slew = transition(load, slew)``; it is found by iteration from the table's
smallest slew. The FO4 delay is the mean of the rise and fall delays at that load and
slew, interpolated bilinearly in the tables (linear extrapolation outside them, as STA
tools do).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import SynthError

#: rule of thumb: FO4 delay ~ 0.36 ns per um of drawn gate length (Horowitz et al.); a
#: rule of thumb only, used to scale FO4 counts to the papers' nodes.
FO4_NS_PER_UM = 0.36


def fo4_rule_of_thumb_ns(node_nm: float) -> float:
    """FO4 delay in ns at a node of ``node_nm`` drawn length by the 0.36 ns/um rule of thumb."""
    return FO4_NS_PER_UM * node_nm / 1000.0


@dataclass(frozen=True)
class Table:
    """One NLDM table: ``values[i][j]`` at (index_1[i], index_2[j])."""

    index_1: tuple[float, ...]
    index_2: tuple[float, ...]
    values: tuple[tuple[float, ...], ...]

    def at(self, x1: float, x2: float) -> float:
        """Bilinear interpolation (linear extrapolation beyond the table's edges)."""
        i = _segment(self.index_1, x1)
        j = _segment(self.index_2, x2)
        (a0, a1), (b0, b1) = self.index_1[i:i + 2], self.index_2[j:j + 2]
        t = (x1 - a0) / (a1 - a0)
        u = (x2 - b0) / (b1 - b0)
        v = self.values
        return ((1 - t) * (1 - u) * v[i][j] + t * (1 - u) * v[i + 1][j]
                + (1 - t) * u * v[i][j + 1] + t * u * v[i + 1][j + 1])


def _segment(index: tuple[float, ...], x: float) -> int:
    """Index of the first point of the table segment used for ``x`` (edges extrapolate)."""
    for k in range(len(index) - 2):
        if x < index[k + 1]:
            return k
    return len(index) - 2


@dataclass(frozen=True)
class Fo4:
    """The FO4 delay of ``cell`` and how it was obtained (load, fixed-point input slew)."""

    cell: str
    input_cap_pf: float
    fanout: int
    slew_ns: float
    rise_ns: float
    fall_ns: float

    @property
    def load_pf(self) -> float:
        return self.fanout * self.input_cap_pf

    @property
    def delay_ns(self) -> float:
        """Mean of the rise and fall delays."""
        return (self.rise_ns + self.fall_ns) / 2

    def describe(self) -> str:
        return (f"{self.cell} driving {self.fanout} x {self.input_cap_pf * 1000:.2f} fF = "
                f"{self.load_pf * 1000:.1f} fF at its own output slew {self.slew_ns * 1000:.0f} ps: "
                f"rise {self.rise_ns * 1000:.1f} ps, fall {self.fall_ns * 1000:.1f} ps, "
                f"FO4 = {self.delay_ns * 1000:.1f} ps")


def _block(text: str, header_re: str, what: str) -> str:
    """The text between the braces of the first group matching ``header_re``."""
    m = re.search(header_re, text)
    if not m:
        raise SynthError(f"liberty: {what} not found")
    depth, start = 0, text.index("{", m.start())
    for k in range(start, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:k]
    raise SynthError(f"liberty: {what} is not closed")


def _numbers(s: str) -> tuple[float, ...]:
    return tuple(float(x) for x in re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", s))


def _template_vars(text: str, template: str) -> tuple[str, str]:
    body = _block(text, rf"lu_table_template\s*\(\s*{re.escape(template)}\s*\)", f"template {template}")
    v1 = re.search(r"variable_1\s*:\s*(\w+)", body)
    v2 = re.search(r"variable_2\s*:\s*(\w+)", body)
    if not (v1 and v2):
        raise SynthError(f"liberty: template {template} is not two-dimensional")
    return v1.group(1), v2.group(1)


def delay_table(text: str, cell_body: str, kind: str, cell: str) -> Table:
    """The ``kind`` table (``cell_rise``, ``rise_transition``...) of a cell, indexed (load, slew)."""
    m = re.search(rf"\b{kind}\s*\(\s*(\w+)\s*\)", cell_body)
    if not m:
        raise SynthError(f"liberty: cell {cell} has no {kind} table")
    body = _block(cell_body[m.start():], rf"\b{kind}\s*\(", f"{cell} {kind}")
    try:
        idx1 = _numbers(re.search(r"index_1\s*\(([^)]*)\)", body).group(1))
        idx2 = _numbers(re.search(r"index_2\s*\(([^)]*)\)", body).group(1))
        vals = _numbers(re.search(r"values\s*\((.*?)\)\s*;", body, re.S).group(1))
    except AttributeError:
        raise SynthError(f"liberty: {cell} {kind} table lacks index_1, index_2 or values") from None
    if len(vals) != len(idx1) * len(idx2):
        raise SynthError(f"liberty: {cell} {kind} has {len(vals)} values for a "
                         f"{len(idx1)} x {len(idx2)} table")
    rows = tuple(tuple(vals[i * len(idx2):(i + 1) * len(idx2)]) for i in range(len(idx1)))
    table = Table(idx1, idx2, rows)
    v1, v2 = _template_vars(text, m.group(1))
    if (v1, v2) == ("input_net_transition", "total_output_net_capacitance"):
        table = Table(idx2, idx1, tuple(zip(*rows)))
    elif (v1, v2) != ("total_output_net_capacitance", "input_net_transition"):
        raise SynthError(f"liberty: {cell} {kind} is indexed by ({v1}, {v2}), not load and slew")
    return table


def fo4_of(text: str, cell: str = "INVX1", fanout: int = 4, in_pin: str = "A") -> Fo4:
    """FO4 delay of the inverter ``cell`` of the Liberty text ``text`` (see the module doc)."""
    body = _block(text, rf"\bcell\s*\(\s*\"?{re.escape(cell)}\"?\s*\)", f"cell {cell}")
    pin = _block(body, rf"\bpin\s*\(\s*\"?{re.escape(in_pin)}\"?\s*\)", f"pin {cell}/{in_pin}")
    cap = re.search(r"(?<![_\w])capacitance\s*:\s*([-+\d.eE]+)", pin)
    if not cap:
        raise SynthError(f"liberty: pin {cell}/{in_pin} has no capacitance")
    c = float(cap.group(1))
    tables = {k: delay_table(text, body, k, cell)
              for k in ("cell_rise", "cell_fall", "rise_transition", "fall_transition")}
    load = fanout * c
    slew = tables["rise_transition"].index_2[0]
    for _ in range(100):
        new = (tables["rise_transition"].at(load, slew) + tables["fall_transition"].at(load, slew)) / 2
        if abs(new - slew) < 1e-9:
            break
        slew = new
    return Fo4(cell=cell, input_cap_pf=c, fanout=fanout, slew_ns=slew,
               rise_ns=tables["cell_rise"].at(load, slew), fall_ns=tables["cell_fall"].at(load, slew))
