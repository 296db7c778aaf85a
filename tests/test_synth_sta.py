"""Static timing and power of the osu018 netlists (synth/sta.py, synth/fo4.py, synth/cycle_budget.py).

The report parser runs on a checked-in OpenSTA report (tests/fixtures/sta/cam_8x9.rpt, written
by `make synth`); the FO4 computation on a synthetic Liberty cell with hand-computable tables and
on osu018, cross-checked against OpenSTA timing an FO4 inverter chain; one real STA run on
priority_encoder_32. The tests that need `sta` skip without it, and fail under CI=true.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from synth import area
from synth.cycle_budget import load_budgets
from synth.errors import SynthError
from synth.fo4 import fo4_of, fo4_rule_of_thumb_ns
from synth.liberty import Liberty
from synth.macros import MacroLibrary
from synth.sta import parse_report, run_sta, split_concat_assigns, sta_binary, strip_macros
from synth.targets import DEFAULT_TARGETS, load_targets, select_targets

SAMPLE = Path(__file__).parent / "fixtures" / "sta" / "cam_8x9.rpt"


def _need(what: str, ok: bool) -> None:
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(f"{what} is not installed; `make setup` installs it")
        pytest.skip(f"{what} not installed; `make setup` installs it")


def _liberty() -> Liberty:
    try:
        return Liberty.find()
    except SynthError as exc:
        _need(f"osu018 liberty ({exc})", False)


# --- report parsing -------------------------------------------------------------------------

def test_sample_report_gives_critical_path_endpoints_and_power():
    r = parse_report(SAMPLE.read_text(), period_ns=100.0, activity=0.5, label="cam_8x9")
    assert r.critical_ns == pytest.approx(100.0 - 96.7355)   # period - slack of the sample
    assert (r.startpoint, r.endpoint) == ("_2275_", "_2301_")
    assert r.stages == 15                  # DFFPOSX1 clock-to-Q + 14 gates to the D pin
    assert r.internal_w == pytest.approx(1.11761e-3)
    assert r.switching_w == pytest.approx(2.881114e-4)
    assert r.leakage_w == pytest.approx(8.478122e-08)
    # dynamic power x 100 ns period, in pJ
    assert r.energy_pj == pytest.approx((1.11761e-3 + 2.881114e-4) * 100e-9 * 1e12)


def test_report_without_power_is_a_clear_error():
    text = SAMPLE.read_text().split("@@power")[0]
    with pytest.raises(SynthError, match="did not reach the reports"):
        parse_report(text, period_ns=100.0, activity=0.5, label="x")


def test_report_without_paths_has_no_critical_path():
    text = SAMPLE.read_text()
    checks, power = text.split("@@power")
    r = parse_report("@@checks\nNo paths found.\n@@power" + power, period_ns=10.0, activity=0.5, label="x")
    assert r.critical_ns is None and r.energy_pj > 0


# --- netlist clean-up for the 2019 OpenSTA reader -------------------------------------------

def test_concatenated_assigns_are_split_bit_by_bit():
    text = "  assign { a[1], b } = { c[0], 1'h0 };\n  assign y = x;\n"
    assert split_concat_assigns(text) == "  assign a[1] = c[0];\n  assign b = 1'b0;\n  assign y = x;\n"
    assert split_concat_assigns("  assign { a[2:1], b } = { c[0:1], 1'h1 };\n") == \
        "  assign a[2] = c[0];\n  assign a[1] = c[1];\n  assign b = 1'b1;\n"
    assert split_concat_assigns("assign { a[1:0] } = { 2'h2 };") == "assign a[1] = 1'b1;\nassign a[0] = 1'b0;"
    with pytest.raises(SynthError, match="bit by bit"):
        split_concat_assigns("assign { a[3:0] } = { b[2:0] };")


def test_macro_instances_are_removed_and_counted():
    netlist = ("module t(clk);\n  input clk;\n  sram_16x32 #(\n    .ABITS(32'd4)\n  ) m0 (\n    .CLK(clk)\n  );\n"
               "  sram_16x32 m1 (\n    .CLK(clk)\n  );\n  INVX1 i (\n    .A(clk)\n  );\nendmodule\n")
    text, n = strip_macros(netlist)
    assert n == 2 and "sram_" not in text and "INVX1 i" in text


# --- FO4 ------------------------------------------------------------------------------------

_SYNTH_LIB = """
library(t) {
  lu_table_template(tmpl) { variable_1 : input_net_transition; variable_2 : total_output_net_capacitance;
    index_1 ("0.0, 1.0"); index_2 ("0.0, 1.0"); }
  cell (INV) {
    pin(A) { direction : input; capacitance : 0.25; }
    pin(Y) { direction : output; function : "(!A)";
      timing() { related_pin : "A";
        cell_rise(tmpl) { index_1 ("0.0, 1.0"); index_2 ("0.0, 1.0"); values ("0.1, 0.3", "0.2, 0.4"); }
        cell_fall(tmpl) { index_1 ("0.0, 1.0"); index_2 ("0.0, 1.0"); values ("0.1, 0.1", "0.1, 0.1"); }
        rise_transition(tmpl) { index_1 ("0.0, 1.0"); index_2 ("0.0, 1.0"); values ("0.0, 0.5", "0.0, 0.5"); }
        fall_transition(tmpl) { index_1 ("0.0, 1.0"); index_2 ("0.0, 1.0"); values ("0.0, 0.5", "0.0, 0.5"); }
      } } }
}
"""


def test_fo4_from_synthetic_tables_by_hand():
    # load 4 x 0.25 = 1.0; output slew = 0.5 x load = 0.5 whatever the input slew (fixed point 0.5);
    # rise delay at (slew 0.5, load 1.0) = 0.3 + 0.1 x 0.5 = 0.35 (variables swapped by the
    # template: index_1 is the slew here); fall 0.1; FO4 = mean = 0.225 ns
    f = fo4_of(_SYNTH_LIB, cell="INV")
    assert f.load_pf == pytest.approx(1.0)
    assert f.slew_ns == pytest.approx(0.5)
    assert (f.rise_ns, f.fall_ns) == (pytest.approx(0.35), pytest.approx(0.1))
    assert f.delay_ns == pytest.approx(0.225)


def test_missing_cell_is_a_clear_error():
    with pytest.raises(SynthError, match="cell NAND9 not found"):
        fo4_of(_SYNTH_LIB, cell="NAND9")


def test_rule_of_thumb_fo4_scales_with_drawn_length():
    assert fo4_rule_of_thumb_ns(40) == pytest.approx(0.0144)
    assert fo4_rule_of_thumb_ns(180) == pytest.approx(0.0648)


def _fo4_chain(stages: int) -> str:
    """A chain of INVX1, each driving the next stage and 3 dummy INVX1: 4 inverter loads per stage
    (the last stage drives the output port, which STA loads with 4 inverter inputs)."""
    lines = ["module chain(a, y);", "  input a;", "  output y;"]
    lines += [f"  wire n{k};" for k in range(stages)] + [f"  wire d{k}_{j};" for k in range(stages) for j in range(3)]
    prev = "a"
    for k in range(stages):
        out = "y" if k == stages - 1 else f"n{k}"
        lines.append(f"  INVX1 s{k} (.A({prev}), .Y({out}));")
        if k < stages - 1:
            lines += [f"  INVX1 l{k}_{j} (.A({out}), .Y(d{k}_{j}));" for j in range(3)]
        prev = out
    return "\n".join(lines + ["endmodule", ""])


def test_osu018_fo4_matches_opensta_on_an_fo4_chain():
    lib = _liberty()
    f = fo4_of(lib.text())
    assert 0.05 < f.delay_ns < 0.2                    # OSU 0.18 um: ~0.1 ns
    _need("OpenSTA (sta)", sta_binary() is not None)
    r, _ = run_sta(_fo4_chain(8), "chain", lib.path, f, label="fo4 chain")
    assert r.critical_ns / 8 == pytest.approx(f.delay_ns, rel=0.05)
    # the logical-effort estimate: the input port (one inverter load) and 8 stages of 4 loads,
    # each at least 1 FO4 -> 9 FO4
    assert r.stages == 8 and r.buffered_fo4(f) == pytest.approx(9.0, abs=0.05)


# --- budgets and a real run -----------------------------------------------------------------

def test_every_synthesis_target_has_a_cycle_budget():
    budgets = load_budgets()
    names = {t.name for t in load_targets(str(DEFAULT_TARGETS))}
    assert names <= set(budgets)
    b = budgets["gscalar_compressor_32"]
    assert b.node_nm == 40 and b.clock_ghz == 1.4
    assert b.fo4 == pytest.approx((1 / 1.4) / 0.0144)


def test_priority_encoder_32_real_sta_run(tmp_path):
    lib = _liberty()
    _need("OpenSTA (sta)", sta_binary() is not None)
    (target,) = select_targets(load_targets(str(DEFAULT_TARGETS)), ["priority_encoder_32"])
    results = area.run_area([target], tmp_path, flow="liberty", progress=None, macros=MacroLibrary.load())
    s = results[0].sta
    f = fo4_of(lib.text())
    # a 32-input priority encoder is a handful of gate levels: more than 3, fewer than 30 FO4
    assert 3 < s.fo4(f) < 30
    assert s.startpoint.startswith("requests[") and s.endpoint.startswith(("index[", "valid"))
    assert s.energy_pj > 0 and s.leakage_w > 0 and s.macros_removed == 0
    md = (tmp_path / "area.md").read_text()
    row = next(ln for ln in md.splitlines() if ln.startswith("| priority_encoder_32"))
    assert f"| {s.critical_ns:.2f} |" in row and "| yes |" in row
    assert (tmp_path / "sta" / "priority_encoder_32.rpt").is_file()
    assert (tmp_path / "netlists" / "priority_encoder_32.v").is_file()


# --- switching activity from a trace (synth/activity.py, synth/trace_energy.py) -------------

_VCD = """$timescale 1 ps $end
$scope module bench $end
$scope module top $end
$var wire 1 ! clk $end
$var wire 4 " req $end
$var string 1 $ op $end
$scope module sub $end
$var wire 1 # q $end
$upscope $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
$dumpvars
0!
b0000 "
0#
sIDLE $
$end
#5
1!
b0011 "
sREAD $
#10
0!
#15
1!
b0001 "
1#
#20
0!
#25
1!
b1110 "
0#
"""


def test_toggle_counts_split_transitions_by_the_cycle_operation_type(tmp_path):
    from synth.activity import toggle_counts
    vcd = tmp_path / "t.vcd"
    vcd.write_text(_VCD)
    t = toggle_counts(vcd, ["rd", "wr", "rd"], ("bench", "top"))
    # cycle 0 (after edge 0): req 0000->0011; cycle 1: 0011->0001 and q 0->1; cycle 2: 0001->1110, q 1->0
    assert t.counts[("req", 0)] == {"rd": 2}
    assert t.counts[("req", 1)] == {"rd": 2, "wr": 1}
    assert t.counts[("req", 3)] == {"rd": 1}
    assert t.counts[("sub.q", 0)] == {"wr": 1, "rd": 1}
    assert t.cycles == {"rd": 2, "wr": 1} and "sub.q" in t.signals


def test_op_class_names_the_active_enables():
    from dataclasses import dataclass

    from synth.activity import op_class

    @dataclass
    class Ops:
        rd_en: int = 0
        rd_pc: int = 0
        wr_op: int = 0

    assert op_class(Ops()) == "idle"
    assert op_class(Ops(rd_en=1, rd_pc=7)) == "rd_en"
    assert op_class(Ops(rd_en=1, wr_op=2)) == "rd_en+wr_op=2"


def test_netlist_ports_and_named_flops_get_the_trace_activity(tmp_path):
    from collections import Counter

    from synth.activity import Toggles, map_netlist, sta_activity_commands
    netlist = ("module top(clk, req, y);\n  input clk;\n  input [1:0] req;\n  output y;\n"
               "  DFFPOSX1 _1_ (\n    .CLK(clk),\n    .D(req[0]),\n    .Q(\\sub.q )\n  );\n"
               "  DFFPOSX1 _2_ (\n    .CLK(clk),\n    .D(req[1]),\n    .Q(_5_)\n  );\nendmodule\n")
    t = Toggles(counts={("req", 0): Counter(rd=3), ("req", 1): Counter(rd=1, wr=2), ("sub.q", 0): Counter(wr=1)},
                cycles=Counter(rd=4, wr=2), signals=frozenset({"req", "sub.q"}))
    amap = map_netlist(netlist, "top", t)
    assert amap.inputs == {"req[0]": ("req", 0), "req[1]": ("req", 1)}
    assert amap.flops == {"_1_/Q": ("sub.q", 0)} and amap.flop_bits == 2
    tcl = sta_activity_commands(amap, t, "wr")
    assert "[get_ports {req[1]}] -activity 1 " in tcl            # 2 toggles in 2 wr cycles
    assert "[get_ports {req[0]}] -activity 0 " in tcl
    assert "sta::set_power_pin_activity [get_pins {_1_/Q}] 0.5 0.5" in tcl
    assert "-activity 0.5 " in sta_activity_commands(amap, t, None)   # req[1]: 3 toggles / 6 cycles
    assert "-activity 0 " in sta_activity_commands(amap, t, "clock only")
    assert "-activity 0.5 " not in sta_activity_commands(amap, t, "clock only")


def test_version_table_energy_on_a_real_trace_is_above_its_idle_clock(tmp_path):
    lib = _liberty()
    _need("OpenSTA (sta)", sta_binary() is not None)
    import fcntl

    from synth.trace_energy import trace_energy
    from tb.darsie.golden_traces import record_workload_traces, trace_cycles
    (target,) = select_targets(load_targets(str(DEFAULT_TARGETS)), ["darsie_version_table_1tb"])
    # the MM traces of tb/darsie/test_real_traces.py (same folder, lock and length): reused
    # when that bench recorded them already
    out = Path(__file__).resolve().parents[1] / "build" / "darsie_traces"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock-paper-MM", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        files = record_workload_traces("MM", out, max_cycles=trace_cycles(), variant="paper")
    netlist = area.liberty_area_of(target, lib, MacroLibrary.load()).netlist
    r = trace_energy(target.name, netlist, files, lib, max_cycles=300)
    assert r.flops_matched == r.flop_bits == 704          # every version-table flip-flop keeps its name
    assert r.workloads == ("MM",) and r.cycles["all"] == sum(v for k, v in r.cycles.items() if k != "all")
    assert "idle" in r.power and "ins_en" in r.power
    assert r.power["ins_en"].energy_pj > r.power["idle"].energy_pj > r.power["clock only"].energy_pj > 0
    assert r.to_dict()["energy_above_clock_pj"]["ins_en"] > 0
    # the all-cycles row is the cycle-weighted mean of the op-type rows (power is linear in
    # the activities): fails if a scenario's activities are not applied
    ops = [k for k in r.power if k not in ("all", "clock only")]
    mean = sum(r.cycles[k] * r.power[k].energy_pj for k in ops) / r.cycles["all"]
    assert r.power["all"].energy_pj == pytest.approx(mean, rel=0.01)


def test_failed_power_report_leaves_timing_and_no_energy():
    import math
    checks = SAMPLE.read_text().split("@@power")[0]
    r = parse_report(checks + "@@power\n@@power_error can't use non-numeric floating-point value\n@@end\n",
                     period_ns=100.0, activity=0.5, label="x")
    assert r.critical_ns == pytest.approx(100.0 - 96.7355) and math.isnan(r.energy_pj)


def test_second_liberty_run_of_a_target_comes_from_the_cache(tmp_path, monkeypatch):
    _liberty()
    (target,) = select_targets(load_targets(str(DEFAULT_TARGETS)), ["priority_encoder_32"])
    first = area.run_area([target], tmp_path, flow="liberty", progress=None, macros=MacroLibrary.load())
    assert len(list((tmp_path / "cache").glob("priority_encoder_32-*.pickle"))) == 1

    def no_synthesis(*a, **k):
        raise AssertionError("synthesised again")
    monkeypatch.setattr(area, "liberty_area_of", no_synthesis)
    again = area.run_area([target], tmp_path, flow="liberty", progress=None, macros=MacroLibrary.load())
    assert again[0].liberty == first[0].liberty and again[0].netlist == first[0].netlist


def test_input_port_activity_counts_per_cycle_on_a_combinational_netlist():
    # OpenSTA reads an unclocked input's activity per second: run_power must time the inputs
    # by the (virtual) clock so that trace activities (per cycle) give per-cycle energy
    lib = _liberty()
    _need("OpenSTA (sta)", sta_binary() is not None)
    from synth.sta import run_power
    f = fo4_of(lib.text())
    act = {n: f"set_power_activity -input_ports [get_ports a] -activity {a} -duty 0.5\n"
           for n, a in (("full", 1.0), ("half", 0.5))}
    p = run_power(_fo4_chain(4), "chain", lib.path, f, act, label="chain power")
    assert p["full"].energy_pj > 0.05                  # 4 + 9 inverters switching: ~0.1-1 pJ
    assert p["full"].energy_pj == pytest.approx(2 * p["half"].energy_pj, rel=0.01)


def test_flops_of_a_replicated_bank_are_named_through_its_instance():
    from collections import Counter

    from synth.activity import Toggles, map_netlist
    netlist = ("module top(clk);\n  input clk;\n  \\top.bank0  bank3 (\n    .clk(clk)\n  );\nendmodule\n"
               "module \\top.bank0 (clk);\n  input clk;\n  DFFPOSX1 _7_ (\n    .CLK(clk),\n    .D(clk),\n"
               "    .Q(older_1_3)\n  );\nendmodule\n")
    t = Toggles(counts={("bank3.older_1_3", 0): Counter(a=2)}, cycles=Counter(a=2),
                signals=frozenset({"bank3.older_1_3"}))
    amap = map_netlist(netlist, "top", t)
    assert amap.flop_bits == 1 and amap.flops == {"bank3/_7_/Q": ("bank3.older_1_3", 0)}


def test_power_report_with_nan_cells_sums_the_other_cells_and_bounds_the_missing_ones():
    checks = SAMPLE.read_text().split("@@power")[0]
    power = ("@@power\n@@power_error floating point value is Not a Number\n@@nan_cells 2 _7_ _9_\n@@instances\n"
             "   1.0e-03   2.0e-03   1.0e-09   3.0e-03 _1_\n"
             "   4.0e-03   1.0e-03   2.0e-09   5.0e-03 _2_\n@@end\n")
    r = parse_report(checks + power, period_ns=100.0, activity=0.5, label="x")
    assert r.nan_cells == 2 and r.internal_w == pytest.approx(5e-3) and r.switching_w == pytest.approx(3e-3)
    assert r.leakage_w == pytest.approx(3e-9) and r.energy_pj == pytest.approx(8e-3 * 100 * 1e3)
    # each missing cell at most the costliest priced one: 2 x 5 mW x 100 ns
    assert r.nan_bound_pj == pytest.approx(2 * 5e-3 * 100 * 1e3)
