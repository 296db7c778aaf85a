"""Constructor-parameter checks shared by every RTL component (one helper, one message
format: ``<Component> <parameter> must be ...``)."""

from __future__ import annotations

__all__ = ["check_int"]


def check_int(owner: str, name: str, value, minimum: int, maximum: int | None = None) -> int:
    """Return ``value`` if it is an int (not a bool) in ``minimum..maximum``; raise
    TypeError / ValueError naming ``owner`` and ``name`` otherwise."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{owner} {name} must be an integer, not {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"at least {minimum}" if maximum is None else f"in {minimum}..{maximum}"
        raise ValueError(f"{owner} {name} must be {bound}, not {value}")
    return value
