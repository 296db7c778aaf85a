"""Reference model of the priority encoder (rtl/common/priority_encoder.py).

A priority encoder turns a request vector into the binary index of the request that
wins: here the **lowest set index** wins. TBC's warp compaction unit forms warps with
per-lane priority encoders (paper-facts §7.1), and allocators that pick "the first free
entry" (CAM insert, free lists) use the same function.

When no request is set, ``valid`` is 0 and ``index`` is defined as 0 (the RTL drives 0
too, so the two views agree bit for bit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from golden.errors import ConfigError, SimtlabError

__all__ = ["PriorityEncoderParams", "PriorityEncoderResult", "PriorityEncoder", "index_width"]


def index_width(width: int) -> int:
    """Bits of the ``index`` output for *width* requests: ceil(log2(width)), at least 1."""
    return max(1, (width - 1).bit_length())


@dataclass(frozen=True)
class PriorityEncoderParams:
    """Parameters of a priority encoder.

    Attributes
    ----------
    width : int
        Number of request inputs (>= 1).
    """

    width: int

    def __post_init__(self) -> None:
        if not isinstance(self.width, int) or isinstance(self.width, bool) or self.width < 1:
            raise ConfigError(f"priority encoder width must be a positive integer, not {self.width!r}")

    @property
    def index_width(self) -> int:
        return index_width(self.width)


class PriorityEncoderResult(NamedTuple):
    """Output of one encoding: winning ``index`` (0 when not valid) and ``valid``."""

    index: int
    valid: bool


class PriorityEncoder:
    """Transaction-level priority encoder: ``encode(requests) -> (index, valid)``.

    Parameters
    ----------
    width : int
        Number of request inputs.
    """

    def __init__(self, width: int):
        self.params = PriorityEncoderParams(width=width)

    @property
    def width(self) -> int:
        return self.params.width

    def encode(self, requests: int) -> PriorityEncoderResult:
        """Return the lowest set index of *requests* (0 if none) and whether any is set."""
        width = self.params.width
        if not isinstance(requests, int) or isinstance(requests, bool) or not 0 <= requests < (1 << width):
            raise SimtlabError(f"priority encoder input {requests!r} does not fit in {width} bits")
        if requests == 0:
            return PriorityEncoderResult(0, False)
        return PriorityEncoderResult((requests & -requests).bit_length() - 1, True)
