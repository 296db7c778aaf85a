"""Reference model of the leading-one detector (rtl/common/leading_one.py).

A leading-one detector keeps one set bit of its input and clears all the others: the
output is the one-hot mask of the *first* set bit. G-Scalar (seed 003, §4.2, Fig. 7a)
uses it on the active mask to pick the lane that drives the shared byte-wide broadcast
bus during a divergent comparison (paper-facts §6.4 B).

Which bit is "first" is a parameter:

* ``msb_first=False`` (default): the lowest-index set bit wins, the same convention as
  the project's priority encoder (lane 0 first).
* ``msb_first=True``: the highest-index set bit wins, as drawn in G-Scalar Fig. 7a
  (M = 0100000011111010 gives L = 0100000000000000, lane 14).

Any active lane gives the same comparison result, so both choices are correct for
G-Scalar; the parameter only decides which lane drives the bus.

With no bit set the output is 0 and ``valid`` is 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from golden.errors import ConfigError, SimtlabError

__all__ = ["LeadingOneParams", "LeadingOneResult", "LeadingOneDetector"]


@dataclass(frozen=True)
class LeadingOneParams:
    """Parameters of a leading-one detector.

    Attributes
    ----------
    width : int
        Number of input bits (>= 1).
    msb_first : bool
        ``False``: lowest-index set bit wins; ``True``: highest-index set bit wins.
    """

    width: int
    msb_first: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.width, int) or isinstance(self.width, bool) or self.width < 1:
            raise ConfigError(f"leading-one detector width must be a positive integer, not {self.width!r}")
        if not isinstance(self.msb_first, bool):
            raise ConfigError(f"leading-one detector msb_first must be a bool, not {self.msb_first!r}")


class LeadingOneResult(NamedTuple):
    """Output of one detection: ``onehot`` mask of the winning bit, ``valid`` = any bit set."""

    onehot: int
    valid: bool


class LeadingOneDetector:
    """Transaction-level leading-one detector: ``detect(bits) -> (onehot, valid)``.

    Parameters
    ----------
    width : int
        Number of input bits.
    msb_first : bool, optional
        Priority direction, see the module docstring. Default ``False`` (lowest index).
    """

    def __init__(self, width: int, *, msb_first: bool = False):
        self.params = LeadingOneParams(width=width, msb_first=msb_first)

    @property
    def width(self) -> int:
        return self.params.width

    @property
    def msb_first(self) -> bool:
        return self.params.msb_first

    def detect(self, bits: int) -> LeadingOneResult:
        """Return the one-hot mask of the first set bit of *bits* and whether any bit is set."""
        width = self.params.width
        if not isinstance(bits, int) or isinstance(bits, bool) or not 0 <= bits < (1 << width):
            raise SimtlabError(f"leading-one detector input {bits!r} does not fit in {width} bits")
        if bits == 0:
            return LeadingOneResult(0, False)
        if self.params.msb_first:
            return LeadingOneResult(1 << (bits.bit_length() - 1), True)
        return LeadingOneResult(bits & -bits, True)
