"""cocotb testbench: rtl.ilp.gshare.Gshare vs golden Gshare (seed 002 §4.4.3).

* ``run_directed``: counter saturation, history shifting, prediction and update of the
  same counter in one cycle, per-warp histories, each from reset on a fresh golden model;
* ``run_random``: seeded front-end-like random cycles (tb/ilp/gshare_stimulus.py), every
  output scored every cycle, coverage goals asserted;
* ``run_replay``: traces recorded from timing runs of real kernels in the chapter's
  branch-prediction study (``ilp-sc`` + ``ilp-bp-gshare`` on gtx280_ilp, bypass, branch
  latency 1; golden/mechanisms/ilp/trace.py) of :data:`TRACE_WORKLOADS`, each from reset,
  every cycle scored against the recorded outputs and against a fresh golden model.

The counter table is an SRAM that the DUT's reset does not clear; the bench reloads the
golden reset value through the simulator's back door after every reset (``preload``).
"""

from __future__ import annotations

from functools import partial

import cocotb
import pytest

from golden.mechanisms.ilp.trace import record_gshare_trace
from golden.structures.ilp import Gshare, GshareOps, GshareOutputs, GshareParams
from golden.structures.ilp.gshare import COUNTER_RESET
from rtl.ilp.gshare import Gshare as GshareRTL
from tb.common import bench as common_bench
from tb.ilp.gshare_stimulus import GOALS, count_events, directed, random_ops

#: real kernels whose predictor traffic is replayed: NQU (the chapter's big winner), Ray
#: and MV (data-dependent loops); small inputs on a one-SM gtx280 (SM 0 runs every thread
#: block, so the trace fills and the recording run stops early), first 1,500 structure
#: cycles each
TRACE_WORKLOADS = ("NQU", "RAY", "MV")
TRACE_CYCLES = 1500
TRACE_OVERRIDES = {"core.num_sms": 1}


def _preload(dut, params: GshareParams) -> None:
    pht = dut.pht
    for i in range(params.counters):
        pht[i].value = COUNTER_RESET


BENCH = common_bench.StructureBench(
    name="ilp_gshare", golden=Gshare, params_cls=GshareParams, ops_cls=GshareOps,
    outputs_cls=GshareOutputs, rtl=GshareRTL, directed=directed, random_ops=random_ops,
    count_events=count_events, goals=GOALS,
    record_trace=partial(record_gshare_trace, overrides=TRACE_OVERRIDES),
    env_trace_files="SIMTLAB_GSHARE_TRACE_FILES", preload=_preload)


@cocotb.test()
async def run_directed(dut):
    """Saturation, history, same-cycle and per-warp scenarios, each from reset."""
    await common_bench.directed(dut, BENCH)


@cocotb.test()
async def run_random(dut):
    """Seeded random cycles, scored every cycle, coverage goals asserted."""
    await common_bench.random_run(dut, BENCH)


@cocotb.test()
async def run_replay(dut):
    """Replay real-kernel traces: every cycle vs the recorded outputs and vs golden."""
    await common_bench.replay(dut, BENCH)


@pytest.mark.parametrize("params", [GshareParams(), GshareParams(histories=32)],
                         ids=["paper", "per_warp"])
def test_ilp_gshare_cocotb(params):
    common_bench.run_structure(BENCH, params, __name__)


def test_ilp_gshare_real_traces_cocotb(tmp_path):
    """Record the gshare of SM 0 in timing runs of real kernels, replay on the RTL."""
    common_bench.run_real_traces(BENCH, TRACE_WORKLOADS, TRACE_CYCLES, tmp_path, __name__)
