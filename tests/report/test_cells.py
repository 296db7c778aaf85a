"""The shared ``outputs`` cell: a missing variant is not an output difference."""

from golden.report.present.cells import outputs_verdict


def test_missing_variants_are_not_reported_as_differences():
    assert outputs_verdict(False, 0) == ("identical", True)
    assert outputs_verdict(False, 2) == ("identical (2 missing)", None)
    assert outputs_verdict(True, 0) == ("DIFFER", False)
    assert outputs_verdict(True, 3) == ("DIFFER", False)   # a real difference wins
