"""Golden gshare predictor of one SM (seed 002 ch. 4, §4.4.3)."""

import random

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.ilp import Gshare, GshareOps, GshareParams
from golden.structures.ilp.gshare import COUNTER_RESET


def test_paper_size_is_one_kilobit():
    p = GshareParams()
    assert p.table_bits == 1024 and p.history_bits == 9 and p.histories == 1


def test_counter_saturates_and_predicts_with_its_upper_bit():
    g = Gshare(GshareParams(counters=4, pc_width=4))
    assert g.table == [COUNTER_RESET] * 4 and g.ghr == [0]
    # always update entry 0 (history shifts, but the index comes from the port)
    for _ in range(5):
        g.step(GshareOps(up_en=1, up_idx=0, up_taken=1))
    assert g.table[0] == 3
    for _ in range(5):
        g.step(GshareOps(up_en=1, up_idx=0, up_taken=0))
    assert g.table[0] == 0


def test_index_is_pc_xor_history_and_prediction_sees_the_old_state():
    g = Gshare(GshareParams(counters=8, pc_width=6))
    g.step(GshareOps(up_en=1, up_idx=5, up_taken=1))     # history 0b001
    g.step(GshareOps(up_en=1, up_idx=5, up_taken=1))     # history 0b011, counter 5 = 3
    assert g.ghr == [0b011] and g.table[5] == 3
    out = g.step(GshareOps(pr_en=1, pr_pc=0b110, up_en=1, up_idx=1, up_taken=0))
    assert out.pr_idx == 0b110 ^ 0b011 == 5 and out.pr_taken == 1 and out.ghr == 0b011
    assert g.ghr == [0b110]                              # updated after the prediction


def test_per_warp_histories_do_not_interleave():
    g = Gshare(GshareParams(counters=8, pc_width=4, histories=2))
    g.step(GshareOps(up_en=1, up_idx=0, up_taken=1, up_warp=1))
    assert g.ghr == [0, 1]
    assert g.step(GshareOps(pr_en=1, pr_pc=2, pr_warp=0)).pr_idx == 2
    assert g.step(GshareOps(pr_en=1, pr_pc=2, pr_warp=1)).pr_idx == 3


def test_learns_a_loop_branch():
    """A loop branch taken 7 times then not taken: after warm-up the 2-bit counters
    predict the taken iterations (history patterns separate the exit)."""
    g = Gshare()
    pc = 40
    wrong = 0
    for trip in range(40):
        for i in range(8):
            taken = int(i < 7)
            out = g.step(GshareOps(pr_en=1, pr_pc=pc))
            if trip >= 10:
                wrong += out.pr_taken != taken
            g.step(GshareOps(up_en=1, up_idx=out.pr_idx, up_taken=taken))
    assert wrong == 0


@pytest.mark.parametrize("ops", [GshareOps(pr_en=2), GshareOps(pr_pc=1 << 16),
                                 GshareOps(up_idx=512), GshareOps(up_warp=1)])
def test_out_of_range_requests_are_errors(ops):
    with pytest.raises(SimtlabError):
        Gshare().step(ops)


def test_bad_parameters_are_errors():
    with pytest.raises(ConfigError):
        GshareParams(counters=0)
    with pytest.raises(SimtlabError):
        GshareParams(counters=6)
    with pytest.raises(SimtlabError):
        Gshare().step("not ops")


def test_deterministic_under_random_traffic():
    def run():
        g, rng, outs = Gshare(GshareParams(histories=4)), random.Random(3), []
        for _ in range(500):
            o = g.step(GshareOps(pr_en=rng.randrange(2), pr_pc=rng.randrange(1 << 16),
                                 pr_warp=rng.randrange(4), up_en=rng.randrange(2),
                                 up_idx=rng.randrange(512), up_taken=rng.randrange(2),
                                 up_warp=rng.randrange(4)))
            outs.append(o)
        return outs, g.table
    assert run() == run()
