"""Smoke tests of the synthesis flow (synth/): targets file validation, Verilog export,
Yosys synthesis and the parsing of its statistics, and the error messages users meet.

The Yosys runs use small parameters (width 8, 4-entry CAM) so the file takes seconds.
"""

from __future__ import annotations

import gc
import json

import pytest
from amaranth.hdl import Fragment, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from golden.errors import ConfigError
from synth import area, export
from synth.errors import SynthError
from synth.fileio import write_atomic
from synth.stat import CellStats, area_from_stats, parse_stat_json
from synth.targets import (Target, build_component, load_targets, parse_targets,
                           select_targets)

PRIMITIVES = {
    "rtl.common.priority_encoder.PriorityEncoder",
    "rtl.common.leading_one.LeadingOneDetector",
    "rtl.common.popcount.PopCount",
    "rtl.common.cam.CAM",
    "rtl.common.freelist.FreeList",
}


class Accumulator(wiring.Component):
    """Throwaway test component: a ``width``-bit register that adds ``d`` every cycle.

    It has exactly ``width`` flip-flops, which checks that the flow counts FF bits right.
    """

    def __init__(self, *, width: int):
        self._width = width
        super().__init__({"d": In(width), "q": Out(width)})

    def elaborate(self, platform):
        m = Module()
        acc = Signal(self._width)
        m.d.sync += acc.eq(acc + self.d)
        m.d.comb += self.q.eq(acc)
        return m


class BrokenElaboration(wiring.Component):
    """Throwaway test component whose elaboration fails."""

    def __init__(self, *, width: int):
        super().__init__({"d": In(width)})

    def elaborate(self, platform):
        raise RuntimeError("deliberately broken elaborate()")


def _local(cls: type) -> str:
    """Dotted path of a class defined in this test module, as the targets file would name it."""
    return f"{__name__}.{cls.__name__}"


def _target(name: str, component: str, **params) -> Target:
    return Target(name=name, component=component, params=params, where="targets[0]",
                  source="test.yaml")


# --- the committed targets file -------------------------------------------------------------

def test_committed_targets_cover_every_primitive_and_elaborate():
    targets = load_targets()
    assert PRIMITIVES <= {t.component for t in targets}
    for t in targets:
        component = build_component(t)
        assert isinstance(component, wiring.Component), t.name
        Fragment.get(component, None)


def test_paper_sized_rows_are_present():
    by_name = {t.name: t for t in load_targets()}
    assert by_name["cam_8x48"].params == {"entries": 8, "tag_width": 48}
    assert by_name["freelist_32"].params == {"entries": 32}
    for name in ("priority_encoder_32", "leading_one_32", "popcount_32"):
        assert by_name[name].params == {"width": 32}


def test_uniform_vector_rows_are_at_the_paper_sizes():
    from golden.structures.uv import IRBParams, SRFMapParams
    by_name = {t.name: t for t in load_targets()}
    irb = by_name["uv_irb_8"]
    assert IRBParams(**irb.params).total_bits == 1192 and "1,192 bits" in irb.paper
    parity = by_name["uv_irb_8_parity"].params
    assert parity["parity"] is True and parity["fault_injection"] is False
    assert SRFMapParams(**by_name["uv_srf_map_512x128"].params).paper_map_bits == 3584
    assert by_name["uv_detect"].params == {"sources": 3, "warp_size": 32}


def test_warpman_rows_are_at_the_gtx480_warpman_sizes():
    from golden.configs import load_config
    from golden.structures.warpman import DispatchCheckParams, WorkloadBufferParams
    by_name = {t.name: t for t in load_targets()}
    wb = by_name["warpman_wb"]
    assert WorkloadBufferParams(**wb.params).entry_bits == 40 and "40 bits" in wb.paper
    check = DispatchCheckParams(**by_name["warpman_check"].params)
    assert check == DispatchCheckParams.from_config(load_config("gtx480_warpman"))


