"""cocotb testbench: rtl.uv.irb.IRB vs golden IRB (seed 002 §2.4.3, §2.4.4).

* ``run_directed``: fill every way and hit each, LRU eviction order, opcode aliasing,
  source mismatch, lookup + update of the hit way in one cycle, and (parity) faults on a
  data bit, on the parity bit and in the cycle of an update; each from reset;
* ``run_random``: seeded mechanism-like traffic (tb/uv/stimulus.py), every output scored
  every cycle, coverage goals asserted (hits, mismatches, misses, LRU eviction with every
  way valid, parity errors...);
* ``run_replay``: JSON-lines traces -- one recorded here from the golden model under the
  random stimulus, and real-kernel traces from ``$SIMTLAB_UV_TRACE_DIR`` when set -- each
  from reset, every cycle scored against the recorded outputs and a fresh golden model.
"""

from __future__ import annotations

import cocotb
import pytest

from golden.structures.uv import IRBParams
from tb.common import bench as common_bench
from tb.runner import default_seed
from tb.uv.benches import BENCHES, REAL_TRACES, replay_random_trace, replay_trace_dir

BENCH = BENCHES["uv_irb"]


@cocotb.test()
async def run_directed(dut):
    """Fill, hit, evict, alias, mismatch, same-cycle and fault scenarios, each from reset."""
    await common_bench.directed(dut, BENCH)


@cocotb.test()
async def run_random(dut):
    """Seeded random cycles, scored every cycle, coverage goals asserted."""
    await common_bench.random_run(dut, BENCH)


@cocotb.test()
async def run_replay(dut):
    """Replay traces: every cycle vs the recorded outputs and vs golden."""
    await common_bench.replay(dut, BENCH)


PARAMS = [IRBParams(), IRBParams(parity=True), IRBParams(entries=2, parity=True),
          IRBParams(entries=4, value_bits=64), IRBParams(entries=16, value_bits=64, parity=True),
          IRBParams(entries=4, sources=2, tag_bits=4, opcode_bits=3, value_bits=8)]


@pytest.mark.parametrize("params", PARAMS, ids=["paper", "paper_parity", "e2_parity", "e4_v64",
                                                "e16_v64_parity", "e4_s2_narrow"])
def test_uv_irb_cocotb(params):
    common_bench.run_structure(BENCH, params, __name__)


@pytest.mark.parametrize("offset", [1, 2])
def test_uv_irb_more_seeds_cocotb(offset):
    """Two more random seeds (session seed + 1, + 2) at IRBParams(parity=True)."""
    common_bench.run_structure(BENCH, IRBParams(parity=True), __name__, seed=default_seed() + offset)


@pytest.mark.parametrize("params", [IRBParams(value_bits=64, parity=True)], ids=["v64_parity"])
def test_uv_irb_recorded_trace_cocotb(params, tmp_path):
    """Record a golden trace under the random stimulus, replay it on the RTL."""
    replay_random_trace(BENCH, params, tmp_path, __name__)


def test_uv_irb_trace_dir_cocotb():
    """Replay the real-kernel IRB traces of $SIMTLAB_UV_TRACE_DIR: a folder of your own
    runs, skipped when unset (make test replays real kernels in
    ``test_uv_irb_kernel_traces_cocotb``)."""
    replay_trace_dir(BENCH, __name__)


def test_uv_irb_kernel_traces_cocotb(tmp_path):
    """Record SM 0's uv_irb traffic in timing runs of real kernels, replay on the RTL."""
    workloads, cycles = REAL_TRACES["uv_irb"]
    common_bench.run_real_traces(BENCH, workloads, cycles, tmp_path, __name__)
