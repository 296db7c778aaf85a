"""Mechanism names with factory arguments (golden/mechanisms/registry.py)."""

import pytest

from golden.configs import load_config
from golden.errors import ConfigError
from golden.mechanisms.registry import make_mechanisms, parse_name


def test_parse_name():
    assert parse_name("ilp-sc") == ("ilp-sc", {})
    assert parse_name("ilp-sc:entries=4") == ("ilp-sc", {"entries": "4"})
    assert parse_name("x:a=1,b=true,c=gto") == ("x", {"a": "1", "b": "true", "c": "gto"})
    with pytest.raises(ConfigError):
        parse_name("ilp-sc:entries")


def test_arguments_reach_the_factory_and_bad_ones_are_clear_errors():
    cfg = load_config("gtx280")
    (m,) = make_mechanisms(["ilp-sc:entries=4"], cfg)
    assert m.entries == 4
    with pytest.raises(ConfigError, match="entries"):
        make_mechanisms(["ilp-sc:entries=1"], cfg)
    with pytest.raises(ConfigError, match="ilp-sc:colour=red"):
        make_mechanisms(["ilp-sc:colour=red"], cfg)
    with pytest.raises(ConfigError, match="unknown mechanism"):
        make_mechanisms(["nope:entries=4"], cfg)
