"""High halves of 64-bit products (``mul.hi`` / ``mad.hi`` on ``.u64`` and ``.s64``).

numpy has no 128-bit integers, so the high 64 bits of a 64x64-bit product are built from
32-bit limbs. Shared by the plain integer ops (:mod:`golden.exec.int_ops`) and the
carry-flag ops (:mod:`golden.exec.carry_ops`, ``mad.hi.cc`` / ``madc.hi``).
"""

from __future__ import annotations

import numpy as np

_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


def mulhi_u64(a, b):
    """High 64 bits of the 128-bit product of uint64 ``a`` and ``b`` (32-bit limbs)."""
    a0, a1 = a & _M32, a >> _S32
    b0, b1 = b & _M32, b >> _S32
    p01, p10 = a0 * b1, a1 * b0
    mid = ((a0 * b0) >> _S32) + (p01 & _M32) + (p10 & _M32)
    return a1 * b1 + (p01 >> _S32) + (p10 >> _S32) + (mid >> _S32)


def mulhi_s64(a, b):
    """High 64 bits of the signed 128-bit product of int64 ``a`` and ``b``."""
    ua, ub = a.view(np.uint64), b.view(np.uint64)
    zero = np.uint64(0)
    hi = mulhi_u64(ua, ub) - np.where(a < 0, ub, zero) - np.where(b < 0, ua, zero)
    return hi.view(np.int64)


def mulhi_64(t: str):
    """The high-product function for the 64-bit PTX integer type ``t`` (``s64``/``u64``)."""
    return mulhi_s64 if t[0] == "s" else mulhi_u64
