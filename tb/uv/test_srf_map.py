"""cocotb testbench: rtl.uv.srf_map.SRFMap vs golden SRFMap (seed 002 §2.4.2).

* ``run_directed``: fill and read, exhaustion (the structural hazard) then reuse of the
  index a vector redefinition frees, keep on a uniform rewrite, same-cycle define /
  release / read; each from reset;
* ``run_random``: seeded fill and drain phases over a working set larger than the SRF
  (tb/uv/stimulus.py), every output scored every cycle, coverage goals asserted;
* ``run_replay``: a trace recorded here from the golden model under the random
  stimulus, and real-kernel traces from ``$SIMTLAB_UV_TRACE_DIR`` when set.
"""

from __future__ import annotations

import cocotb
import pytest

from golden.structures.uv import SRFMapParams
from tb.common import bench as common_bench
from tb.runner import default_seed
from tb.uv.benches import BENCHES, REAL_TRACES, replay_random_trace, replay_trace_dir

BENCH = BENCHES["uv_srf_map"]


@cocotb.test()
async def run_directed(dut):
    """Fill, exhaustion, reuse, keep and same-cycle scenarios, each from reset."""
    await common_bench.directed(dut, BENCH)


@cocotb.test()
async def run_random(dut):
    """Seeded random cycles, scored every cycle, coverage goals asserted."""
    await common_bench.random_run(dut, BENCH)


@cocotb.test()
async def run_replay(dut):
    """Replay traces: every cycle vs the recorded outputs and vs golden."""
    await common_bench.replay(dut, BENCH)


PARAMS = [SRFMapParams(), SRFMapParams(vregs=64, srf_entries=16),
          SRFMapParams(srf_entries=256), SRFMapParams(vregs=100, srf_entries=32, read_ports=2)]


@pytest.mark.parametrize("params", PARAMS, ids=["paper", "srf16", "srf256", "v100_s32_r2"])
def test_uv_srf_map_cocotb(params):
    common_bench.run_structure(BENCH, params, __name__)


@pytest.mark.parametrize("offset", [1, 2])
def test_uv_srf_map_more_seeds_cocotb(offset):
    """Two more random seeds (session seed + 1, + 2) at SRFMapParams(vregs=64, srf_entries=16)."""
    common_bench.run_structure(BENCH, SRFMapParams(vregs=64, srf_entries=16), __name__, seed=default_seed() + offset)


@pytest.mark.parametrize("params", [SRFMapParams(vregs=64, srf_entries=16)], ids=["srf16"])
def test_uv_srf_map_recorded_trace_cocotb(params, tmp_path):
    """Record a golden trace under the random stimulus, replay it on the RTL."""
    replay_random_trace(BENCH, params, tmp_path, __name__)


def test_uv_srf_map_trace_dir_cocotb():
    """Replay the real-kernel SRF-map traces of $SIMTLAB_UV_TRACE_DIR: a folder of your own
    runs, skipped when unset (make test replays real kernels in
    ``test_uv_srf_map_kernel_traces_cocotb``)."""
    replay_trace_dir(BENCH, __name__)


def test_uv_srf_map_kernel_traces_cocotb(tmp_path):
    """Record SM 0's uv_srf_map traffic in timing runs of real kernels, replay on the RTL."""
    workloads, cycles = REAL_TRACES["uv_srf_map"]
    common_bench.run_real_traces(BENCH, workloads, cycles, tmp_path, __name__)
