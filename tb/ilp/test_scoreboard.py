"""cocotb testbench: rtl.ilp.scoreboard.Scoreboard vs golden Scoreboard (seed 002 §4.4.2).

* ``run_directed``: the chapter's two test sequences (stall-on-use; WAW through the NM
  bit), the store rules and the full board, each from reset on a fresh golden model;
* ``run_random``: seeded state-aware random cycles (tb/ilp/stimulus.py), every output
  scored every cycle, coverage goals asserted;
* ``run_replay``: traces recorded from timing runs of real kernels with ``ilp-sc``
  attached on the gtx280_ilp GPU (golden/mechanisms/ilp/trace.py) of
  :data:`TRACE_WORKLOADS`, each from reset, every cycle scored against the recorded
  outputs and against a fresh golden model.

The data store is an SRAM (not reset); its outputs are masked by the entry's status
mask, so DUT and golden agree after every reset without clearing it.
"""

from __future__ import annotations

import cocotb
import pytest

from golden.mechanisms.ilp.trace import record_scoreboard_trace
from golden.structures.ilp import Scoreboard, ScoreboardOps, ScoreboardOutputs, ScoreboardParams
from rtl.ilp.scoreboard import Scoreboard as ScoreboardRTL
from tb.common import bench as common_bench
from tb.ilp.stimulus import GOALS, count_events, directed, random_ops

#: real kernels whose scoreboard traffic is replayed (ILP chapter workloads: low-TLP NQU,
#: BlackScholes, Ray), small inputs, SM 0, first 2,000 structure cycles each
TRACE_WORKLOADS = ("BS", "NQU", "RAY")
TRACE_CYCLES = 2000

BENCH = common_bench.StructureBench(
    name="ilp_scoreboard", golden=Scoreboard, params_cls=ScoreboardParams,
    ops_cls=ScoreboardOps, outputs_cls=ScoreboardOutputs, rtl=ScoreboardRTL,
    directed=directed, random_ops=random_ops, count_events=count_events, goals=GOALS,
    record_trace=record_scoreboard_trace, env_trace_files="SIMTLAB_ILP_TRACE_FILES")


@cocotb.test()
async def run_directed(dut):
    """The chapter's sequences and the store / full-board corner cases, each from reset."""
    await common_bench.directed(dut, BENCH)


@cocotb.test()
async def run_random(dut):
    """Seeded random cycles, scored every cycle, coverage goals asserted."""
    await common_bench.random_run(dut, BENCH)


@cocotb.test()
async def run_replay(dut):
    """Replay real-kernel traces: every cycle vs the recorded outputs and vs golden."""
    await common_bench.replay(dut, BENCH)


@pytest.mark.parametrize("params", [ScoreboardParams(),
                                    ScoreboardParams(entries=4, warps=6, lanes=8, reg_width=5)],
                         ids=["paper", "small"])
def test_ilp_scoreboard_cocotb(params):
    common_bench.run_structure(BENCH, params, __name__)


def test_ilp_scoreboard_real_traces_cocotb(tmp_path):
    """Record the scoreboard of SM 0 in timing runs of real kernels, replay on the RTL."""
    common_bench.run_real_traces(BENCH, TRACE_WORKLOADS, TRACE_CYCLES, tmp_path, __name__)
