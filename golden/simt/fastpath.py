"""Per-lane kernels of the timing model's functional step, compiled with the timing core.

In timing mode the functional model executes one warp instruction at a time, so each
numpy call works on 32 lanes and costs about a microsecond of call overhead, more than the
work itself. The functions here do the same work for one warp as plain loops over its 32
lanes, on byte views of the registers and memories. They are part of the compiled group of
:mod:`golden.native` (``fastpath.pxd`` types them); :data:`COMPILED` says whether this copy
was compiled. :class:`golden.simt.engine.FunctionalLaunch` uses them only when it was:
uncompiled they are correct but slower than numpy, and the numpy paths they replace stay
the reference (tests compare the two on random and real-kernel inputs).

Values travel as raw bytes (little-endian, as numpy stores them), so a load or a move
between registers of one size is an exact bit copy, whatever the element type.

* :func:`load_addresses` -- a ``ld`` fast path's lane addresses (the base register plus
  the immediate offset, wrapping in 64 bits), with the OR of the active lanes' addresses
  (alignment) and their minimum and maximum (bounds);
* :func:`gather` -- one vector element of the load: copy ``size`` bytes per active lane
  from the memory into the destination register.
"""

from __future__ import annotations

import cython

COMPILED = bool(cython.compiled)

MASK64 = 0xFFFFFFFFFFFFFFFF
HIGH32 = 0xFFFFFFFF00000000


def _lane_value(base, i, width, signed):
    """Lane ``i``'s value of a register of ``width`` (4 or 8) bytes, as an unsigned 64-bit
    integer (a signed 4-byte value is sign-extended, as numpy's ``astype(uint64)`` does)."""
    o = i * width
    v = 0
    for b in range(width - 1, -1, -1):
        v = (v << 8) | base[o + b]
    if signed and width == 4 and v & 0x80000000:
        v |= HIGH32
    return v


def load_addresses(base, width, signed, lane0, offset, active, out):
    """Fill ``out`` (uint64, 32) with lane ``l``'s address: the base register's value at
    lane ``lane0 + l`` (``base``: its byte view; ``width`` 4 or 8 bytes, ``signed`` for a
    sign-extended 4-byte register) plus ``offset``, modulo 2**64, for every lane.
    Returns ``(or, min, max)`` over the lanes set in ``active`` (a 32-bit mask, not 0)."""
    if not cython.compiled:   # plain Python: index through memoryviews (Python ints)
        base, out = memoryview(base), memoryview(out)
    acc_or = 0
    lo = MASK64
    hi = 0
    for lane in range(32):
        a = (_lane_value(base, lane0 + lane, width, signed) + offset) & MASK64
        out[lane] = a
        if (active >> lane) & 1:
            acc_or |= a
            if a < lo:
                lo = a
            if a > hi:
                hi = a
    return acc_or, lo, hi


def gather(mem, addrs, sub, base_off, size, k, active, dst, lane0):
    """Element ``k`` of a ``size``-byte load for every lane set in ``active``: lane ``l``
    reads the ``size`` bytes of ``mem`` at ``((addrs[l] - sub) // size + k) * size +
    base_off`` and writes them to lane ``lane0 + l`` of ``dst`` (the destination register's
    byte view). Lanes not in ``active`` keep their value. The caller has checked every
    active lane's address (alignment, bounds)."""
    if not cython.compiled:   # plain Python: index through memoryviews (Python ints)
        mem, addrs, dst = memoryview(mem), memoryview(addrs), memoryview(dst)
    for lane in range(32):
        if (active >> lane) & 1:
            src = (((addrs[lane] - sub) & MASK64) // size + k) * size + base_off
            o = (lane0 + lane) * size
            for b in range(size):
                dst[o + b] = mem[src + b]
