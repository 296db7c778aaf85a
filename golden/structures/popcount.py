"""Reference model of the population count (rtl/common/popcount.py).

Counts the set bits of a vector. CAPRI's adequacy evaluator (seed 004, §3.3; paper-facts
§7.2) counts, per SIMD lane, the active threads of a CTA-wide path mask; the maximum of
those per-lane counts is the fewest warps compaction could form.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import ConfigError, SimtlabError

__all__ = ["PopCountParams", "PopCount", "count_width"]


def count_width(width: int) -> int:
    """Bits of the ``count`` output for *width* inputs: enough to hold *width* itself."""
    return width.bit_length()


@dataclass(frozen=True)
class PopCountParams:
    """Parameters of a population count.

    Attributes
    ----------
    width : int
        Number of input bits (>= 1).
    """

    width: int

    def __post_init__(self) -> None:
        if not isinstance(self.width, int) or isinstance(self.width, bool) or self.width < 1:
            raise ConfigError(f"popcount width must be a positive integer, not {self.width!r}")

    @property
    def count_width(self) -> int:
        return count_width(self.width)


class PopCount:
    """Transaction-level population count: ``count(bits) -> number of set bits``.

    Parameters
    ----------
    width : int
        Number of input bits.
    """

    def __init__(self, width: int):
        self.params = PopCountParams(width=width)

    @property
    def width(self) -> int:
        return self.params.width

    def count(self, bits: int) -> int:
        """Return the number of set bits of *bits*."""
        width = self.params.width
        if not isinstance(bits, int) or isinstance(bits, bool) or not 0 <= bits < (1 << width):
            raise SimtlabError(f"popcount input {bits!r} does not fit in {width} bits")
        return bits.bit_count()
