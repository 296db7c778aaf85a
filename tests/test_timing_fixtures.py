"""The timing model reproduces its committed statistics exactly (tests/timing_fixtures.py)."""

import json

import pytest

from timing_fixtures import CASES, FIXTURE_DIR, diff, measure


@pytest.mark.parametrize("case", sorted(CASES))
def test_statistics_match_the_fixture(case):
    path = FIXTURE_DIR / f"{case}.json"
    assert path.exists(), f"missing fixture {path}; run python tests/timing_fixtures.py {case}"
    want = json.loads(path.read_text())
    got = measure(CASES[case])
    diffs = diff(want, got)
    assert not diffs, (f"{case}: statistics differ from the committed fixture (if the change "
                       f"is meant to alter them, regenerate with python tests/timing_fixtures.py "
                       f"and say so in the commit):\n  " + "\n  ".join(diffs[:20]))
    assert got["outputs_match"]
