"""tb.runner builds each design once: runs of different testbench cases on the same
component and parameters share one Verilog export and Icarus image, and an RTL edit
gives a new one (never a stale design)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtl.common.popcount import PopCount
from tb import runner

MODULE = "tb.common.test_popcount"


@pytest.fixture
def roots(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "SIM_BUILD_ROOT", tmp_path / "sim")
    monkeypatch.setattr(runner, "DUT_BUILD_ROOT", tmp_path / "sim" / "dut")
    return tmp_path / "sim"


def _designs(root: Path) -> list[Path]:
    return sorted(p for p in (root / "dut").iterdir() if p.is_dir())


def test_runs_of_two_cases_share_one_design_build(roots):
    runner.run_cocotb(PopCount, {"width": 8}, test_module=MODULE, testcase="run_directed")
    (design,) = _designs(roots)
    verilog, image = design / "popcount.v", design / "sim.vvp"
    stamps = (verilog.stat().st_mtime_ns, image.stat().st_mtime_ns)
    runner.run_cocotb(PopCount, {"width": 8}, test_module=MODULE, testcase="run_random")
    assert _designs(roots) == [design]                       # no second build ...
    assert (verilog.stat().st_mtime_ns, image.stat().st_mtime_ns) == stamps  # ... untouched
    runs = [p for p in roots.iterdir() if p.is_dir() and p.name != "dut"]
    assert len(runs) == 2 and all((p / "results.xml").is_file() for p in runs)
    # other parameters are another design
    runner.run_cocotb(PopCount, {"width": 5}, test_module=MODULE, testcase="run_directed")
    assert len(_designs(roots)) == 2


def test_an_rtl_edit_changes_the_design_hash(tmp_path, monkeypatch):
    (tmp_path / "rtl" / "common").mkdir(parents=True)
    src = tmp_path / "rtl" / "common" / "popcount.py"
    src.write_text("# v1\n")
    monkeypatch.setattr(runner, "REPO_ROOT", tmp_path)
    before = runner._rtl_digest(PopCount)
    assert runner._rtl_digest(PopCount) == before            # stable
    src.write_text("# v2\n")
    edited = runner._rtl_digest(PopCount)
    assert edited != before
    (tmp_path / "rtl" / "common" / "new.py").write_text("")  # a new RTL file counts too
    assert runner._rtl_digest(PopCount) not in (before, edited)
