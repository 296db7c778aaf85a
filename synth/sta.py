"""Static timing and power of a target's osu018 netlist with OpenSTA (issue 69, items 2-3).

Input: the gate-level netlist that the liberty area flow writes (:func:`synth.liberty.liberty_area`).
One ``sta`` run (Debian ``opensta``, `make opensta`) per target:

* **Timing.** A clock ``clk`` of :data:`PERIOD_NS` on the ``clk`` port (a virtual clock for a
  combinational target); every input arrives and every output is required at the clock edge
  (zero external delay), inputs switch with the FO4 slew and outputs drive an FO4 load
  (4 inverter inputs). The critical path is ``period - worst slack`` of ``report_checks``:
  input to output, input to flip-flop (with setup), flip-flop to flip-flop (clock-to-Q +
  logic + setup), flip-flop to output, whichever is longest.
* **Energy per access, activity-assumed.** ``set_power_activity -input -activity 0.5
  -duty 0.5``: every input bit switches with probability 1/2 per cycle (a new random
  request every cycle), OpenSTA propagates the activity through the cells' functions.
  The dynamic power (internal + switching) times the period is the energy of one cycle, one
  access per cycle. It is NOT measured on the real-kernel traces.
* **What is not in it.** SRAM macros (``sram_<shape>`` black boxes of the area flow) have no
  osu018 timing or power model (the OpenRAM macros in synth/macros.yaml were compiled for
  area only, with ``analytical_delay``): their instances are removed from the netlist given to
  STA, so paths through them are cut and their access energy is not counted
  (:attr:`StaResult.macros_removed` says how many). No wires (no placement), no gate
  sizing; fanout buffering is :mod:`synth.buffering`'s pass, run by the flow before STA
  (without it ABC's area mapping leaves a high-fanout net on one small cell). When OpenSTA's
  design power total is NaN, every cell is priced alone and the NaN ones are left out and
  bounded (:attr:`StaResult.nan_cells`).
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from .errors import SynthError
from .fo4 import Fo4

#: period of the STA clock; long enough that no path is clipped (slack = period - path)
PERIOD_NS = 100.0
#: input toggle probability per cycle of the activity-assumed power estimate
INPUT_ACTIVITY = 0.5
#: worst paths (one per endpoint) whose buffered estimate is taken (the maximum)
BUFFERED_PATHS = 20
#: seconds one sta run may take
STA_TIMEOUT_S = 900.0

#: reading and constraining the netlist, shared by the timing and the power scripts: one
#: clock (on ``clk`` when the design has one, else virtual), inputs and outputs timed by it
#: (OpenSTA reads a clocked pin's activity as transitions per clock period; an input with
#: no clock would read it as transitions per second), the input slew and the output load
DESIGN_SETUP = """\
read_liberty {lib}
read_verilog netlist.v
link_design {top}
if {{[llength [get_ports -quiet clk]] > 0}} {{
  create_clock -name clk -period {period} [get_ports clk]
}} else {{
  create_clock -name clk -period {period}
}}
foreach p [all_inputs] {{
  if {{[get_full_name $p] != "clk"}} {{ set_input_delay 0 -clock clk $p }}
}}
set_output_delay 0 -clock clk [all_outputs]
set_input_transition {slew} [all_inputs]
set_load {load} [all_outputs]
"""

STA_SCRIPT = DESIGN_SETUP + """\
puts "@@checks"
report_checks -path_delay max -digits 4 -fields {{capacitance}} -group_count {paths}
set_power_activity -input -activity {activity} -duty 0.5
puts "@@power"
if {{[catch {{report_power -digits 6}} msg]}} {{
  puts "@@power_error $msg"
  # the design total fails when one cell's power is NaN: price every cell on its own, leave
  # out those whose report fails and print the rest (summed by parse_report)
  set good {{}}
  set bad {{}}
  foreach c [get_cells *] {{
    if {{[catch {{report_power -instances $c > /dev/null}}]}} {{ lappend bad [get_full_name $c] }} else {{ lappend good $c }}
  }}
  puts "@@nan_cells [llength $bad] [lrange $bad 0 4]"
  if {{[llength $good] > 0}} {{ puts "@@instances"; report_power -instances $good -digits 9 }}
}}
puts "@@end"
"""


def sta_binary() -> str | None:
    """Path of OpenSTA's ``sta`` binary, or None when it is not installed."""
    return shutil.which("sta")


