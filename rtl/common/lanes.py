"""Array views for lane and byte slicing of packed warp values (``amaranth.lib.data``).

A warp register travels as one ``32 * lanes``-bit value, lane ``l`` in bits
``[32 l, 32 l + 32)`` and byte ``b`` of a lane in bits ``[8 b, 8 b + 8)`` of it (the packing
of :func:`golden.structures.gscalar.params.pack_lanes`). These views index that packing by
name instead of by bit arithmetic.
"""

from __future__ import annotations

from amaranth.lib import data

__all__ = ["WORD_BYTES", "bytes_of", "lane_bytes", "words"]

#: One 32-bit word as 4 bytes, byte 0 least significant.
WORD_BYTES = data.ArrayLayout(8, 4)


def words(value, count: int, width: int = 32) -> data.View:
    """``value`` as ``count`` words of ``width`` bits (``view[i]`` is word ``i``)."""
    return data.View(data.ArrayLayout(width, count), value)


def lane_bytes(value, lanes: int) -> data.View:
    """A packed warp value as ``lanes`` x 4 bytes (``view[lane][byte]``)."""
    return data.View(data.ArrayLayout(WORD_BYTES, lanes), value)


def bytes_of(value, count: int = 4) -> data.View:
    """``value`` as ``count`` bytes (``view[i]`` is byte ``i``)."""
    return data.View(data.ArrayLayout(8, count), value)
