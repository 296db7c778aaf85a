# amaranth: UnusedElaboratable=no
"""ILP many-thread-aware scoreboard: RTL vs golden in amaranth.sim (directed + random)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from golden.structures.ilp import Scoreboard, ScoreboardParams
from rtl.ilp.scoreboard import Scoreboard as ScoreboardRTL
from stepsim import check_steps_against_golden
from tb.ilp.stimulus import GOALS, count_events, directed, random_ops

SEED = 20261125
SMALL = ScoreboardParams(entries=4, warps=3, lanes=4, reg_width=4)


def test_rtl_rejects_bad_parameters():
    with pytest.raises(ValueError):
        ScoreboardRTL(entries=1)
    assert len(ScoreboardRTL(entries=8, lanes=4).rd_data) == 128


@pytest.mark.parametrize("params", [SMALL, ScoreboardParams(entries=5, warps=4, lanes=3, reg_width=3)],
                         ids=["small", "odd"])
def test_rtl_matches_golden(params):
    print(f"seed {SEED}")
    ops = [op for _, seq in directed(params) for op in seq]
    ops += random_ops(params, random.Random(SEED), 1500)
    check_steps_against_golden(ScoreboardRTL(**params.__dict__), Scoreboard(params), ops,
                               f"ilp_scoreboard{params}")


def test_random_stimulus_reaches_its_coverage_goals():
    p = ScoreboardParams(entries=8, warps=8, lanes=8, reg_width=5)
    golden, cov = Scoreboard(p), Counter()
    count = count_events(p)
    for ops in random_ops(p, random.Random(SEED), 3000):
        count(golden.step(ops), ops, cov)
    short = {k: (cov[k], g) for k, g in GOALS.items() if cov[k] < g}
    assert not short, short
