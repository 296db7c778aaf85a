"""cocotb testbench: DARSIE physical register freelist (rtl/darsie) vs its golden model.

Driver `tb.stepper.StepTB`, reference `golden.structures.darsie`, scoreboard
`tb.runner.Scoreboard`; stimulus and coverage goals in `tb/darsie/stimulus.py`, bodies in
`tb/darsie/cocotb_bench.py`. ``run_replay`` replays JSON-lines traces: always one recorded
from a golden random run, and every trace under ``$SIMTLAB_DARSIE_TRACES`` in
``test_phys_freelist_trace_dir_cocotb`` (skipped when the variable is unset).
"""

from __future__ import annotations

import cocotb
import pytest

from golden.structures.darsie import PhysFreeListParams
from tb.darsie import cocotb_bench as bench
from tb.runner import default_seed

NAME = "phys_freelist"


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


@pytest.mark.parametrize("params", [PhysFreeListParams(), PhysFreeListParams(entries=8, tag_width=5, banks=4)], ids=["paper", "small"])
def test_phys_freelist_cocotb(params, tmp_path):
    bench.run_structure(NAME, params, __name__, tmp_path, default_seed())


def test_phys_freelist_trace_dir_cocotb():
    bench.replay_trace_dir(NAME, __name__)