def test_capri_rows_are_at_the_paper_sizes():
    from golden.structures.capri import CaptParams, WcuParams
    by_name = {t.name: t for t in load_targets()}
    capt8, capt32 = by_name["capri_capt_8"], by_name["capri_capt_32"]
    assert CaptParams(**capt8.params).total_bits == 272 and "272 bits" in capt8.paper
    assert CaptParams(**capt32.params).total_bits == 1088 and "1,088 bits" in capt32.paper
    assert CaptParams(**capt32.params) == CaptParams()            # the evaluated default
    assert WcuParams(**by_name["capri_wcu"].params) == WcuParams(warps=8, lanes=32)


def test_capri_capt_8_has_paper_bits_plus_lru_flip_flops():
    """272 storage bits (§5.5) + the 28-bit age matrix of true LRU, nothing else."""
    from golden.structures.capri import CaptParams
    t = next(t for t in load_targets() if t.name == "capri_capt_8")
    assert area.area_of(t).stats.flip_flops == CaptParams(**t.params).state_bits == 300


# --- synthesis and the parsed numbers -------------------------------------------------------

def test_accumulator_has_exactly_width_flip_flops():
    result = area.area_of(_target("acc_8", _local(Accumulator), width=8))
    s = result.stats
    assert s.flip_flops == 8
    assert s.storage_bits == 8 and s.latches == 0 and s.memory_bits == 0
    assert s.cells > 8
    assert s.transistors > 0 and s.transistors_exact
    assert s.cells == sum(s.cells_by_type.values())
    assert "module acc_8(" in result.verilog
    assert result.yosys_version.startswith("Yosys ")


def test_small_primitives_end_to_end(tmp_path):
    targets = [
        _target("cam_4x8", "rtl.common.cam.CAM", entries=4, tag_width=8),
        _target("popcount_8", "rtl.common.popcount.PopCount", width=8),
        _target("freelist_8", "rtl.common.freelist.FreeList", entries=8),
    ]
    lines: list[str] = []
    area.run_area(targets, tmp_path, source="test.yaml", progress=lines.append)
    assert len(lines) == 3 and lines[0].startswith("[1/3] cam_4x8")

    report = json.loads((tmp_path / "area.json").read_text())["targets"]
    cam, pop, fl = report["cam_4x8"], report["popcount_8"], report["freelist_8"]
    assert cam["flip_flops"] >= 4 * (8 + 1)          # tags plus valid bits (plus LRU state)
    assert cam["storage_bits"] == cam["flip_flops"]
    assert pop["flip_flops"] == 0 and pop["cells"] > 0 and pop["transistors"] > 0
    assert fl["flip_flops"] >= 8                     # at least one bit per index
    for row in report.values():
        assert row["cells"] == sum(row["cells_by_type"].values())
        assert row["transistors"] > 0

    md = (tmp_path / "area.md").read_text()
    rows = [ln for ln in md.splitlines() if ln.startswith("| ") and not ln.startswith("| target")]
    assert [r.split("|")[1].strip() for r in rows] == ["cam_4x8", "popcount_8", "freelist_8"]
    assert f"| {cam['flip_flops']} | {cam['storage_bits']} | {cam['cells']} |" in md
    for name in ("cam_4x8", "popcount_8", "freelist_8"):
        assert f"module {name}(" in (tmp_path / "verilog" / f"{name}.v").read_text()
        assert (tmp_path / "logs" / f"{name}.yosys.log").stat().st_size > 0


def test_export_cli_writes_named_module(tmp_path, capsys):
    assert export.main(["--out", str(tmp_path), "--only", "popcount_32"]) == 0
    assert "module popcount_32(" in (tmp_path / "popcount_32.v").read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["popcount_32.v"]


# --- errors users meet ----------------------------------------------------------------------

