"""cocotb testbench: rtl.capri.capt.Capt vs golden Capt (seed 004 §3.1, §3.3, §5.5).

* ``run_directed``: fill and true-LRU eviction order, touch on hit, the policy's history
  walk (2-bit saturation both ways), kernel-end flush, same-cycle combinations (lookup +
  update of one branch, allocation evicting the entry being updated, flush +
  allocation), near-equal tags, and the Fig. 7/8 branch; each from reset;
* ``run_random``: seeded mechanism-like traffic (tb/capri/stimulus.py), every output
  scored every cycle, coverage goals asserted;
* ``run_replay``: JSON-lines traces -- one recorded here from the golden model under the
  random stimulus, real-kernel traces of the CAPRI mechanism (skipped while
  golden/mechanisms/capri/mechanism.py does not exist), and those of
  ``$SIMTLAB_CAPRI_TRACE_DIR`` when set -- each from reset, every cycle scored against the
  recorded outputs and a fresh golden model.
"""

from __future__ import annotations

import cocotb
import pytest

from golden.structures.capri import CaptParams
from tb.capri.benches import BENCHES, replay_kernel_traces, replay_trace_dir
from tb.common import bench as common_bench
from tb.runner import default_seed

BENCH = BENCHES["capri_capt"]


@cocotb.test()
async def run_directed(dut):
    """LRU, policy walk, flush, same-cycle and Fig. 7/8 scenarios, each from reset."""
    await common_bench.directed(dut, BENCH)


@cocotb.test()
async def run_random(dut):
    """Seeded random cycles, scored every cycle, coverage goals asserted."""
    await common_bench.random_run(dut, BENCH)


@cocotb.test()
async def run_replay(dut):
    """Replay traces: every cycle vs the recorded outputs and vs golden."""
    await common_bench.replay(dut, BENCH)


PARAMS = [CaptParams(), CaptParams(entries=8), CaptParams(entries=8, policy="2bit"),
          CaptParams(entries=8, policy="1bS"), CaptParams(entries=2, policy="2bit", pc_bits=12)]


@pytest.mark.parametrize("params", PARAMS, ids=["paper32_1bL", "e8_1bL", "e8_2bit", "e8_1bS",
                                                "e2_2bit_pc12"])
def test_capri_capt_cocotb(params):
    common_bench.run_structure(BENCH, params, __name__)


@pytest.mark.parametrize("offset", [1, 2])
def test_capri_capt_more_seeds_cocotb(offset):
    """Two more random seeds (session seed + 1, + 2) at the paper's 8-entry cost point."""
    common_bench.run_structure(BENCH, CaptParams(entries=8), __name__,
                               seed=default_seed() + offset)


def test_capri_capt_recorded_trace_cocotb(tmp_path):
    """Record a golden trace under the random stimulus, replay it on the RTL."""
    common_bench.replay_random_trace(BENCH, CaptParams(entries=8, policy="2bit"), tmp_path,
                                     __name__)


def test_capri_capt_trace_dir_cocotb():
    """Replay the CAPT traces of $SIMTLAB_CAPRI_TRACE_DIR: a folder of your own
    runs, skipped when unset (make test replays real kernels in
    ``test_capri_capt_kernel_traces_cocotb``)."""
    replay_trace_dir(BENCH, __name__)


def test_capri_capt_kernel_traces_cocotb(tmp_path):
    """Record core 0's capri_capt traffic in timing runs of real kernels, replay on the RTL
    (skipped while the CAPRI mechanism does not exist)."""
    replay_kernel_traces(BENCH, tmp_path, __name__)
