"""Argument checks shared by the DARSIE golden structures (project error types, no asserts)."""

from __future__ import annotations

from golden.errors import ConfigError, SimtlabError


def is_int(value) -> bool:
    """True for a Python int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def param_int(structure: str, name: str, value, minimum: int, maximum: int | None = None) -> None:
    """Raise ConfigError unless ``value`` is an int in ``minimum .. maximum``."""
    bad = not is_int(value) or value < minimum or (maximum is not None and value > maximum)
    if bad:
        upper = "" if maximum is None else f" and <= {maximum}"
        raise ConfigError(f"{structure}.{name}: must be an integer >= {minimum}{upper}, not {value!r}")


def fits(structure: str, what: str, value, width: int) -> int:
    """Return ``value`` if it is an int that fits in ``width`` unsigned bits, else raise."""
    if not is_int(value) or not 0 <= value < (1 << width):
        raise SimtlabError(f"{structure}: {what} {value!r} does not fit in {width} bits")
    return value


def below(structure: str, what: str, value, limit: int) -> int:
    """Return ``value`` if it is an int in ``0 .. limit - 1``, else raise."""
    if not is_int(value) or not 0 <= value < limit:
        raise SimtlabError(f"{structure}: {what} {value!r} out of range 0..{limit - 1}")
    return value


def width_of(count: int) -> int:
    """Bits needed for an index port over ``count`` items (at least 1)."""
    return max(1, (count - 1).bit_length())
