"""The liberty area flow (synth/liberty.py) and the SRAM macro table (synth/macros.py).

Small throwaway components keep the Yosys runs to seconds. The macro tables built here are
synthetic (a linear law the fit must recover), not OpenRAM results; the committed
``synth/macros.yaml`` is checked for shape and provenance separately.
"""

from __future__ import annotations

import json
import os

import pytest
from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from golden.errors import ConfigError
from synth import area
from synth.errors import SynthError
from synth.liberty import Liberty, _granule
from synth.macros import DEFAULT_MACROS, MacroEntry, MacroLibrary, MemoryShape, scale_area
from synth.targets import Target


class SyncRam(wiring.Component):
    """A ``words`` x ``width`` memory, synchronous reads (``read_ports`` of them), one write
    port with ``granularity``-bit enables, and a registered XOR of the read data so that
    logic depends on the memory's output. ``comb=True`` makes the reads asynchronous and the
    output combinational."""

    def __init__(self, *, words: int, width: int, read_ports: int = 1, granularity: int = 0,
                 comb: bool = False):
        self._words, self._width, self._rp = words, width, read_ports
        self._gran, self._comb = granularity, comb
        abits = (words - 1).bit_length()
        super().__init__({"waddr": In(abits), "wdata": In(width), "we": In(width // (granularity or width)),
                          "raddr": In(abits), "q": Out(width)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = Memory(shape=self._width, depth=self._words, init=[])
        wp = mem.write_port(granularity=self._gran or None)
        m.d.comb += [wp.addr.eq(self.waddr), wp.data.eq(self.wdata), wp.en.eq(self.we)]
        acc = Signal(self._width)
        x = 0
        for i in range(self._rp):
            rp = mem.read_port(domain="comb" if self._comb else "sync")
            m.d.comb += rp.addr.eq(self.raddr + i)
            x = x ^ rp.data
        if self._comb:   # a register here would let Yosys merge it into a synchronous read
            m.d.comb += self.q.eq(x)
        else:
            m.d.sync += acc.eq(x)
            m.d.comb += self.q.eq(acc)
        return m


def _local(cls) -> str:
    return f"{__name__}.{cls.__name__}"


def _target(name, **params) -> Target:
    return Target(name=name, component=_local(SyncRam), params=params, where="targets[0]",
                  source="test.yaml")


def _law(words, width):
    """The synthetic area law of the test macro tables (a power law, like the fit)."""
    return 300.0 * words ** 0.6 * width ** 1.2


def _library(shapes=((16, 32), (32, 32), (64, 32), (32, 64), (16, 128), (64, 16))) -> MacroLibrary:
    entries = [MacroEntry(MemoryShape(w, b), "1r1w", _law(w, b), 1.0, "testpdk", 45.0, "synthetic")
               for w, b in shapes]
    return MacroLibrary(entries, "test-macros")


def _liberty() -> Liberty:
    try:
        return Liberty.find()
    except SynthError as exc:
        if os.environ.get("CI"):
            raise               # CI must run the liberty flow
        pytest.skip(f"osu018 liberty not installed ({exc}); `make setup` fetches it")


# --- macro table and fit --------------------------------------------------------------------

def test_shape_keys_and_parsing():
    s = MemoryShape(64, 128, 2, 1, 8)
    assert s.key == "64x128_we8" and s.bits == 8192 and "2R1W" in s.describe()
    assert MemoryShape.parse("64x128_we8") == MemoryShape(64, 128, 1, 1, 8)
    assert MemoryShape(64, 38).key == "64x38"
    with pytest.raises(ValueError):
        MemoryShape.parse("64x100_we8")     # a mask granule must divide the width


def test_fit_recovers_a_linear_law_and_prices_copies_per_read_port():
    lib = _library()
    assert lib.fit_error() < 1e-9
    p = lib.price(MemoryShape(128, 64, 2, 1), "t")
    assert p.copies == 2 and p.unit_um2 == pytest.approx(_law(128, 64))
    assert p.area_um2 == pytest.approx(2 * _law(128, 64)) and p.source == "fit over 6 synthetic macros"
    exact = lib.price(MemoryShape(32, 32), "t")       # compiled shapes are used as they are
    assert exact.source == "synthetic testpdk" and exact.unit_um2 == _law(32, 32)
    # shallower than a compiled macro of the same width: that macro (minimum depth)
    up = lib.price(MemoryShape(8, 128), "t")
    assert up.unit_um2 == _law(16, 128) and up.source.endswith("rounded up to 16x128")


def test_too_few_macros_to_fit_is_a_clear_error():
    lib = _library(shapes=((16, 32), (32, 32)))
    with pytest.raises(SynthError, match="fewer than 5 compiled macros.*make macros"):
        lib.price(MemoryShape(128, 64), "target x, memory m")


def test_scale_area_is_quadratic():
    assert scale_area(180.0 * 180.0, 180.0, 40.0) == pytest.approx(1600.0)


def test_committed_macros_have_provenance_and_a_usable_fit():
    lib = MacroLibrary.load(DEFAULT_MACROS)
    assert len(lib.entries) >= 5
    for e in lib.entries:
        assert e.tool == "OpenRAM" and e.tech == "freepdk45" and e.node_nm == 45.0
        assert e.area_um2 > e.shape.bits * 0.1          # FreePDK45 bit cells are ~1 um^2
        assert e.provenance.get("openram") and e.provenance.get("options")
    assert lib.fit() is not None and lib.fit_error() < 0.5


def test_malformed_macro_table_names_the_entry(tmp_path):
    p = tmp_path / "m.yaml"
    p.write_text("macros:\n  - shape: 16x32\n    ports: 1r1w\n    width_um: 1\n")
    with pytest.raises(ConfigError, match=r"macros\[0\]: missing key 'height_um'"):
        MacroLibrary.load(p)
    p.write_text("macros:\n  - shape: 16y32\n")
    with pytest.raises(ConfigError, match=r"macros\[0\].*WORDSxWIDTH"):
        MacroLibrary.load(p)


def test_write_mask_granule_from_the_enable_bits():
    assert _granule([5] * 8 + [6] * 8 + [7] * 8 + [9] * 8, 32) == 8
    assert _granule([4] * 32, 32) == 32
    assert _granule([], 16) == 16


# --- Yosys onto the osu018 cells -----------------------------------------------------------

def test_sync_memory_becomes_a_priced_macro_and_its_logic_stays(tmp_path):
    lib = _liberty()
    t = _target("ram_sync", words=64, width=16, read_ports=2, granularity=8)
    r = area.liberty_area_of(t, lib, _library())
    a = r.liberty
    (m,) = a.memories
    assert m.macro is not None and m.macro.copies == 2
    assert m.shape == MemoryShape(64, 16, 2, 1, 8)
    assert a.macro_bits == 64 * 16 and a.macro_um2 == pytest.approx(2 * _law(64, 16))
    # only the 16-bit output register is left as flip-flops (the read registers are in the macro)
    assert a.flip_flops == 16 and a.storage_bits == 16 + 1024
    assert a.logic_um2 > a.sequential_um2 > 0             # the XOR of the read data survived
    assert not any(t.startswith("sram_") for t in a.cells_by_type)
    assert a.total_um2_at(40.0) == pytest.approx(
        scale_area(a.logic_um2, lib.node_nm, 40) + scale_area(a.macro_um2, 45, 40))


def test_async_memory_is_mapped_to_flip_flops_with_the_reason():
    lib = _liberty()
    r = area.liberty_area_of(_target("ram_async", words=8, width=4, comb=True), lib, _library())
    (m,) = r.liberty.memories
    assert m.macro is None and m.reason == "asynchronous read port"
    assert r.liberty.flip_flops == 8 * 4 and r.liberty.macro_um2 == 0


def test_liberty_run_area_writes_reports(tmp_path):
    _liberty()
    targets = [_target("ram_a", words=32, width=8), _target("ram_b", words=8, width=4, comb=True)]
    lines = []
    area.run_area(targets, tmp_path, flow="liberty", macros=_library(), progress=lines.append,
                  source="test.yaml")
    assert len(lines) == 2 and "in macros" in lines[0]
    doc = json.loads((tmp_path / "area.json").read_text())
    assert doc["flow"] == "liberty" and doc["liberty"]["node_nm"] > 0
    assert doc["targets"]["ram_a"]["macro_bits"] == 256
    assert doc["targets"]["ram_b"]["memories"][0]["mapped_to_flip_flops"] == "asynchronous read port"
    md = (tmp_path / "area.md").read_text()
    assert "| ram_a |" in md and "ram_b" in md and "in FFs (asynchronous read port)" in md


def test_unknown_flow_and_missing_liberty_are_clear_errors(tmp_path, monkeypatch):
    with pytest.raises(SynthError, match="unknown synthesis flow"):
        area.run_area([], tmp_path, flow="asic")
    monkeypatch.setenv("SIMTLAB_LIBERTY", str(tmp_path / "none.lib"))
    with pytest.raises(SynthError, match="SIMTLAB_LIBERTY points at a missing file"):
        Liberty.find()


def test_paper_size_compressed_bank_keeps_its_arrays_as_sram_macros():
    """The 64-register G-Scalar bank (seed 003 §3.1): 8 byte arrays of 64 x 128 bits with
    byte write masks become OpenRAM macros (65,536 bits, the paper's bank); the 64 x 38-bit
    metadata array (2,432 bits) stays flip-flops because it is read in the request cycle."""
    from synth.targets import load_targets
    lib = _liberty()
    t = next(t for t in load_targets() if t.name == "gscalar_bank_32x64")
    a = area.liberty_area_of(t, lib, MacroLibrary.load(DEFAULT_MACROS)).liberty
    macros = [m for m in a.memories if m.macro is not None]
    assert len(macros) == 8 and {m.shape.key for m in macros} == {"64x128_we8"}
    assert all(m.macro.source == "OpenRAM freepdk45" for m in macros)
    assert a.macro_bits == 65536
    (meta,) = [m for m in a.memories if m.macro is None]
    assert meta.shape.bits == 64 * 38 and meta.reason == "asynchronous read port"
    # metadata flip-flops + the registered read outputs (flags, EBR, BVR), nothing else
    assert 2432 < a.flip_flops < 2432 + 64


# --- replicated submodules --------------------------------------------------------------

def _skip_table(tbs: int) -> Target:
    return Target(name=f"st{tbs}", component="rtl.darsie.skip_table.SkipTable",
                  params={"tbs": tbs, "entries": 2, "warps": 2, "pc_width": 4})


def test_identical_banks_are_shared_and_counted_per_instance():
    from synth.export import verilog_of
    from synth.hierarchy import instance_counts, replicated, share_identical_modules
    v = verilog_of(_skip_table(3))
    assert v.count("\nmodule ") >= 6                     # Amaranth: one module per instance
    shared = share_identical_modules(v)
    assert replicated(shared) == {"\\st3.bank0": 3}
    assert instance_counts(shared, "st3") == {"st3": 1, "\\st3.bank0": 3, "\\st3.bank0.free": 3}
    assert share_identical_modules(shared) == shared     # idempotent


def test_replicated_bank_area_is_one_bank_times_the_instances():
    lib = _liberty()
    one = area.liberty_area_of(_skip_table(1), lib, _library()).liberty
    three = area.liberty_area_of(_skip_table(3), lib, _library()).liberty
    # per bank: 2 x (PC 4 + mask 2 + Sync + IsLoad + LeaderWB + valid) + 1 LRU + 2 majority
    assert one.flip_flops == 23 and three.flip_flops == 3 * 23
    assert three.replicated == {"st3.bank0": 3} and one.replicated == {}
    assert 2.5 * one.logic_um2 < three.logic_um2 < 3.5 * one.logic_um2
