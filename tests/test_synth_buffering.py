"""The fanout-buffering pass of the liberty flow (synth/buffering.py): the max_capacitance rule."""

from __future__ import annotations

import dataclasses
import math
import os
import re

import pytest

from synth.buffering import BufferRule, buffer_netlist, parse_liberty_cells
from synth.errors import SynthError

#: a two-cell library: an inverter that may drive 0.1 pF, a buffer timed up to 0.05 pF
TOY_LIB = """
library(toy) {
  cell (INV) {
    area : 2;
    pin(A) { direction : input; capacitance : 0.01; }
    pin(Y) { direction : output; max_capacitance : 0.1; function : "!A";
      timing() { related_pin : "A";
        cell_rise(t) { index_1 ("0.01, 0.1"); index_2 ("0.1, 0.2"); values ("1, 1", "1, 1"); } } }
  }
  cell (BUF) {
    area : 4;
    pin(A) { direction : input; capacitance : 0.004; }
    pin(Y) { direction : output; max_capacitance : 0.2; function : "A";
      timing() { related_pin : "A";
        cell_rise(t) { index_1 ("0.01, 0.05"); index_2 ("0.1, 0.2"); values ("1, 1", "1, 1"); } } }
  }
}
"""


def _fanout_netlist(loads: int, driver_in: str = "a") -> str:
    """One INV (``drv``) driving ``loads`` INV inputs and the output port ``o``."""
    sinks = "".join(f"  INV s{i} (\n    .A(\\big.net ),\n    .Y(y[{i}])\n  );\n" for i in range(loads))
    return (f"module top(a, o, y);\n  input a;\n  wire a;\n  output o;\n  wire o;\n"
            f"  output [{loads - 1}:0] y;\n  wire [{loads - 1}:0] y;\n  wire \\big.net ;\n"
            f"  INV drv (\n    .A({driver_in}),\n    .Y(\\big.net )\n  );\n{sinks}"
            f"  assign o = \\big.net ;\nendmodule\n")


def _instances(netlist: str) -> dict[str, tuple[str, dict[str, str]]]:
    out = {}
    for m in re.finditer(r"^\s*(\\\S+|\w+)\s+(\S+)\s*\(\n(.*?)\n\s*\);", netlist, re.M | re.S):
        out[m.group(2)] = (m.group(1), {p: e.strip() for p, e in re.findall(r"\.(\w+)\((.*?)\)(?:,|$)",
                                                                            m.group(3), re.M)})
    return out


def _source(netlist: str, net: str) -> str:
    """The net a signal comes from once the BUF cells (identity) are looked through."""
    drivers = {c["Y"]: (cell, c) for cell, c in _instances(netlist).values() if "Y" in c}
    while net in drivers and drivers[net][0] == "BUF":
        net = drivers[net][1]["A"]
    return net


def test_toy_library_pins_and_table_range_are_parsed():
    cells = parse_liberty_cells(TOY_LIB)
    assert cells["INV"].pins["Y"].max_capacitance == 0.1 and cells["INV"].pins["A"].capacitance == 0.01
    assert cells["BUF"].table_max_load_pf == 0.05 and cells["BUF"].area == 4


def test_net_within_its_drivers_max_capacitance_is_left_unchanged():
    text = _fanout_netlist(9)            # 9 x 0.01 pF = 0.09 pF <= 0.1
    r = buffer_netlist(text, parse_liberty_cells(TOY_LIB), BufferRule(cell="BUF"))
    assert r.netlist == text and r.buffers == 0 and r.nets == ()


def test_overloaded_net_gets_a_tree_that_keeps_every_sink_and_meets_every_limit():
    cells = parse_liberty_cells(TOY_LIB)
    text = _fanout_netlist(200)          # 2 pF on an inverter allowed 0.1 pF
    r = buffer_netlist(text, cells, BufferRule(cell="BUF", port_load_pf=0.0))
    (net,) = r.nets
    assert net.net == "\\big.net" and net.driver == "INV" and net.load_pf == pytest.approx(2.0)
    # level 1: 2 pF / 0.05 pF per buffer = 40 buffers (0.16 pF > 0.1 on the inverter);
    # level 2: 40 x 0.004 = 0.16 pF / 0.05 -> 4 buffers, 0.016 pF on the inverter
    assert net.levels == 2 and r.buffers == 44 and r.area_um2 == 44 * 4
    inst = _instances(r.netlist)
    # every sink still hears the inverter's output, through buffers only
    for i in range(200):
        assert _source(r.netlist, inst[f"s{i}"][1]["A"]) == "\\big.net"
    # the driver, its net name and the output port's assign are untouched
    assert inst["drv"][1]["Y"] == "\\big.net" and "assign o = \\big.net ;" in r.netlist
    # the rule holds everywhere afterwards: a second pass finds nothing to do
    again = buffer_netlist(r.netlist, cells, BufferRule(cell="BUF"))
    assert again.nets == () and again.netlist == r.netlist
    # no buffer drives more than the buffer's table range
    loads = {}
    for cell, conns in inst.values():
        loads[conns["A"]] = loads.get(conns["A"], 0.0) + cells[cell].pins["A"].capacitance
    assert max(v for k, v in loads.items() if k.startswith("simtlab_buf_")) <= 0.05 + 1e-12


