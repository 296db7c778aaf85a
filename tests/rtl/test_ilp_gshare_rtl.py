# amaranth: UnusedElaboratable=no
"""ILP gshare predictor: RTL vs golden in amaranth.sim (directed + random)."""

from __future__ import annotations

import random

import pytest

from golden.structures.ilp import Gshare, GshareParams
from rtl.ilp.gshare import Gshare as GshareRTL
from stepsim import check_steps_against_golden
from tb.ilp.gshare_stimulus import directed, random_ops

SEED = 20261125


def test_rtl_rejects_bad_parameters():
    with pytest.raises(ValueError):
        GshareRTL(counters=6)
    with pytest.raises(TypeError):
        GshareRTL(histories=1.5)
    assert len(GshareRTL().pr_idx) == 9


@pytest.mark.parametrize("params", [GshareParams(counters=16, pc_width=6),
                                    GshareParams(counters=8, pc_width=3, histories=3)],
                         ids=["shared", "per_warp"])
def test_rtl_matches_golden(params):
    print(f"seed {SEED}")
    ops = [op for _, seq in directed(params) for op in seq]
    ops += random_ops(params, random.Random(SEED), 1500)
    check_steps_against_golden(GshareRTL(**params.__dict__), Gshare(params), ops,
                               f"ilp_gshare{params}")


def test_random_stimulus_reaches_its_coverage_goals():
    from collections import Counter
    from tb.ilp.gshare_stimulus import GOALS, count_events
    p = GshareParams()
    golden, cov = Gshare(p), Counter()
    count = count_events(p)
    for ops in random_ops(p, random.Random(SEED), 3000):
        count(golden.step(ops), ops, cov)
    short = {k: (cov[k], g) for k, g in GOALS.items() if cov[k] < g}
    assert not short, short
