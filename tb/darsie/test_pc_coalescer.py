"""cocotb testbench: DARSIE PC coalescer (rtl/darsie) vs its golden model.

Driver `tb.stepper.StepTB`, reference `golden.structures.darsie`, scoreboard
`tb.runner.Scoreboard`; stimulus and coverage goals in `tb/darsie/stimulus.py`, bodies in
`tb/darsie/cocotb_bench.py`. ``run_replay`` replays JSON-lines traces: always one recorded
from a golden random run, and every trace under ``$SIMTLAB_DARSIE_TRACES`` in
``test_pc_coalescer_trace_dir_cocotb`` (skipped when the variable is unset).
"""

from __future__ import annotations

from pathlib import Path

import cocotb
import pytest

from golden.structures.darsie import CoalescerParams
from tb.darsie import cocotb_bench as bench
from tb.runner import default_seed

NAME = "pc_coalescer"


@cocotb.test()
async def run_directed(dut):
    """Named corner cases, each from reset."""
    await bench.directed(dut, NAME)


@cocotb.test()
async def run_random(dut):
    """Seeded constrained-random cycles, scored every cycle, coverage goals asserted."""
    await bench.random_run(dut, NAME)


@cocotb.test()
async def run_replay(dut):
    """Replay the trace files handed over by the launcher, scored vs trace and golden."""
    await bench.replay(dut, NAME)


@pytest.mark.parametrize("params", [CoalescerParams(), CoalescerParams(slots=8, tbs=4, pc_width=16),
                                    CoalescerParams(slots=8, tbs=4, pc_width=16, ports=4),
                                    CoalescerParams(slots=8, tbs=4, pc_width=16, ports=1)],
                         ids=["paper", "small", "four_ports", "one_port"])
def test_pc_coalescer_cocotb(params, tmp_path):
    bench.run_structure(NAME, params, __name__, tmp_path, default_seed())


def test_pc_coalescer_trace_dir_cocotb():
    bench.replay_trace_dir(NAME, __name__)


def test_documented_replay_command_with_a_relative_trace_dir(tmp_path, monkeypatch):
    """``SIMTLAB_DARSIE_TRACES=<relative dir> pytest tb/darsie -k trace_dir_cocotb`` (tb/darsie/README.md)
    replays the traces found there although the simulator runs in its own build folder."""
    params = CoalescerParams(slots=8, tbs=4, pc_width=16)
    monkeypatch.chdir(tmp_path)
    bench.record_golden_trace(NAME, params, Path("traces") / "sub" / f"{NAME}_a.jsonl", 11)
    monkeypatch.setenv(bench.ENV_TRACE_DIR, "traces")
    assert bench.run_trace_dir(NAME, __name__) == 1
