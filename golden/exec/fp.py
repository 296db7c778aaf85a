"""IEEE-754 helpers for PTX floating-point semantics on numpy lane arrays.

numpy gives correctly rounded round-to-nearest-even (``.rn``) ``+ - * / sqrt`` in
float32 and float64, but no fused multiply-add and no directed rounding. This module
adds them with error-free transformations:

* ``two_sum`` (Knuth) and ``two_prod`` (Dekker/Veltkamp) return ``s + e`` equal to the
  exact sum/product;
* :func:`round_pair` rounds an exact float64 pair ``s + e`` to float32 (or float16) in
  any of the four PTX rounding modes ``rn rz rm rp``: the float64 value is rounded to
  nearest, the sign of the remaining error tells which neighbour is correct, and
  ``nextafter`` moves there. f32 ``+ - *`` and ``fma`` are exact as float64 pairs, so
  every f32 mode is correctly rounded; f32 ``/`` and ``sqrt`` computed in float64 are
  never exact-but-misrounded (the quotient of two 24-bit numbers cannot lie within
  2**-53 relative of a 24-bit number without being one), so they are correct too;
* f64 ``fma.rn`` uses Boldo & Melquiond's emulation (exact product, exact sum, a
  round-to-odd addition, then a final round-to-nearest: "Emulation of FMA and correctly
  rounded sums: proved algorithms using rounding to odd", IEEE TC 57(4), 2008);
* f64 directed rounding of ``+ - * / sqrt`` corrects the round-to-nearest result by the
  sign of the exact residual (``two_sum`` / ``two_prod``).

Lanes whose operands are so large or small that the error-free transformations could
overflow or underflow (|x| near 2**1000 or products below 2**-968) are computed exactly
with :class:`fractions.Fraction`, one lane at a time; this never happens in ordinary
kernels, and only those lanes pay for it. f64 ``fma`` with a directed rounding mode
(``fma.rz.f64`` ...) always takes the exact path.

Callers run these inside ``np.errstate(all="ignore")``: NaN and infinity are produced
silently as the hardware does.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

F32 = np.float32
F64 = np.float64
_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp splitter for float64
_TINY32 = np.float32(np.finfo(np.float32).tiny)
_TINY64 = np.finfo(np.float64).tiny
_OVER = {np.dtype(np.float32): 2.0 ** 128, np.dtype(np.float16): 2.0 ** 16}
_DBL_MAX = np.finfo(np.float64).max

# window inside which Dekker's product and the FMA emulation are exact
_SPLIT_MAX = 2.0 ** 995
_PROD_MIN = 2.0 ** -968
_SUM_MAX = 2.0 ** 1021

ROUNDING = ("rn", "rz", "rm", "rp")

_LOW29, _HALF29 = np.uint64(0x1FFFFFFF), np.uint64(0x10000000)
_ONE, _NOSIGN = np.uint64(1), np.uint64(0x7FFFFFFFFFFFFFFF)
_SUB32 = np.float64(2.0 ** -125).view(np.uint64)


# ----------------------------------------------------------------------------- flush / clamp

def ftz(x):
    """Flush subnormal values to sign-preserving zero (PTX ``.ftz``); NaN/inf unchanged."""
    return x * (np.abs(x) >= np.finfo(x.dtype).tiny)


def saturate(x):
    """PTX ``.sat`` for floats: clamp to [0.0, 1.0]; NaN -> +0.0 (and -0.0 -> +0.0)."""
    return np.where(x > 0, np.minimum(x, 1), 0).astype(x.dtype, copy=False)


# ----------------------------------------------------------------------------- error-free ops

def two_sum(a, b):
    """``s, e`` with ``s = fl(a + b)`` and ``s + e == a + b`` exactly (no overflow)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def _split(a):
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a, b):
    """``p, e`` with ``p = fl(a * b)`` and ``p + e == a * b`` exactly, for |a|, |b| <= 2**995
    and |a * b| >= 2**-968 (or a product of an exact zero)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


# ----------------------------------------------------------------------------- rounding

def _step(r, toward):
    return np.nextafter(r, np.asarray(toward, dtype=r.dtype))


def round_pair(s, e, mode: str, dtype=np.float32):
    """Round the exact value ``s + e`` (float64 arrays, ``s = fl64(s + e)``; ``e`` may be
    ``None`` when ``s`` is exact or never misrounds) to ``dtype`` (float32 or float16)
    with PTX rounding ``mode``."""
    dtype = np.dtype(dtype)
    r = s.astype(dtype)
    if mode == "rn" and e is None:
        return r
    r64 = r.astype(np.float64)
    big = np.isinf(r) & np.isfinite(s)
    if big.any():  # overflowed: measure from the first power of two past the largest float
        r64 = np.where(big, np.copysign(_OVER[dtype], s), r64)
    d = s - r64  # exact; d != 0 gives the sign of (exact - r)
    if big.any():  # a finite exact value always lies inside +-infinity
        d = np.where(big & (np.abs(s) >= _OVER[dtype]), -np.copysign(1.0, s), d)
    if mode == "rn":
        if e is None:
            return r
        # double rounding can only go wrong when s is exactly halfway between two results
        other = _step(r, np.copysign(np.inf, d))
        half = (r64 + other.astype(np.float64)) * 0.5
        # (an infinite s is exact: an infinite input; its NaN d and e must not "fix" it)
        fix = np.isfinite(s) & (d != 0) & (half == s) & (e != 0) & (np.signbit(e) == np.signbit(d))
        return np.where(fix, other, r)
    if e is None:
        pos, neg = d > 0, d < 0
    else:
        pos = (d > 0) | ((d == 0) & (e > 0))
        neg = (d < 0) | ((d == 0) & (e < 0))
    return directed(r, pos, neg, mode)


def directed(r, pos, neg, mode: str):
    """Move the round-to-nearest result ``r`` to the neighbour that rounding ``mode``
    (``rz rm rp``) selects, given whether the exact value lies above (``pos``) or below
    (``neg``) ``r``."""
    if mode == "rm":
        return np.where(neg, _step(r, -np.inf), r)
    if mode == "rp":
        return np.where(pos, _step(r, np.inf), r)
    if mode == "rz":
        return np.where(((r > 0) & neg) | ((r < 0) & pos), _step(r, 0.0), r)
    return r


def rm_zero_sign(res, a, b):
    """IEEE rule for an exact zero sum under round-toward-minus-infinity: the result is
    -0 unless both addends are +0."""
    both_pos_zero = (a == 0) & (b == 0) & ~np.signbit(a) & ~np.signbit(b)
    return np.where((res == 0) & ~both_pos_zero, -np.zeros_like(res), res)


# ----------------------------------------------------------------------------- exact fallback

def _round_fraction(x: Fraction, mode: str) -> float:
    """Exact rational ``x`` rounded to float64 with ``mode`` (non-zero ``x``)."""
    try:
        r = x.numerator / x.denominator  # correctly rounded to nearest by CPython
    except OverflowError:
        r = math.inf if x > 0 else -math.inf
    if mode == "rn":
        return r
    if math.isinf(r):
        pos, neg = r < 0, r > 0  # the exact value is finite
    else:
        fr = Fraction(r)
        pos, neg = x > fr, x < fr
    if mode == "rm" and neg:
        return math.nextafter(r, -math.inf)
    if mode == "rp" and pos:
        return math.nextafter(r, math.inf)
    if mode == "rz" and ((r > 0 and neg) or (r < 0 and pos)):
        return math.nextafter(r, 0.0)
    return r


def _exact_lanes(out, lanes, exact_fn, mode, zero_fn):
    """Fill ``out[lanes]`` with the exactly computed and rounded value of each lane."""
    for i in np.flatnonzero(lanes):
        x = exact_fn(i)
        out[i] = zero_fn(i) if x == 0 else _round_fraction(x, mode)
    return out


def _zero_sum_sign(p_neg: bool, p_zero: bool, c: float, mode: str) -> float:
    """Sign of an exact zero ``p + c`` (IEEE 754 6.3)."""
    c_neg = math.copysign(1.0, c) < 0
    if p_zero and c == 0 and p_neg == c_neg:
        return -0.0 if p_neg else 0.0
    return -0.0 if mode == "rm" else 0.0


# ----------------------------------------------------------------------------- f32 arithmetic

def add_f32(a, b, mode: str):
    """f32 ``a + b`` with rounding ``mode`` (inputs float32)."""
    if mode == "rn":
        return a + b
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    s, e = two_sum(a64, b64)
    r = round_pair(s, e, mode)
    return rm_zero_sign(r, a, b) if mode == "rm" else r


def mul_f32(a, b, mode: str):
    if mode == "rn":
        return a * b
    return round_pair(np.asarray(a, np.float64) * b, None, mode)


def fma_f32(a, b, c, mode: str):
    """Correctly rounded f32 ``a * b + c`` (single rounding)."""
    p = np.multiply(a, b, dtype=np.float64)  # exact: 24 + 24 bits
    if mode == "rn":
        s = p + c
        r = s.astype(np.float32)
        # only a float64 sum lying exactly on an f32 halfway point (or in the f32
        # subnormal range) can have been double-rounded; re-round those exactly.
        # (bits - 1) & ~sign < bits(2**-125) is "0 < |s| < 2**-125" in one compare.
        bits = s.view(np.uint64)
        risky = ((bits & _LOW29) == _HALF29) | (((bits - _ONE) & _NOSIGN) < _SUB32)
        if not np.count_nonzero(risky):  # (cheaper than risky.any() on 32 lanes)
            return r
    c64 = np.asarray(c, np.float64)
    s, e = two_sum(p, c64)
    r = round_pair(s, e, mode)
    if mode == "rm":
        r = rm_zero_sign(r, p, c64)
    return r


def div_f32(a, b, mode: str):
    if mode == "rn":
        return a / b
    return round_pair(np.asarray(a, np.float64) / b, None, mode)


def sqrt_f32(a, mode: str):
    if mode == "rn":
        return np.sqrt(a)
    return round_pair(np.sqrt(np.asarray(a, np.float64)), None, mode)


# ----------------------------------------------------------------------------- f64 arithmetic

def _as64(*xs):
    return np.broadcast_arrays(*[np.asarray(x, np.float64) for x in xs])


def add_f64(a, b, mode: str):
    if mode == "rn":
        return a + b
    a, b = _as64(a, b)
    s, e = two_sum(a, b)
    over = np.isinf(s) & np.isfinite(a) & np.isfinite(b)
    r = directed(s, (e > 0) | (over & (s < 0)), (e < 0) | (over & (s > 0)), mode)
    return rm_zero_sign(r, a, b) if mode == "rm" else r


def _prod_safe(a, b, p):
    aa, ab, ap = np.abs(a), np.abs(b), np.abs(p)
    return ((a == 0) | (b == 0)) | ((aa <= _SPLIT_MAX) & (ab <= _SPLIT_MAX)
                                    & (ap >= _PROD_MIN) & (ap <= _SUM_MAX))


def mul_f64(a, b, mode: str):
    if mode == "rn":
        return a * b
    a, b = _as64(a, b)
    p, e = two_prod(a, b)
    fin = np.isfinite(a) & np.isfinite(b)
    safe = _prod_safe(a, b, p) & fin
    r = directed(p, e > 0, e < 0, mode)
    r = np.where(fin, r, p)
    slow = fin & ~safe
    if slow.any():
        r = _exact_lanes(r.copy(), slow, lambda i: Fraction(a[i]) * Fraction(b[i]), mode,
                         lambda i: p[i])
    return r


def div_f64(a, b, mode: str):
    if mode == "rn":
        return a / b
    a, b = _as64(a, b)
    q = a / b
    ph, pl = two_prod(q, b)
    rem = (a - ph) - pl
    sgn = rem * np.sign(b)
    fin = np.isfinite(a) & np.isfinite(b) & (b != 0) & (a != 0)
    safe = fin & _prod_safe(q, b, ph) & (q != 0) & np.isfinite(q)
    r = np.where(safe, directed(q, sgn > 0, sgn < 0, mode), q)
    slow = fin & ~safe
    if slow.any():
        r = _exact_lanes(r.copy(), slow, lambda i: Fraction(a[i]) / Fraction(b[i]), mode,
                         lambda i: q[i])
    return r


def sqrt_f64(a, mode: str):
    if mode == "rn":
        return np.sqrt(a)
    a = np.asarray(a, np.float64)
    q = np.sqrt(a)
    ph, pl = two_prod(q, q)
    rem = (a - ph) - pl
    safe = (a > 2.0 ** -900) & np.isfinite(a)
    r = np.where(safe, directed(q, rem > 0, rem < 0, mode), q)
    slow = (a > 0) & ~safe & np.isfinite(a)
    if slow.any():
        def exact_sign(i):  # sign of sqrt(a) - q
            fq = Fraction(q[i])
            return (Fraction(a[i]) > fq * fq) - (Fraction(a[i]) < fq * fq)
        r = r.copy()
        for i in np.flatnonzero(slow):
            sg = exact_sign(i)
            r[i] = directed(np.float64(q[i]), sg > 0, sg < 0, mode)
    return r


def fma_f64(a, b, c, mode: str):
    """Correctly rounded f64 ``a * b + c`` with rounding ``mode``."""
    a, b, c = _as64(a, b, c)
    plain = a * b + c  # right for every non-finite input combination but one (below)
    fin_ab = np.isfinite(a) & np.isfinite(b)
    fin = fin_ab & np.isfinite(c)
    special = np.where(fin_ab, c, plain)  # finite a*b plus an infinite/NaN c is c
    if mode == "rn":
        uh, ul = two_prod(a, b)
        th, tl = two_sum(c, uh)
        s, e = two_sum(tl, ul)  # v = round-to-odd(tl + ul)
        even = (s.view(np.uint64) & 1) == 0
        v = np.where((e != 0) & even, np.nextafter(s, np.copysign(np.inf, e)), s)
        z = th + v
        z = np.where(z == 0, plain, z)  # exact zero: IEEE sign rules, as plain computes
        safe = fin & _prod_safe(a, b, uh) & (np.abs(c) <= _SUM_MAX)
        r = np.where(safe, z, np.where(fin, plain, special))
        slow = fin & ~safe
    else:
        r = np.where(fin, plain, special)
        slow = fin
    if slow.any():
        r = _exact_lanes(
            r.copy(), slow,
            lambda i: Fraction(a[i]) * Fraction(b[i]) + Fraction(c[i]), mode,
            lambda i: _zero_sum_sign(bool(np.signbit(a[i]) ^ np.signbit(b[i])),
                                     bool(a[i] == 0 or b[i] == 0), float(c[i]), mode))
    return r


def round_f64_to(x, mode: str, dtype):
    """float64 ``x`` rounded to float32/float16 with ``mode`` (cvt)."""
    return round_pair(np.asarray(x, np.float64), None, mode, dtype)