def test_unknown_target_lists_known_names(tmp_path, capsys):
    with pytest.raises(ConfigError) as err:
        select_targets(load_targets(), ["cam_8x48", "no_such_target"])
    msg = str(err.value)
    assert "'no_such_target'" in msg and "cam_8x48" in msg and "freelist_32" in msg

    out = tmp_path / "out"
    assert area.main(["--out", str(out), "--only", "no_such_target"]) == 1
    assert "unknown synthesis target 'no_such_target'" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("text, expected", [
    ("targets:\n  - name: [cam\n", "test.yaml:3:1: malformed YAML"),
    ("- name: x\n", "expected a mapping with key 'targets', got list"),
    ("targets: []\n", "targets: expected a non-empty list"),
    ("target: []\n", "target: unknown key (expected: targets)"),
    ("targets:\n  - component: rtl.common.cam.CAM\n", "targets[0].name: missing required key"),
    ("targets:\n  - {name: 7, component: a.B}\n", "targets[0].name: expected str, got int"),
    ("targets:\n  - {name: 7x, component: a.B}\n", "targets[0].name: '7x' is not a valid module name"),
    ("targets:\n  - {name: a, component: CAM}\n", "targets[0].component: 'CAM' is not a dotted class path"),
    ("targets:\n  - {name: a, component: a.B, parmas: {}}\n", "targets[0].parmas: unknown key"),
    ("targets:\n  - {name: a, component: a.B, params: [1]}\n", "targets[0].params: expected a mapping, got list"),
    ("targets:\n  - {name: a, component: a.B}\n  - {name: b, component: a.B, params: {w: {x: 1}}}\n",
     "targets[1].params.w: expected int, bool, float, str or a list of them, got dict"),
    ("targets:\n  - {name: a, component: a.B, params: {w: [1, null]}}\n",
     "targets[0].params.w[1]: expected int, bool, float or str, got null"),
    ("targets:\n  - {name: a, component: a.B, notes: 3}\n", "targets[0].notes: expected str, got int"),
    ("targets:\n  - {name: a, component: a.B}\n  - {name: a, component: a.C}\n",
     "targets[1].name: duplicate target name 'a' (first given at targets[0])"),
    ("targets:\n  - {name: a, name: b, component: a.B}\n", "found duplicate key 'name'"),
])
def test_malformed_targets_name_the_key_path(text, expected):
    with pytest.raises(ConfigError) as err:
        parse_targets(text, source="test.yaml")
    assert expected in str(err.value)
    assert str(err.value).startswith("test.yaml")


@pytest.mark.parametrize("params, expected", [
    ("{entries: '8', tag_width: 48}", "targets[2].params.entries: expected int, got str '8'"),
    ("{entries: 8, tag_width: 48, ways: 2}", "targets[2].params.ways: CAM has no parameter 'ways'"),
    ("{entries: 8}", "targets[2].params: missing required parameter 'tag_width' of CAM"),
    ("{entries: 0, tag_width: 48}", "targets[2].params: rtl.common.cam.CAM rejected"),
])
@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_parameters_are_checked_against_the_component(params, expected):
    text = ("targets:\n"
            "  - {name: pe, component: rtl.common.priority_encoder.PriorityEncoder, params: {width: 4}}\n"
            "  - {name: pc, component: rtl.common.popcount.PopCount, params: {width: 4}}\n"
            f"  - {{name: cam, component: rtl.common.cam.CAM, params: {params}}}\n")
    targets = parse_targets(text, source="test.yaml")
    with pytest.raises(ConfigError) as err:
        build_component(targets[2])
    assert f"test.yaml: {expected}" in str(err.value)
    del err            # the half-built component of a rejecting constructor dies here,
    gc.collect()       # under this test's warning filter, not in a later test


def test_import_errors_name_the_component():
    with pytest.raises(SynthError) as err:
        build_component(_target("ghost", "rtl.common.no_such_module.Ghost"))
    assert "target ghost" in str(err.value) and "rtl.common.no_such_module" in str(err.value)
    with pytest.raises(SynthError) as err:
        build_component(_target("ghost", "rtl.common.cam.NoSuchClass"))
    assert "module 'rtl.common.cam' has no class 'NoSuchClass'" in str(err.value)