@dataclass(frozen=True)
class StaResult:
    """Timing and power of one netlist, as parsed from one OpenSTA report."""

    critical_ns: float | None      # None: no constrained path (no logic between I/O and flops)
    startpoint: str
    endpoint: str
    period_ns: float
    internal_w: float
    switching_w: float
    leakage_w: float
    activity: float
    macros_removed: int = 0
    #: cells on the critical path (logic depth, flip-flop clock-to-Q included)
    stages: int = 0
    #: loads (pF) of the drivers (input port, cell outputs) of each reported path, worst first
    path_caps_pf: tuple[tuple[float, ...], ...] = ()
    #: cells whose power OpenSTA reports as NaN; > 0 means the power is the sum over the other
    #: cells (the design total fails), and :attr:`nan_bound_pj` bounds what they leave out
    nan_cells: int = 0
    #: nan_cells x the largest dynamic energy per cycle of any priced cell (pJ)
    nan_bound_pj: float = 0.0

    @property
    def dynamic_w(self) -> float:
        return self.internal_w + self.switching_w

    @property
    def energy_pj(self) -> float:
        """Dynamic energy of one cycle (one access) in pJ: dynamic power x period."""
        return self.dynamic_w * self.period_ns * 1e3

    def buffered_fo4(self, fo4: Fo4) -> float | None:
        """Logical-effort estimate of the critical path had every driver an ideal buffer tree:
        each driver on the path costs max(1, log4(load / inverter input)) FO4 -- the stages of
        an FO4 tapered buffer chain -- ignoring the cells' own logical effort and the setup
        time; the maximum over the :data:`BUFFERED_PATHS` worst unbuffered paths (a path
        further down the list could be longer once buffered). None without the loads."""
        if self.critical_ns is None or not self.path_caps_pf:
            return None
        return max(sum(max(1.0, math.log(c / fo4.input_cap_pf, 4)) if c > 0 else 1.0 for c in caps)
                   for caps in self.path_caps_pf)

    def fo4(self, fo4: Fo4) -> float | None:
        """The critical path in FO4 delays of the library."""
        return None if self.critical_ns is None else self.critical_ns / fo4.delay_ns

    def to_dict(self) -> dict:
        d = asdict(self)
        d["energy_pj"] = round(self.energy_pj, 4)
        return d


_SLACK_RE = re.compile(r"^\s*(-?[\d.]+)\s+slack\s+\((MET|VIOLATED)\)", re.M)
_POINT_RE = re.compile(r"^(Startpoint|Endpoint):\s*(\S+)", re.M)
#: a cell pin line of a path whose increment is not zero: a cell output (no wires, so an input
#: pin adds nothing)
_STAGE_RE = re.compile(r"^\s*(?!0\.0+\s)-?[\d.]+\s+-?[\d.]+\s+[\^v]\s+\S+/\w+\s+\(\w+\)", re.M)
#: a path line with a load column: "cap delay time ^ pin (cell|in)"
_CAP_RE = re.compile(r"^\s*([\d.]+)\s+-?[\d.]+\s+-?[\d.]+\s+[\^v]\s+\S+\s+\(\w+\)", re.M)
#: one row of ``report_power -instances``: internal, switching, leakage, total (W), instance
_INSTANCE_ROW_RE = re.compile(r"^\s*([-+\d.eE]+)\s+([-+\d.eE]+)\s+([-+\d.eE]+)\s+[-+\d.eE]+\s+\S+\s*$", re.M)
_TOTAL_RE = re.compile(r"^Total\s+([-+\d.eE]+)\s+([-+\d.eE]+)\s+([-+\d.eE]+)\s+([-+\d.eE]+)", re.M)


def parse_report(text: str, *, period_ns: float, activity: float, label: str,
                 macros_removed: int = 0) -> StaResult:
    """Parse the ``report_checks`` + ``report_power`` output of :data:`STA_SCRIPT`."""
    if "@@checks" not in text or "@@power" not in text:
        raise SynthError(f"{label}: OpenSTA did not reach the reports; output tail:\n{_tail(text)}")
    checks, power = text.split("@@checks", 1)[1].split("@@power", 1)
    slack = _SLACK_RE.search(checks)
    if slack is None and "No paths found" not in checks:
        raise SynthError(f"{label}: no slack in the OpenSTA timing report; output tail:\n{_tail(text)}")
    points = dict(_POINT_RE.findall(checks.split("slack (")[0]))
    paths = [p.split("data arrival time")[0] for p in checks.split("Startpoint:")[1:]]
    total = _TOTAL_RE.search(power)
    nan_cells, nan_bound = 0, 0.0
    if "@@power_error" in power:     # OpenSTA's report_power fails on NaN power (seen on
        internal = switching = leakage = float("nan")     # the 512-entry SRF map)
        nan = re.search(r"^@@nan_cells (\d+)", power, re.M)
        rows = [tuple(float(x) for x in m.groups()) for m in _INSTANCE_ROW_RE.finditer(
            power.split("@@instances", 1)[1])] if "@@instances" in power else []
        if nan and rows and all(math.isfinite(v) for r in rows for v in r):
            nan_cells = int(nan.group(1))
            internal, switching, leakage = (sum(r[i] for r in rows) for i in range(3))
            nan_bound = nan_cells * max(r[0] + r[1] for r in rows) * period_ns * 1e3
    elif total is None:
        raise SynthError(f"{label}: no Total row in the OpenSTA power report; output tail:\n{_tail(text)}")
    else:
        internal, switching, leakage, _ = (float(x) for x in total.groups())
    return StaResult(critical_ns=None if slack is None else round(period_ns - float(slack.group(1)), 4),
                     startpoint=points.get("Startpoint", ""), endpoint=points.get("Endpoint", ""),
                     period_ns=period_ns, internal_w=internal, switching_w=switching,
                     leakage_w=leakage, activity=activity, macros_removed=macros_removed,
                     nan_cells=nan_cells, nan_bound_pj=nan_bound,
                     stages=len(_STAGE_RE.findall(_strip_cap(paths[0]))) if paths else 0,
                     path_caps_pf=tuple(caps for caps in (tuple(float(c) for c in _CAP_RE.findall(p))
                                                          for p in paths) if caps))


