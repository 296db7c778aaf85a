"""cocotb testbench: rtl.capri.wcu.Wcu vs golden Wcu (seed 004 §2.2, §3.1, §3.3 step 6,
Figs. 7-8). Combinational: each "cycle" is one evaluation of a path.

* ``run_fig7_8``: the paper's walk-through (paper-facts §7.3) on a 3-warp x 4-lane WCU --
  W0 = 0123 bypasses, W1 = 4xx7 and W2 = 89xx are compacted into 49x7 and 8xxx (2 warps),
  lane counts give max 3 = 3 active warps: inadequate -- checked against the paper's
  numbers and against golden;
* ``run_directed``: Fig. 7/8 inside the DUT's size, a full CTA, one thread per warp,
  every warp in one lane, complementary halves, an empty path, a staircase, UMask none /
  all;
* ``run_random``: seeded random CTAs and UMasks, every output scored, coverage goals
  asserted;
* ``run_replay``: a trace recorded here from the golden model under the random
  stimulus, real-kernel traces of the CAPRI mechanism (skipped while
  golden/mechanisms/capri/mechanism.py does not exist), and those of
  ``$SIMTLAB_CAPRI_TRACE_DIR`` when set.
"""

from __future__ import annotations

import cocotb
import pytest

from golden.structures.capri import Wcu, WcuParams
from tb.capri.benches import BENCHES, replay_kernel_traces, replay_trace_dir
from tb.capri.stimulus import fig7_ops
from tb.common import bench as common_bench
from tb.runner import Scoreboard, default_seed, run_cocotb, tb_params

BENCH = BENCHES["capri_wcu"]


@cocotb.test()
async def run_fig7_8(dut):
    """Fig. 7/8: compacts W1, W2 into 49x7 and 8xxx; max lane count 3 = 3 warps."""
    params = WcuParams(**tb_params())
    tb = BENCH.make_tb(dut, params)
    await tb.restart()
    ops = fig7_ops(params)
    got = await tb.cycle(ops)
    board = Scoreboard(f"capri_wcu{params} fig7_8", log=dut._log)
    board.check("fig7_8 vs golden", Wcu(params).step(ops), got)
    board.finish()
    res = Wcu(params).unpack(got)
    assert res.warps == (0b1011, 0b0001), f"formed warps {res.warps}"
    assert res.src[0][:4] == (1, 2, None, 1) and res.src[1][:4] == (2, None, None, None)
    assert (res.max_lane_count, res.n_active_warps, res.adequate) == (3, 3, False)


@cocotb.test()
async def run_directed(dut):
    """Fig. 7/8, full CTA, one thread per warp, same lane, halves, empty, staircase."""
    await common_bench.directed(dut, BENCH)


@cocotb.test()
async def run_random(dut):
    """Seeded random evaluations, scored, coverage goals asserted."""
    await common_bench.random_run(dut, BENCH)


@cocotb.test()
async def run_replay(dut):
    """Replay traces: every evaluation vs the recorded outputs and vs golden."""
    await common_bench.replay(dut, BENCH)


PARAMS = [WcuParams(), WcuParams(warps=16), WcuParams(warps=5, lanes=7)]


@pytest.mark.parametrize("params", PARAMS, ids=["w8_l32", "w16_l32", "w5_l7"])
def test_capri_wcu_cocotb(params):
    common_bench.run_structure(BENCH, params, __name__)


def test_capri_wcu_fig7_8_cocotb():
    """The paper's Fig. 7/8 walk-through on a 3-warp x 4-lane WCU (directed + golden)."""
    run_cocotb(BENCH.rtl, WcuParams(warps=3, lanes=4).__dict__, test_module=__name__,
               toplevel=BENCH.name, testcase=["run_fig7_8", "run_directed"],
               seed=default_seed())


@pytest.mark.parametrize("offset", [1, 2])
def test_capri_wcu_more_seeds_cocotb(offset):
    """Two more random seeds (session seed + 1, + 2) at 8 warps x 32 lanes."""
    common_bench.run_structure(BENCH, WcuParams(), __name__, seed=default_seed() + offset)


def test_capri_wcu_recorded_trace_cocotb(tmp_path):
    """Record a golden trace under the random stimulus, replay it on the RTL."""
    common_bench.replay_random_trace(BENCH, WcuParams(), tmp_path, __name__)


def test_capri_wcu_trace_dir_cocotb():
    """Replay the WCU traces of $SIMTLAB_CAPRI_TRACE_DIR: a folder of your own
    runs, skipped when unset (make test replays real kernels in
    ``test_capri_wcu_kernel_traces_cocotb``)."""
    replay_trace_dir(BENCH, __name__)


def test_capri_wcu_kernel_traces_cocotb(tmp_path):
    """Record core 0's capri_wcu traffic in timing runs of real kernels, replay on the RTL
    (skipped while the CAPRI mechanism does not exist)."""
    replay_kernel_traces(BENCH, tmp_path, __name__)
