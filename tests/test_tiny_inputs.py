"""The tiny inputs of property tests (tests/conftest.py TINY) are valid inputs: each runs
functionally and matches its numpy reference."""

import pytest

from conftest import TINY
from golden.workloads import registry


@pytest.mark.parametrize("name", sorted(TINY))
def test_tiny_input_runs_and_matches_numpy(name, shrink_small):
    shrink_small.tiny(name)
    assert registry.get(name).sizes["small"] == {**registry.get(name).sizes["small"], **TINY[name]}
    run = registry.run_workload(name, "small", 0)
    assert not run.mismatches()
