"""SM set-dueling (golden.mechanisms.dueling)."""

import pytest

from golden.errors import ConfigError
from golden.mechanisms.dueling import SMDuel


def test_leaders_keep_their_policy_and_followers_follow_the_higher_ipc():
    d = SMDuel(leader_a=2, leader_b=5)
    assert d.policy(2) == "a" and d.policy(5) == "b"
    assert d.policy(0) == "b"           # tie at launch start goes to b
    d.count(2, 10)
    d.count(5, 9)
    d.count(7, 100)                     # followers do not vote
    assert d.winner() == "a" and d.policy(0) == "a" and d.policy(5) == "b"
    d.count(5, 2)
    assert d.policy(3) == "b"
    d.reset()
    assert d.issued == {2: 0, 5: 0}


def test_bad_parameters():
    with pytest.raises(ConfigError, match="differ"):
        SMDuel(1, 1)
    with pytest.raises(ConfigError, match="tie"):
        SMDuel(0, 1, tie="c")


# --------------------------------------------------------------- decision rules (issue 67.7)

def _phases(duel, phases, follower=7):
    """Run ``phases`` of (cycles, A per cycle, B per cycle) and return the follower's
    policy at the end of each phase."""
    out = []
    for cycles, a, b in phases:
        for _ in range(cycles):
            duel.count(duel.leader_a, a)
            duel.count(duel.leader_b, b)
        out.append(duel.policy(follower))
    return out


def test_psel_is_the_default_rule_with_the_cited_10_bit_selector():
    d = SMDuel(0, 1)
    assert d.rule == "psel" and d.psel_bits == 10 and d.psel_limit == 512


def test_psel_saturates_at_its_width():
    d = SMDuel(0, 1, psel_bits=4)
    d.count(0, 100)
    assert d.psel == 7 and d.issued[0] == 100
    d.count(1, 100)
    assert d.psel == -8


def test_follower_flips_when_the_leaders_recent_ipc_flips():
    # leader A issues 2 per cycle, B 1 for 20,000 cycles; then the phase flips for 2,000
    # cycles. The saturating selector forgets the first phase beyond 512 instructions.
    phases = [(20000, 2, 1), (2000, 1, 2)]
    assert _phases(SMDuel(0, 1), phases) == ["a", "b"]
    # the cumulative count from the launch start still prefers A (40,000 + 2,000 vs
    # 20,000 + 4,000)
    assert _phases(SMDuel(0, 1, rule="cumulative"), phases) == ["a", "a"]


def test_psel_flip_needs_half_the_selector_range_of_net_instructions():
    d = SMDuel(0, 1, rule="psel", psel_bits=10)
    d.count(0, 10_000)                 # saturated at +511
    d.count(1, 510)
    assert d.winner() == "a" and d.psel == 1
    d.count(1, 2)
    assert d.winner() == "b" and d.psel == -1


def test_rules_are_deterministic():
    phases = [(300, 3, 1), (700, 1, 2), (50, 0, 4), (900, 2, 2)]
    for rule in ("psel", "cumulative"):
        a = SMDuel(0, 1, rule=rule)
        b = SMDuel(0, 1, rule=rule)
        assert _phases(a, phases) == _phases(b, phases) and a.psel == b.psel


def test_reset_clears_the_selector():
    d = SMDuel(0, 1)
    d.count(0, 5)
    d.reset()
    assert d.psel == 0 and d.winner() == "b"


@pytest.mark.parametrize("kw, match", [({"rule": "window"}, "rule must be one of psel, cumulative"),
                                       ({"psel_bits": 0}, "psel_bits"),
                                       ({"psel_bits": 33}, "psel_bits"),
                                       ({"psel_bits": True}, "psel_bits")])
def test_bad_rule_parameters(kw, match):
    with pytest.raises(ConfigError, match=match):
        SMDuel(0, 1, **kw)


# --------------------------------------------------------------- the switch on the mechanisms

@pytest.fixture(scope="module")
def gtx480_warpman():
    from golden.configs import load_config
    return load_config("gtx480_warpman")


@pytest.mark.parametrize("name", ["warpman-duel", "coarse2-duel", "coarse4-duel"])
def test_mechanisms_default_to_psel_and_take_the_cumulative_switch(gtx480_warpman, name):
    from golden.mechanisms.registry import make_mechanisms
    (m,) = make_mechanisms([name], gtx480_warpman)
    assert m.duel.rule == "psel" and m.duel.psel_bits == 10
    (m,) = make_mechanisms([f"{name}:duel_rule=cumulative"], gtx480_warpman)
    assert m.duel.rule == "cumulative"
    (m,) = make_mechanisms([f"{name}:duel_psel_bits=6"], gtx480_warpman)
    assert m.duel.rule == "psel" and m.duel.psel_limit == 32


@pytest.mark.parametrize("text, match", [
    ("warpman-duel:duel_rule=epoch", "warpman: duel_rule must be one of psel, cumulative"),
    ("coarse2-duel:duel_rule=epoch", "coarse-l1: duel_rule must be one of psel, cumulative"),
    ("warpman-duel:duel_psel_bits=ten", "duel_psel_bits must be an integer"),
    ("coarse4-duel:duel_psel_bits=0", "duel_psel_bits must be an integer from 1 to 32")])
def test_bad_switch_is_a_one_line_error(gtx480_warpman, text, match):
    from golden.mechanisms.registry import make_mechanisms
    with pytest.raises(ConfigError, match=match) as e:
        make_mechanisms([text], gtx480_warpman)
    assert "\n" not in str(e.value)
