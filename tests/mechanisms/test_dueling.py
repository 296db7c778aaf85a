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
