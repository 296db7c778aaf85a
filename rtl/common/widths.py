"""Port widths of the common primitives, owned by the RTL (the golden models have their
own; ``tests/rtl/test_rtl_independence.py`` checks that both agree)."""

from __future__ import annotations

__all__ = ["count_width", "index_width"]


def index_width(count: int) -> int:
    """Bits of an index over ``count`` items: ceil(log2(count)), at least 1."""
    return max(1, (count - 1).bit_length())


def count_width(width: int) -> int:
    """Bits of a population count of ``width`` inputs (enough to hold ``width`` itself)."""
    return width.bit_length()