def _strip_cap(text: str) -> str:
    """Path lines without the load column (so the stage pattern sees "delay time ...")."""
    return re.sub(r"^(\s*)[\d.]+(\s+-?[\d.]+\s+-?[\d.]+\s+[\^v]\s)", r"\1\2", text, flags=re.M) \
        if _CAP_RE.search(text) else text


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join("    " + ln for ln in text.strip().splitlines()[-lines:])


_PARAM_INSTANCE_RE = re.compile(r"^\s*(sram_\w+)\s*#\(.*?^\s*\)\s*\S+\s*\(.*?^\s*\);\n", re.M | re.S)
_PLAIN_INSTANCE_RE = re.compile(r"^\s*(sram_\w+)\s+\S+\s*\(.*?^\s*\);\n", re.M | re.S)


def strip_macros(netlist: str) -> tuple[str, int]:
    """The netlist without its ``sram_<shape>`` black-box instances, and how many were removed."""
    out, n1 = _PARAM_INSTANCE_RE.subn("", netlist)
    out, n2 = _PLAIN_INSTANCE_RE.subn("", out)
    return out, n1 + n2


_CONCAT_ASSIGN_RE = re.compile(r"^(\s*)assign\s*\{([^}]*)\}\s*=\s*\{([^}]*)\}\s*;", re.M)
_RANGE_RE = re.compile(r"^(.*\S)\s*\[(\d+):(\d+)\]$")
_CONST_RE = re.compile(r"^(\d+)'([bhd])([0-9a-fA-F_]+)$")


def _bits(element: str) -> list[str]:
    """One concatenation element as its one-bit elements, most significant first."""
    element = element.strip()
    m = _RANGE_RE.match(element)
    if m:
        hi, lo = int(m.group(2)), int(m.group(3))
        step = -1 if hi >= lo else 1
        return [f"{m.group(1)}[{i}]" for i in range(hi, lo + step, step)]
    m = _CONST_RE.match(element)
    if m:
        width = int(m.group(1))
        value = int(m.group(3).replace("_", ""), {"b": 2, "h": 16, "d": 10}[m.group(2)])
        return [f"1'b{(value >> i) & 1}" for i in range(width - 1, -1, -1)]
    if re.match(r"^\d+'", element) or ":" in element:
        raise SynthError(f"netlist: cannot split the concatenation element {element!r} bit by bit")
    return [element]


def split_concat_assigns(netlist: str) -> str:
    """``assign {a, b[1:0]} = {c, 2'h0};`` as one-bit assigns (the Debian OpenSTA of 2019 cannot
    read a concatenation on the left of an assign). Ranges and sized constants are expanded bit
    by bit; a width mismatch raises. (A one-bit element is assumed one bit wide: Yosys names
    multi-bit wires with a range in these assigns.)"""
    def one(m: re.Match) -> str:
        lhs = [b for x in m.group(2).split(",") for b in _bits(x)]
        rhs = [b for x in m.group(3).split(",") for b in _bits(x)]
        if len(lhs) != len(rhs):
            raise SynthError(f"netlist: cannot split the assignment {m.group(0).strip()[:80]!r}... "
                             f"bit by bit ({len(lhs)} bits = {len(rhs)} bits)")
        return "\n".join(f"{m.group(1)}assign {a} = {b};" for a, b in zip(lhs, rhs))
    return _CONCAT_ASSIGN_RE.sub(one, netlist)


