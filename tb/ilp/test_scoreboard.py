"""cocotb testbench: rtl.ilp.scoreboard.Scoreboard vs golden Scoreboard (seed 002 §4.4.2).

* ``run_directed``: the chapter's two test sequences (stall-on-use; WAW through the NM
  bit), the store rules and the full board, each from reset on a fresh golden model;
* ``run_random``: seeded state-aware random cycles (tb/ilp/stimulus.py), every output
  scored every cycle, coverage goals asserted;
* ``run_replay``: traces recorded from timing runs of real kernels with ``ilp-sc``
  attached on the gtx280_ilp GPU (golden/mechanisms/ilp/trace.py; the pytest launcher
  records :data:`TRACE_WORKLOADS`), each from reset, every cycle scored against the
  recorded outputs and against a fresh golden model.

The data store is an SRAM (not reset); its outputs are masked by the entry's status
mask, so DUT and golden agree after every reset without clearing it.
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

from golden.structures.ilp import Scoreboard, ScoreboardOps, ScoreboardOutputs, ScoreboardParams
from rtl.ilp.scoreboard import Scoreboard as ScoreboardRTL
from tb.ilp.stimulus import GOALS, count_events, directed, random_ops
from tb.runner import Scoreboard as Board
from tb.runner import default_seed, run_cocotb, tb_params, tb_seed
from tb.stepper import StepTB, play_directed, play_random

RANDOM_CYCLES = 3000
#: real kernels whose scoreboard traffic is replayed (ILP chapter workloads: low-TLP NQU,
#: BlackScholes, Ray), small inputs, SM 0, first 2,000 structure cycles each
TRACE_WORKLOADS = ("BS", "NQU", "RAY")
TRACE_CYCLES = 2000
#: JSON list of trace files handed to ``run_replay``
ENV_TRACE_FILES = "SIMTLAB_ILP_TRACE_FILES"


def _setup(dut):
    params = ScoreboardParams(**tb_params())
    tb = StepTB(dut, ScoreboardOps, ScoreboardOutputs)
    tb.start()
    return params, tb


@cocotb.test()
async def run_directed(dut):
    """The chapter's sequences and the store / full-board corner cases, each from reset."""
    params, tb = _setup(dut)
    board = Board(f"ilp_scoreboard{params} directed", log=dut._log)
    await play_directed(tb, lambda: Scoreboard(params), directed(params), board)
    board.finish()


@cocotb.test()
async def run_random(dut):
    """Seeded random cycles, scored every cycle, coverage goals asserted."""
    params, tb = _setup(dut)
    seed = tb_seed()
    dut._log.info("ilp_scoreboard %s random: seed %d, %d cycles", params, seed, RANDOM_CYCLES)
    ops = random_ops(params, random.Random(seed), RANDOM_CYCLES)
    board = Board(f"ilp_scoreboard{params} random", log=dut._log)
    await play_random(tb, Scoreboard(params), ops, board, count_events(params), GOALS)


@cocotb.test()
async def run_replay(dut):
    """Replay real-kernel traces: every cycle vs the recorded outputs and vs golden."""
    from golden.structures.darsie.trace import read_trace
    params, tb = _setup(dut)
    files = json.loads(os.environ.get(ENV_TRACE_FILES, "[]"))
    assert files, f"{ENV_TRACE_FILES} lists no trace file"
    vs_trace = Board(f"ilp_scoreboard{params} replay vs recorded", log=dut._log)
    vs_golden = Board(f"ilp_scoreboard{params} replay vs golden", log=dut._log)
    for path in files:
        trace = read_trace(path)
        assert trace.params == params, f"{path}: trace of {trace.params} on a {params} DUT"
        dut._log.info("replaying %s: %d cycles, meta %s", path, len(trace.cycles), trace.meta)
        await tb.restart()
        golden = Scoreboard(params)
        for cycle, (ops, recorded) in enumerate(trace.cycles):
            got = await tb.cycle(ops)
            label = f"{Path(path).name} cycle {cycle}"
            vs_trace.check(label, recorded, got)
            vs_golden.check(label, golden.step(ops), got)
    vs_trace.finish()
    vs_golden.finish()


@pytest.mark.parametrize("params", [ScoreboardParams(),
                                    ScoreboardParams(entries=4, warps=6, lanes=8, reg_width=5)],
                         ids=["paper", "small"])
def test_ilp_scoreboard_cocotb(params):
    run_cocotb(ScoreboardRTL, params.__dict__, test_module=__name__, toplevel="ilp_scoreboard",
               testcase=["run_directed", "run_random"], seed=default_seed())


def test_ilp_scoreboard_real_traces_cocotb(tmp_path):
    """Record the scoreboard of SM 0 in timing runs of real kernels, replay on the RTL."""
    from golden.mechanisms.ilp.trace import record_scoreboard_trace
    from golden.structures.darsie.trace import read_trace
    groups = defaultdict(list)
    for w in TRACE_WORKLOADS:
        path = record_scoreboard_trace(w, tmp_path / f"ilp_scoreboard_{w}.jsonl",
                                       max_cycles=TRACE_CYCLES)
        groups[json.dumps(asdict(read_trace(path).params), sort_keys=True)].append(str(path))
    for key, paths in groups.items():
        run_cocotb(ScoreboardRTL, json.loads(key), test_module=__name__,
                   toplevel="ilp_scoreboard", testcase="run_replay", seed=default_seed(),
                   extra_env={ENV_TRACE_FILES: json.dumps(paths)})
