"""Constructor-parameter checks shared by the G-Scalar components."""

from __future__ import annotations


def check_lanes_groups(lanes, groups) -> None:
    """Validate ``lanes`` (1..32) and ``groups`` (1 or 2, dividing ``lanes``)."""
    if not isinstance(lanes, int) or isinstance(lanes, bool):
        raise TypeError(f"lanes must be an integer, not {lanes!r}")
    if not 1 <= lanes <= 32:
        raise ValueError(f"lanes must be in 1..32, not {lanes}")
    if not isinstance(groups, int) or isinstance(groups, bool):
        raise TypeError(f"groups must be an integer, not {groups!r}")
    if groups not in (1, 2) or lanes % groups:
        raise ValueError(f"groups must be 1 or 2 and divide lanes={lanes}, not {groups}")