def test_elaboration_error_names_the_component_and_writes_nothing(tmp_path):
    targets = [_target("acc_4", _local(Accumulator), width=4),
               _target("broken_4", _local(BrokenElaboration), width=4)]
    with pytest.raises(SynthError) as err:
        area.run_area(targets, tmp_path / "out", progress=None)
    msg = str(err.value)
    assert "target broken_4" in msg and "BrokenElaboration" in msg
    assert "deliberately broken elaborate()" in msg
    assert not (tmp_path / "out").exists()


def test_yosys_failure_names_the_component_and_shows_the_log_tail():
    with pytest.raises(SynthError) as err:
        area.synthesize_verilog("module broken(a; endmodule\n", "broken", "target broken (Test)")
    msg = str(err.value)
    assert msg.startswith("target broken (Test): Yosys failed")
    assert "syntax error" in msg                    # from the tail of the Yosys log

    with pytest.raises(SynthError) as err:
        area.synthesize_verilog("module present(input a, output b); assign b = a; endmodule\n",
                                "absent", "target absent (Test)")
    assert "target absent (Test): Yosys failed" in str(err.value)
    assert "absent" in str(err.value).split("log tail:")[1]


# --- parsing and file output without Yosys ---------------------------------------------------

def test_stat_parsing_counts_flip_flop_and_latch_bits():
    stat_text = json.dumps({"creator": "Yosys 9.9", "design": {
        "num_cells": 12, "num_memory_bits": 16, "num_port_bits": 5,
        "num_cells_by_type": {"$_DFFE_PP_": 3, "$_SDFF_PP0_": 2, "$_DLATCH_P_": 1, "$_AND_": 6},
        "estimated_num_transistors": "345+"}})
    mapped = parse_stat_json("3. Printing statistics.\n" + stat_text, "t")
    assert (mapped.transistors, mapped.transistors_exact) == (345, False)
    cmos = CellStats(cells=14, cells_by_type={"$_DFF_P_": 5, "$_MUX_": 9}, memory_bits=0,
                     port_bits=5, transistors=188)
    s = area_from_stats(mapped, cmos, "t")
    assert (s.flip_flops, s.latches, s.memory_bits, s.storage_bits) == (5, 1, 16, 22)
    assert s.transistors == 188 and s.transistors_exact
    assert s.top_cell_types(2) == [("$_AND_", 6), ("$_DFFE_PP_", 3)]

    coarse = CellStats(cells=1, cells_by_type={"$dff": 1}, memory_bits=0, port_bits=2)
    with pytest.raises(SynthError, match=r"t: word-level storage cells \['\$dff'\]"):
        area_from_stats(coarse, cmos, "t")
    with pytest.raises(SynthError, match="t: cannot parse Yosys stat JSON"):
        parse_stat_json("{not json}", "t")


def test_write_atomic_keeps_old_content_on_failure(tmp_path):
    path = tmp_path / "area.md"
    write_atomic(path, "old\n")
    with pytest.raises(TypeError):
        write_atomic(path, 42)  # type: ignore[arg-type]  # fails inside the write
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["area.md"]


def test_yosys_time_limit_comes_from_the_environment_or_the_default():
    from synth.errors import SynthError
    from synth.yosys import DEFAULT_TIMEOUT_S, TIMEOUT_ENV, timeout_from_env
    assert timeout_from_env({}) == DEFAULT_TIMEOUT_S
    assert timeout_from_env({TIMEOUT_ENV: " "}) == DEFAULT_TIMEOUT_S
    assert timeout_from_env({TIMEOUT_ENV: "3600"}) == 3600.0
    for bad in ("soon", "0", "-5", "nan"):
        with pytest.raises(SynthError, match=f"{TIMEOUT_ENV}=.*above 0"):
            timeout_from_env({TIMEOUT_ENV: bad})
