# amaranth: UnusedElaboratable=no
"""DARSIE JSON-lines traces: recorder/reader round trip, validation errors, and a recorded
golden trace replayed on the RTL in amaranth.sim (the cocotb replay is in tb/darsie)."""

from __future__ import annotations

import json
import random

import pytest

from golden.errors import ConfigError
from golden.structures.darsie import STRUCTURES
from golden.structures.darsie.rename_table import RenameTable, RenameTableParams
from golden.structures.trace import TRACE_FORMAT, TraceRecorder, read_trace, trace_files
from tb.darsie.amaranth_sim import check_against_golden
from tb.darsie.benches import BENCHES
from tb.darsie.cocotb_bench import record_golden_trace

SEED = 20240706
PARAMS = {
    "skip_table": STRUCTURES["skip_table"].params_cls(tbs=2, entries=3, warps=4, pc_width=8),
    "pc_coalescer": STRUCTURES["pc_coalescer"].params_cls(slots=4, tbs=2, pc_width=6),
    "rename_table": RenameTableParams(warps=4, entries=3, reg_width=3, version_width=2),
    "version_table": STRUCTURES["version_table"].params_cls(entries=3, reg_width=2,
                                                            version_width=2, phys_width=3),
    "phys_freelist": STRUCTURES["phys_freelist"].params_cls(entries=4, tag_width=3, banks=2),
}


def test_every_structure_has_a_bench():
    assert set(BENCHES) == set(STRUCTURES) == set(PARAMS)


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_recorded_golden_trace_replays_on_rtl(name, tmp_path):
    path = record_golden_trace(name, PARAMS[name], tmp_path / f"{name}.jsonl", SEED, cycles=120)
    trace = read_trace(path)
    assert trace.structure == name and trace.params == PARAMS[name] and len(trace.cycles) == 120
    assert trace.meta == {"source": "golden random run", "seed": SEED}
    golden = BENCHES[name].golden(PARAMS[name])
    assert all(golden.step(ops) == out for ops, out in trace.cycles)
    check_against_golden(name, PARAMS[name], [ops for ops, _ in trace.cycles], str(path))


def test_idle_fields_are_omitted_and_directory_scan_filters(tmp_path):
    with TraceRecorder.open(tmp_path / "a" / "r.jsonl", "rename_table", PARAMS["rename_table"]) as rec:
        t = RenameTable(PARAMS["rename_table"], recorder=rec)
        t.set(1, 2, 3)
        t.lookup(1, 2)
    lines = (tmp_path / "a" / "r.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["format"] == TRACE_FORMAT
    assert json.loads(lines[1])["ops"] == {"wr_op": 1, "wr_warp": 1, "wr_reg": 2, "wr_version": 3}
    assert json.loads(lines[2])["out"]["rd_version"] == 3
    record_golden_trace("phys_freelist", PARAMS["phys_freelist"], tmp_path / "b.jsonl", 1, 5)
    assert trace_files(tmp_path) == [tmp_path / "a" / "r.jsonl", tmp_path / "b.jsonl"]
    assert trace_files(tmp_path, "phys_freelist") == [tmp_path / "b.jsonl"]
    with pytest.raises(ConfigError):
        trace_files(tmp_path / "missing")


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", "malformed JSON"),
    ('{"ops": {"bogus": 1}, "out": {}}', "unknown field"),
    ('{"ops": {}, "out": {"rd_hit": 0}}', "missing field"),
    ('{"ops": {"wr_op": "set"}, "out": {}}', "expected an integer"),
    ('{"ops": {}}', "keys 'ops' and 'out'"),
])
def test_malformed_lines_name_file_and_line(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    header = {"format": TRACE_FORMAT, "structure": "rename_table",
              "params": {"warps": 4, "entries": 3, "reg_width": 3, "version_width": 2}}
    path.write_text(json.dumps(header) + "\n" + line + "\n")
    with pytest.raises(ConfigError, match=message) as info:
        read_trace(path)
    assert f"{path}:2" in str(info.value)


def test_bad_headers(tmp_path):
    path = tmp_path / "h.jsonl"
    for text, message in [("", "empty trace"), ('{"format": "x"}', "header"),
                          (json.dumps({"format": TRACE_FORMAT, "structure": "irb"}), "unknown structure"),
                          (json.dumps({"format": TRACE_FORMAT, "structure": "rename_table",
                                       "params": {"ways": 2}}), "params")]:
        path.write_text(text)
        with pytest.raises(ConfigError, match=message):
            read_trace(path)
    with pytest.raises(ConfigError):
        TraceRecorder.open(tmp_path / "x.jsonl", "rename_table", PARAMS["skip_table"])