def run_sta(netlist: str, top: str, liberty_path: Path, fo4: Fo4, *, label: str,
            period_ns: float = PERIOD_NS, activity: float = INPUT_ACTIVITY,
            timeout_s: float = STA_TIMEOUT_S) -> tuple[StaResult, str]:
    """Run OpenSTA on ``netlist`` (top module ``top``); return (result, full report text)."""
    binary = sta_binary()
    if binary is None:
        raise SynthError(f"{label}: OpenSTA (sta) is not installed: run `make opensta` "
                         "(apt-get install -y opensta)")
    text, removed = strip_macros(netlist)
    text = split_concat_assigns(text)
    with tempfile.TemporaryDirectory(prefix="simtlab-sta-") as tmp:
        work = Path(tmp)
        (work / "netlist.v").write_text(text, encoding="utf-8")
        (work / "run.tcl").write_text(STA_SCRIPT.format(
            lib=str(Path(liberty_path).resolve()), top=top, period=period_ns, slew=round(fo4.slew_ns, 5),
            load=round(fo4.load_pf, 6), activity=activity, paths=BUFFERED_PATHS), encoding="utf-8")
        try:
            proc = subprocess.run([binary, "-no_splash", "-exit", "run.tcl"], cwd=work,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise SynthError(f"{label}: OpenSTA did not finish within {timeout_s:.0f} s") from None
    out = proc.stdout
    if proc.returncode != 0 or "@@end" not in out:
        raise SynthError(f"{label}: OpenSTA failed (exit code {proc.returncode}); output tail:\n{_tail(out)}")
    errors = [ln for ln in out.splitlines() if ln.startswith("Error")]
    if errors:
        raise SynthError(f"{label}: OpenSTA reported errors: {errors[0]}")
    return parse_report(out, period_ns=period_ns, activity=activity, label=label,
                        macros_removed=removed), out


POWER_SCRIPT = DESIGN_SETUP


@dataclass(frozen=True)
class PowerScenario:
    """Power of one activity scenario (e.g. the cycles of one operation type)."""

    name: str
    internal_w: float
    switching_w: float
    leakage_w: float
    period_ns: float

    @property
    def energy_pj(self) -> float:
        """Dynamic energy of one cycle in pJ."""
        return (self.internal_w + self.switching_w) * self.period_ns * 1e3


def run_power(netlist: str, top: str, liberty_path: Path, fo4: Fo4, scenarios: dict[str, str], *,
              label: str, period_ns: float = PERIOD_NS,
              timeout_s: float = STA_TIMEOUT_S) -> dict[str, PowerScenario]:
    """One OpenSTA session: for each scenario (name -> Tcl ``set_power_activity`` commands, every
    scenario setting the same pins) apply its activities and ``report_power``."""
    binary = sta_binary()
    if binary is None:
        raise SynthError(f"{label}: OpenSTA (sta) is not installed: run `make opensta`")
    text = split_concat_assigns(strip_macros(netlist)[0])
    script = POWER_SCRIPT.format(lib=str(Path(liberty_path).resolve()), top=top, period=period_ns,
                                 slew=round(fo4.slew_ns, 5), load=round(fo4.load_pf, 6))
    # this OpenSTA sets up its activity tables at the first report_power and ignores per-pin
    # activities set before it: a first report, discarded, makes the first scenario count
    script += "report_power > warmup.rpt\n"
    for name, tcl in scenarios.items():
        script += tcl + f'puts "@@power {name}"\nreport_power -digits 6\n'
    script += 'puts "@@end"\n'
    with tempfile.TemporaryDirectory(prefix="simtlab-sta-") as tmp:
        work = Path(tmp)
        (work / "netlist.v").write_text(text, encoding="utf-8")
        (work / "run.tcl").write_text(script, encoding="utf-8")
        try:
            proc = subprocess.run([binary, "-no_splash", "-exit", "run.tcl"], cwd=work,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise SynthError(f"{label}: OpenSTA did not finish within {timeout_s:.0f} s") from None
    out = proc.stdout
    errors = [ln for ln in out.splitlines() if ln.startswith("Error")]
    if proc.returncode != 0 or "@@end" not in out or errors:
        raise SynthError(f"{label}: OpenSTA power run failed: {errors[0] if errors else _tail(out)}")
    result = {}
    for name in scenarios:
        section = out.split(f"@@power {name}\n", 1)[1].split("@@", 1)[0]
        total = _TOTAL_RE.search(section)
        if total is None:
            raise SynthError(f"{label}: no Total row in the power report of {name!r}")
        i, sw, lk, _ = (float(x) for x in total.groups())
        result[name] = PowerScenario(name, i, sw, lk, period_ns)
    return result
