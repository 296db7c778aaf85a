"""cocotb testbench: rtl.warpman.workload_buffer.WorkloadBuffer vs golden WorkloadBuffer
(seed 002 ch. 3, §3.2 "B", §3.3 step 3 with the off-by-one fix).

* ``run_directed``: unissued warps 2..7 issue exactly 2..7 then nothing, a single-warp
  partial TB at end_wid = max, a whole TB, loads while valid (also in the cycle of the last
  issue), a load with an issue of the empty buffer; each from reset;
* ``run_random``: seeded mechanism-like traffic (tb/warpman/stimulus.py), every output
  scored every cycle, coverage goals asserted;
* ``run_replay``: JSON-lines traces -- one recorded here from the golden model under the
  random stimulus, real-kernel traces of the WarpMan mechanism (skipped while
  golden/mechanisms/warpman/mechanism.py does not exist), and those of
  ``$SIMTLAB_WARPMAN_TRACE_DIR`` when set -- each from reset, every cycle scored against
  the recorded outputs and a fresh golden model.
"""

from __future__ import annotations

import cocotb
import pytest

from golden.structures.warpman import WorkloadBufferParams
from tb.common import bench as common_bench
from tb.runner import default_seed
from tb.warpman.benches import BENCHES, replay_kernel_traces, replay_trace_dir

BENCH = BENCHES["warpman_wb"]


@cocotb.test()
async def run_directed(dut):
    """Off-by-one, single warp, whole TB, load-while-valid scenarios, each from reset."""
    await common_bench.directed(dut, BENCH)


@cocotb.test()
async def run_random(dut):
    """Seeded random cycles, scored every cycle, coverage goals asserted."""
    await common_bench.random_run(dut, BENCH)


@cocotb.test()
async def run_replay(dut):
    """Replay traces: every cycle vs the recorded outputs and vs golden."""
    await common_bench.replay(dut, BENCH)


PARAMS = [WorkloadBufferParams(), WorkloadBufferParams(l_tbid_bits=63),
          WorkloadBufferParams(tb_slots=16, max_warps_per_tb=48, l_tbid_bits=31),
          WorkloadBufferParams(tb_slots=3, max_warps_per_tb=6, l_tbid_bits=4)]


@pytest.mark.parametrize("params", PARAMS, ids=["paper", "grid_limit", "s16_w48", "s3_w6_l4"])
def test_warpman_wb_cocotb(params):
    common_bench.run_structure(BENCH, params, __name__)


@pytest.mark.parametrize("offset", [1, 2])
def test_warpman_wb_more_seeds_cocotb(offset):
    """Two more random seeds (session seed + 1, + 2) at the paper's size."""
    common_bench.run_structure(BENCH, WorkloadBufferParams(), __name__,
                               seed=default_seed() + offset)


def test_warpman_wb_recorded_trace_cocotb(tmp_path):
    """Record a golden trace under the random stimulus, replay it on the RTL."""
    common_bench.replay_random_trace(BENCH, WorkloadBufferParams(), tmp_path, __name__)


def test_warpman_wb_trace_dir_cocotb():
    """Replay the workload-buffer traces of $SIMTLAB_WARPMAN_TRACE_DIR: a folder of your own
    runs, skipped when unset (make test replays real kernels in
    ``test_warpman_wb_kernel_traces_cocotb``)."""
    replay_trace_dir(BENCH, __name__)


def test_warpman_wb_kernel_traces_cocotb(tmp_path):
    """Record SM 0's warpman_wb traffic in timing runs of real kernels, replay on the RTL
    (skipped while the WarpMan mechanism does not exist)."""
    replay_kernel_traces(BENCH, tmp_path, __name__)