def test_net_driven_by_an_input_port_is_not_buffered():
    text = _fanout_netlist(200).replace("    .A(\\big.net ),", "    .A(a),")
    assert buffer_netlist(text, parse_liberty_cells(TOY_LIB), BufferRule(cell="BUF")).nets == ()


def test_missing_buffer_cell_is_a_clear_error():
    with pytest.raises(SynthError, match="buffer cell BUFX4 is not in the liberty library"):
        buffer_netlist(_fanout_netlist(3), parse_liberty_cells(TOY_LIB))


def test_osu018_buffering_makes_an_overloaded_inverter_timeable():
    # one INVX1 driving 2,000 inverter inputs (~19 pF, 37x its max_capacitance): OpenSTA
    # times it in the tens of ns unbuffered; the BUFX4 tree brings it to a few ns and the
    # power report stays finite
    from synth.fo4 import fo4_of
    from synth.liberty import Liberty
    from synth.sta import run_sta, sta_binary
    try:
        lib = Liberty.find()
    except SynthError:
        lib = None
    if lib is None or sta_binary() is None:
        if os.environ.get("CI"):
            pytest.fail("osu018 / OpenSTA not installed; `make setup` installs them")
        pytest.skip("osu018 / OpenSTA not installed; `make setup` installs them")
    text = _fanout_netlist(2000).replace("INV ", "INVX1 ")
    cells = parse_liberty_cells(lib.text())
    f = fo4_of(lib.text())
    r = buffer_netlist(text, cells, BufferRule(port_load_pf=f.load_pf))
    assert r.buffers > 0 and r.nets[0].load_pf > 10 * cells["INVX1"].pins["Y"].max_capacitance
    before, _ = run_sta(text, "top", lib.path, f, label="unbuffered")
    after, _ = run_sta(r.netlist, "top", lib.path, f, label="buffered")
    assert before.critical_ns > 10 and after.critical_ns < before.critical_ns / 5
    assert math.isfinite(after.energy_pj) and after.energy_pj > 0


def test_submodule_input_loads_its_parent_driver_by_what_it_drives_inside():
    # a bank module whose input bit k[1] drives 20 inverters (0.2 pF); the top's inverter
    # drives k[1] of 4 bank instances through a concatenation: 0.8 pF on a 0.1 pF inverter
    cells = parse_liberty_cells(TOY_LIB)
    inner = "".join(f"  INV i{i} (\n    .A(k[1]),\n    .Y(q[{i}])\n  );\n" for i in range(20))
    bank = ("module \\top.bank (k, q);\n  input [1:0] k;\n  wire [1:0] k;\n  output [19:0] q;\n"
            f"  wire [19:0] q;\n{inner}endmodule\n")
    banks = "".join(f"  \\top.bank  b{i} (\n    .k({{ n, a }}),\n    .q(y{i})\n  );\n" for i in range(4))
    top = ("module top(a, " + ", ".join(f"y{i}" for i in range(4)) + ");\n  input a;\n  wire a;\n"
           + "".join(f"  output [19:0] y{i};\n  wire [19:0] y{i};\n" for i in range(4))
           + f"  wire n;\n  INV drv (\n    .A(a),\n    .Y(n)\n  );\n{banks}endmodule\n")
    r = buffer_netlist(top + bank, cells, BufferRule(cell="BUF"))
    (net,) = r.nets
    assert net.module == "top" and net.net == "n" and net.load_pf == pytest.approx(0.8)
    inst = _instances(r.netlist)
    for i in range(4):
        conn = inst[f"b{i}"][1]["k"]
        first = conn.strip("{} ").split(",")[0].strip()
        assert first.startswith("simtlab_buf_") and _source(r.netlist, first) == "n"
        assert conn.strip("{} ").split(",")[1].strip() == "a"
    # the bank's input port nets are driven by a port: nothing is added inside the bank
    assert "simtlab_buf" not in r.netlist.split("module \\top.bank", 1)[1]


def test_flow_adds_the_buffers_cells_and_area_to_the_logic():
    from synth.area import TargetArea, buffered
    from synth.liberty import LibertyArea
    cells = parse_liberty_cells(TOY_LIB)
    a = LibertyArea(flip_flops=0, latches=0, cells=201, logic_um2=402.0, sequential_um2=0.0,
                    logic_node_nm=180.0, cells_by_type={"INV": 201})
    r = TargetArea(target=None, stats=None, verilog="", log="", yosys_version="", liberty=a,
                   netlist=_fanout_netlist(200))
    out = buffered(r, cells, BufferRule(cell="BUF"))
    assert out.buffering["buffers"] == 44 and out.buffering["nets"] == 1
    assert out.liberty.cells == 245 and out.liberty.logic_um2 == 402.0 + 44 * 4
    assert out.liberty.cells_by_type == {"BUF": 44, "INV": 201} and "simtlab_bufi_" in out.netlist
    same = buffered(dataclasses.replace(r, netlist=_fanout_netlist(5)), cells, BufferRule(cell="BUF"))
    assert same.liberty == a and same.buffering["buffers"] == 0
