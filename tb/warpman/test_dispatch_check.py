"""cocotb testbench: rtl.warpman.dispatch_check.DispatchCheck vs golden DispatchCheck
(seed 002 ch. 3, §3.2 "A", §3.3 steps 1-2). Combinational: each "cycle" is one check.

* ``run_directed``: the MM example of paper-facts §3.3, registers exactly k x
  regs_per_warp and one short or over for every k, an empty SM and full ones (0 free warps,
  TB slots, registers), shared memory exact and one short, regs_per_warp = 0;
* ``run_random``: seeded random TB shapes and SM states biased to those edges, every
  output scored, coverage goals asserted;
* ``run_replay``: a trace recorded here from the golden model under the random
  stimulus, real-kernel traces of the WarpMan mechanism (skipped while
  golden/mechanisms/warpman/mechanism.py does not exist), and those of
  ``$SIMTLAB_WARPMAN_TRACE_DIR`` when set.
"""

from __future__ import annotations

import cocotb
import pytest

from golden.structures.warpman import DispatchCheckParams
from tb.common import bench as common_bench
from tb.runner import default_seed
from tb.warpman.benches import BENCHES, replay_kernel_traces, replay_trace_dir

BENCH = BENCHES["warpman_check"]


@cocotb.test()
async def run_directed(dut):
    """MM example, exact multiples, empty / full SM and shared-memory edges."""
    await common_bench.directed(dut, BENCH)


@cocotb.test()
async def run_random(dut):
    """Seeded random checks, scored, coverage goals asserted."""
    await common_bench.random_run(dut, BENCH)


@cocotb.test()
async def run_replay(dut):
    """Replay traces: every check vs the recorded outputs and vs golden."""
    await common_bench.replay(dut, BENCH)


PARAMS = [DispatchCheckParams(),
          DispatchCheckParams(warp_slots=64, tb_slots=32, registers=65536, shared_bytes=98304),
          DispatchCheckParams(warp_slots=6, tb_slots=2, registers=200, shared_bytes=100,
                              max_warps_per_tb=5)]


@pytest.mark.parametrize("params", PARAMS, ids=["gtx480_warpman", "big_sm", "tiny"])
def test_warpman_check_cocotb(params):
    common_bench.run_structure(BENCH, params, __name__)


@pytest.mark.parametrize("offset", [1, 2])
def test_warpman_check_more_seeds_cocotb(offset):
    """Two more random seeds (session seed + 1, + 2) at the gtx480_warpman size."""
    common_bench.run_structure(BENCH, DispatchCheckParams(), __name__,
                               seed=default_seed() + offset)


def test_warpman_check_recorded_trace_cocotb(tmp_path):
    """Record a golden trace under the random stimulus, replay it on the RTL."""
    common_bench.replay_random_trace(BENCH, DispatchCheckParams(), tmp_path, __name__)


def test_warpman_check_trace_dir_cocotb():
    """Replay the dispatch-check traces of $SIMTLAB_WARPMAN_TRACE_DIR: a folder of your own
    runs, skipped when unset (make test replays real kernels in
    ``test_warpman_check_kernel_traces_cocotb``)."""
    replay_trace_dir(BENCH, __name__)


def test_warpman_check_kernel_traces_cocotb(tmp_path):
    """Record SM 0's warpman_check traffic in timing runs of real kernels, replay on the RTL
    (skipped while the WarpMan mechanism does not exist)."""
    replay_kernel_traces(BENCH, tmp_path, __name__)
