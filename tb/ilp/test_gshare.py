"""cocotb testbench: rtl.ilp.gshare.Gshare vs golden Gshare (seed 002 §4.4.3).

* ``run_directed``: counter saturation, history shifting, prediction and update of the
  same counter in one cycle, per-warp histories, each from reset on a fresh golden model;
* ``run_random``: seeded front-end-like random cycles (tb/ilp/gshare_stimulus.py), every
  output scored every cycle, coverage goals asserted;
* ``run_replay``: traces recorded from timing runs of real kernels in the chapter's
  branch-prediction study (``ilp-sc`` + ``ilp-bp-gshare`` on gtx280_ilp, bypass, branch
  latency 1; golden/mechanisms/ilp/trace.py; the pytest launcher records
  :data:`TRACE_WORKLOADS`), each from reset, every cycle scored against the recorded
  outputs and against a fresh golden model.
"""

from __future__ import annotations

import json
import os
import random
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path

import cocotb
import pytest

from golden.structures.ilp import Gshare, GshareOps, GshareOutputs, GshareParams
from golden.structures.ilp.gshare import COUNTER_RESET
from rtl.ilp.gshare import Gshare as GshareRTL
from tb.ilp.gshare_stimulus import GOALS, count_events, directed, random_ops
from tb.runner import Scoreboard as Board
from tb.runner import default_seed, run_cocotb, tb_params, tb_seed
from tb.stepper import StepTB, play_directed, play_random

RANDOM_CYCLES = 3000
#: real kernels whose predictor traffic is replayed: NQU (the chapter's big winner), Ray
#: and MV (data-dependent loops); small inputs, SM 0, first 4,000 structure cycles each
TRACE_WORKLOADS = ("NQU", "RAY", "MV")
TRACE_CYCLES = 4000
#: JSON list of trace files handed to ``run_replay``
ENV_TRACE_FILES = "SIMTLAB_GSHARE_TRACE_FILES"


class GshareTB(StepTB):
    """StepTB whose restart also reloads the pattern history table (an SRAM the DUT's
    reset does not clear) with the golden reset value, through the simulator's back door."""

    def __init__(self, dut, counters: int):
        super().__init__(dut, GshareOps, GshareOutputs)
        self.counters = counters

    async def restart(self) -> None:
        await super().restart()
        pht = self.dut.pht
        for i in range(self.counters):
            pht[i].value = COUNTER_RESET


def _setup(dut):
    params = GshareParams(**tb_params())
    tb = GshareTB(dut, params.counters)
    tb.start()
    return params, tb


@cocotb.test()
async def run_directed(dut):
    """Saturation, history, same-cycle and per-warp scenarios, each from reset."""
    params, tb = _setup(dut)
    board = Board(f"ilp_gshare{params} directed", log=dut._log)
    await play_directed(tb, lambda: Gshare(params), directed(params), board)
    board.finish()


@cocotb.test()
async def run_random(dut):
    """Seeded random cycles, scored every cycle, coverage goals asserted."""
    params, tb = _setup(dut)
    seed = tb_seed()
    dut._log.info("ilp_gshare %s random: seed %d, %d cycles", params, seed, RANDOM_CYCLES)
    ops = random_ops(params, random.Random(seed), RANDOM_CYCLES)
    board = Board(f"ilp_gshare{params} random", log=dut._log)
    await play_random(tb, Gshare(params), ops, board, count_events(params), GOALS)


@cocotb.test()
async def run_replay(dut):
    """Replay real-kernel traces: every cycle vs the recorded outputs and vs golden."""
    from golden.structures.darsie.trace import read_trace
    params, tb = _setup(dut)
    files = json.loads(os.environ.get(ENV_TRACE_FILES, "[]"))
    assert files, f"{ENV_TRACE_FILES} lists no trace file"
    vs_trace = Board(f"ilp_gshare{params} replay vs recorded", log=dut._log)
    vs_golden = Board(f"ilp_gshare{params} replay vs golden", log=dut._log)
    for path in files:
        trace = read_trace(path)
        assert trace.params == params, f"{path}: trace of {trace.params} on a {params} DUT"
        dut._log.info("replaying %s: %d cycles, meta %s", path, len(trace.cycles), trace.meta)
        await tb.restart()
        golden = Gshare(params)
        for cycle, (ops, recorded) in enumerate(trace.cycles):
            got = await tb.cycle(ops)
            label = f"{Path(path).name} cycle {cycle}"
            vs_trace.check(label, recorded, got)
            vs_golden.check(label, golden.step(ops), got)
    vs_trace.finish()
    vs_golden.finish()


@pytest.mark.parametrize("params", [GshareParams(), GshareParams(histories=32)],
                         ids=["paper", "per_warp"])
def test_ilp_gshare_cocotb(params):
    run_cocotb(GshareRTL, params.__dict__, test_module=__name__, toplevel="ilp_gshare",
               testcase=["run_directed", "run_random"], seed=default_seed())


def test_ilp_gshare_real_traces_cocotb(tmp_path):
    """Record the gshare of SM 0 in timing runs of real kernels, replay on the RTL."""
    from golden.mechanisms.ilp.trace import record_gshare_trace
    from golden.structures.darsie.trace import read_trace
    groups = defaultdict(list)
    for w in TRACE_WORKLOADS:
        path = record_gshare_trace(w, tmp_path / f"ilp_gshare_{w}.jsonl",
                                   max_cycles=TRACE_CYCLES)
        groups[json.dumps(asdict(read_trace(path).params), sort_keys=True)].append(str(path))
    for key, paths in groups.items():
        run_cocotb(GshareRTL, json.loads(key), test_module=__name__,
                   toplevel="ilp_gshare", testcase="run_replay", seed=default_seed(),
                   extra_env={ENV_TRACE_FILES: json.dumps(paths)})
