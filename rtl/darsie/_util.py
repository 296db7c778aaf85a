"""Small elaboration helpers shared by the DARSIE components (parameter checks, one-hot encode)."""

from __future__ import annotations

from functools import reduce
from operator import or_

from amaranth.hdl import Const, Mux

from rtl.common import params, widths


check_int = params.check_int      # rtl.common.params: one parameter check for every component


index_width = widths.index_width   # bits of an index port over ``count`` items (at least 1)


def encode(onehot):
    """Binary index of a one-hot (or all-zero) list of 1-bit values."""
    return reduce(or_, [Mux(bit, i, 0) for i, bit in enumerate(onehot)], Const(0, 1))


def any_of(bits):
    """OR of a non-empty list of values."""
    return reduce(or_, bits)


def select(onehot, values, width: int):
    """OR of ``values[i]`` gated by ``onehot[i]`` (a one-hot read mux)."""
    return reduce(or_, [Mux(bit, v, 0) for bit, v in zip(onehot, values)], Const(0, width))
