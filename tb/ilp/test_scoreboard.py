"""cocotb testbench: rtl.ilp.scoreboard.Scoreboard vs golden Scoreboard (seed 002 §4.4.2).

* ``run_directed``: the chapter's two test sequences (stall-on-use; WAW through the NM
  bit), the store rules and the full board, each from reset on a fresh golden model;
* ``run_random``: seeded state-aware random cycles (tb/ilp/stimulus.py), every output
  scored every cycle, coverage goals asserted.

The data store is an SRAM (not reset); its outputs are masked by the entry's status
mask, so DUT and golden agree after every reset without clearing it.
"""

from __future__ import annotations

import random

import cocotb
import pytest

from golden.structures.ilp import Scoreboard, ScoreboardOps, ScoreboardOutputs, ScoreboardParams
from rtl.ilp.scoreboard import Scoreboard as ScoreboardRTL
from tb.ilp.stimulus import GOALS, count_events, directed, random_ops
from tb.runner import Scoreboard as Board
from tb.runner import default_seed, run_cocotb, tb_params, tb_seed
from tb.stepper import StepTB, play_directed, play_random

RANDOM_CYCLES = 3000


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


@pytest.mark.parametrize("params", [ScoreboardParams(),
                                    ScoreboardParams(entries=4, warps=6, lanes=8, reg_width=5)],
                         ids=["paper", "small"])
def test_ilp_scoreboard_cocotb(params):
    run_cocotb(ScoreboardRTL, params.__dict__, test_module=__name__, toplevel="ilp_scoreboard",
               seed=default_seed())
