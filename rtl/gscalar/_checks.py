"""Constructor-parameter checks shared by the G-Scalar components."""

from __future__ import annotations

from rtl.common.params import check_int


def check_lanes_groups(lanes, groups) -> None:
    """Validate ``lanes`` (1..32) and ``groups`` (1 or 2, dividing ``lanes``)."""
    check_int("G-Scalar", "lanes", lanes, 1, 32)
    check_int("G-Scalar", "groups", groups, 1, 2)
    if lanes % groups:
        raise ValueError(f"groups must be 1 or 2 and divide lanes={lanes}, not {groups}")
