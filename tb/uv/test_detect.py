"""cocotb testbench: rtl.uv.detect.UniformDetect vs golden UniformDetect (seed 002 §2.3,
§2.4; safe copy-on-write rule). Combinational: each "cycle" is one instruction.

* ``run_directed``: every source-kind combination with every uniform bit, then the mask,
  eligibility and destination bits around a uniform instruction;
* ``run_random``: seeded random instructions, every output scored, every kind
  combination covered;
* ``run_replay``: a trace recorded here from the golden model under the random
  stimulus, and real-kernel traces from ``$SIMTLAB_UV_TRACE_DIR`` when set.
"""

from __future__ import annotations

import cocotb
import pytest

from golden.structures.uv import DetectParams
from tb.common import bench as common_bench
from tb.uv.benches import BENCHES, REAL_TRACES, replay_random_trace, replay_trace_dir

BENCH = BENCHES["uv_detect"]


@cocotb.test()
async def run_directed(dut):
    """Every kind combination, then mask / eligibility / destination around a uniform one."""
    await common_bench.directed(dut, BENCH)


@cocotb.test()
async def run_random(dut):
    """Seeded random instructions, scored, coverage goals asserted."""
    await common_bench.random_run(dut, BENCH)


@cocotb.test()
async def run_replay(dut):
    """Replay traces: every instruction vs the recorded outputs and vs golden."""
    await common_bench.replay(dut, BENCH)


@pytest.mark.parametrize("params", [DetectParams(), DetectParams(sources=2, warp_size=64)],
                         ids=["paper", "s2_w64"])
def test_uv_detect_cocotb(params):
    common_bench.run_structure(BENCH, params, __name__)


def test_uv_detect_recorded_trace_cocotb(tmp_path):
    """Record a golden trace under the random stimulus, replay it on the RTL."""
    replay_random_trace(BENCH, DetectParams(), tmp_path, __name__)


def test_uv_detect_trace_dir_cocotb():
    """Replay the real-kernel detection traces of $SIMTLAB_UV_TRACE_DIR: a folder of your own
    runs, skipped when unset (make test replays real kernels in
    ``test_uv_detect_kernel_traces_cocotb``)."""
    replay_trace_dir(BENCH, __name__)


def test_uv_detect_kernel_traces_cocotb(tmp_path):
    """Record SM 0's uv_detect traffic in timing runs of real kernels, replay on the RTL."""
    workloads, cycles = REAL_TRACES["uv_detect"]
    common_bench.run_real_traces(BENCH, workloads, cycles, tmp_path, __name__)
