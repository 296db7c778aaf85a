"""Integer arithmetic: add sub mul mad mul24 mad24 div rem abs neg min max sad dp4a dp2a.

All arithmetic wraps modulo 2**width as PTX specifies (numpy integer arrays wrap
silently). Conventions where PTX leaves the result unspecified follow what NVIDIA GPUs
produce:

* ``div`` by zero gives all ones (``0xffffffff`` for ``.u32``, ``-1`` for ``.s32``: the
  SASS division sequence ends with ``d = (b == 0) ? ~0 : q``);
* ``rem`` by zero gives the dividend ``a``;
* ``div.s`` of ``INT_MIN`` by ``-1`` wraps to ``INT_MIN`` and ``rem.s`` gives 0;
* signed division truncates toward zero, the remainder has the dividend's sign (C99).

``add.cc``, ``sub.cc`` and ``mad.cc`` (and ``addc subc madc``) set/use the carry flag;
they are built by :mod:`golden.exec.carry_ops`.
"""

from __future__ import annotations

import numpy as np

from golden.exec import carry_ops
from golden.exec.compiled import check_mods, dest_regs, make_op, one_of, split_operands, the_type, unsupported
from golden.exec.types import DTYPE, UINT, width
from golden.exec.wide_mul import mulhi_64

INT_TYPES = ("u16", "u32", "u64", "s16", "s32", "s64")
SUP = "types .u16 .u32 .u64 .s16 .s32 .s64"
_I32 = (-(1 << 31), (1 << 31) - 1)


def _wide(t: str) -> str:
    return f"{t[0]}{2 * width(t)}"


def _op(inst, t, core, n_src, *, src_types=None, dst_type=None, warns=False):
    (d,), srcs = split_operands(inst, 1, n_src)
    return make_op(inst, dest_regs(inst, d), (dst_type or t,), srcs,
                   src_types or (t,) * n_src, core, warns=warns)


def _reject_carry(inst, mods):
    if "cc" in mods:
        raise unsupported(inst, "carry-flag modifier .cc", "add.cc sub.cc mad.cc addc subc madc")


# ----------------------------------------------------------------------------- helpers

def _mulhi(t):
    w = width(t)
    if w == 64:
        return mulhi_64(t)
    dt, wdt = DTYPE[t], DTYPE[_wide(t)]
    return lambda a, b: ((a.astype(wdt) * b.astype(wdt)) >> w).astype(dt)


def _divider(t):
    """``(div, rem)`` functions for type ``t`` with the by-zero conventions above."""
    dt = DTYPE[t]
    if t[0] == "u":
        ones = dt.type(-1 & ((1 << width(t)) - 1))

        def div(a, b):
            zero = b == 0
            return (np.where(zero, ones, a // np.where(zero, 1, b)).astype(dt, copy=False),)

        def rem(a, b):
            zero = b == 0
            return (np.where(zero, a, a % np.where(zero, 1, b)).astype(dt, copy=False),)
        return div, rem

    if width(t) <= 32:
        return _divider_small(t)
    udt = UINT[dt.itemsize]

    def mags(a, b):
        na, nb = a < 0, b < 0
        ua = np.where(na, -a, a).astype(udt)  # |INT_MIN| as unsigned is exact
        ub = np.where(nb, -b, b).astype(udt)
        zero = ub == 0
        return na, nb, ua, np.where(zero, 1, ub).astype(udt), zero

    def div(a, b):
        na, nb, ua, ub, zero = mags(a, b)
        q = (ua // ub).astype(dt)
        q = np.where(na ^ nb, -q, q)
        return (np.where(zero, dt.type(-1), q).astype(dt, copy=False),)

    def rem(a, b):
        na, nb, ua, ub, zero = mags(a, b)
        r = (ua % ub).astype(dt)
        r = np.where(na, -r, r)
        return (np.where(zero, a, r).astype(dt, copy=False),)
    return div, rem


def _divider_small(t):
    """Signed division of <= 32-bit integers through float64: |a|, |b| < 2**32, so the
    float64 quotient is never rounded across an integer and truncating it is exact;
    ``INT_MIN / -1`` gives 2**31, which wraps to ``INT_MIN`` in the final cast."""
    dt = DTYPE[t]

    def quotient(a, b):
        zero = b == 0
        a64 = np.asarray(a, np.int64)
        b64 = np.where(zero, 1, b).astype(np.int64)
        q = np.trunc(a64 / b64).astype(np.int64)
        return zero, a64, b64, q

    def div(a, b):
        zero, _, _, q = quotient(a, b)
        return (np.where(zero, -1, q).astype(dt),)

    def rem(a, b):
        zero, a64, b64, q = quotient(a, b)
        return (np.where(zero, a64, a64 - q * b64).astype(dt),)
    return div, rem


# ----------------------------------------------------------------------------- builders

def build_add_sub(inst, sign: int):
    mods = plain_int_mods(inst, {"sat", "cc"})
    if "cc" in mods:
        return carry_ops.build_add_sub(inst, sign < 0, reads=False)
    t = the_type(inst, INT_TYPES, SUP)
    if "sat" in mods:
        if t != "s32":
            raise unsupported(inst, f".sat with .{t}", ".sat only with .s32")
        if sign > 0:
            core = lambda a, b: (np.clip(a.astype(np.int64) + b, *_I32).astype(np.int32),)
        else:
            core = lambda a, b: (np.clip(a.astype(np.int64) - b, *_I32).astype(np.int32),)
    else:
        core = (lambda a, b: (a + b,)) if sign > 0 else (lambda a, b: (a - b,))
    return _op(inst, t, core, 2)


def plain_int_mods(inst, allowed):
    return check_mods(inst, allowed, "modifiers " + " ".join("." + m for m in sorted(allowed)))


def build_mul(inst):
    mods = plain_int_mods(inst, {"hi", "lo", "wide", "cc"})
    _reject_carry(inst, mods)
    t = the_type(inst, INT_TYPES, SUP)
    part = one_of(inst, mods, ("hi", "lo", "wide"), "lo", ".hi .lo .wide")
    if part == "lo":
        return _op(inst, t, lambda a, b: (a * b,), 2)
    if part == "hi":
        hi = _mulhi(t)
        return _op(inst, t, lambda a, b: (hi(a, b),), 2)
    if width(t) == 64:
        raise unsupported(inst, "mul.wide with a 64-bit type", "mul.wide.{u16,u32,s16,s32}")
    wt = _wide(t)
    wdt = DTYPE[wt]
    return _op(inst, t, lambda a, b: (a.astype(wdt) * b.astype(wdt),), 2, dst_type=wt)


def build_mad(inst):
    mods = plain_int_mods(inst, {"hi", "lo", "wide", "sat", "cc"})
    if "cc" in mods:
        return carry_ops.build_mad(inst, reads=False)
    t = the_type(inst, INT_TYPES, SUP)
    part = one_of(inst, mods, ("hi", "lo", "wide"), "lo", ".hi .lo .wide")
    if "sat" in mods and not (part == "hi" and t == "s32"):
        raise unsupported(inst, ".sat", ".sat only in mad.hi.sat.s32")
    if part == "lo":
        return _op(inst, t, lambda a, b, c: (a * b + c,), 3)
    if part == "hi":
        hi = _mulhi(t)
        if "sat" in mods:
            core = lambda a, b, c: (np.clip(hi(a, b).astype(np.int64) + c, *_I32).astype(np.int32),)
        else:
            core = lambda a, b, c: (hi(a, b) + c,)
        return _op(inst, t, core, 3)
    if width(t) == 64:
        raise unsupported(inst, "mad.wide with a 64-bit type", "mad.wide.{u16,u32,s16,s32}")
    wt = _wide(t)
    wdt = DTYPE[wt]
    return _op(inst, t, lambda a, b, c: (a.astype(wdt) * b.astype(wdt) + c,), 3,
               src_types=(t, t, wt), dst_type=wt)


def _mul24(t, part):
    """24 x 24 -> 48-bit product of the low 24 bits (sign-extended for .s32); ``.lo`` keeps
    bits 31..0, ``.hi`` bits 47..16."""
    if t == "s32":
        def prod(a, b):
            return ((a << 8) >> 8).astype(np.int64) * ((b << 8) >> 8)
        out = np.int32
    else:
        def prod(a, b):
            return (a & 0xFFFFFF).astype(np.uint64) * (b & 0xFFFFFF)
        out = np.uint32
    if part == "lo":
        return lambda a, b: prod(a, b).astype(out)
    return lambda a, b: (prod(a, b) >> 16).astype(out)


def build_mul24(inst):
    mods = plain_int_mods(inst, {"hi", "lo"})
    t = the_type(inst, ("u32", "s32"), "types .u32 .s32")
    m = _mul24(t, one_of(inst, mods, ("hi", "lo"), "lo", ".hi .lo"))
    return _op(inst, t, lambda a, b: (m(a, b),), 2)


def build_mad24(inst):
    mods = plain_int_mods(inst, {"hi", "lo", "sat"})
    t = the_type(inst, ("u32", "s32"), "types .u32 .s32")
    part = one_of(inst, mods, ("hi", "lo"), "lo", ".hi .lo")
    m = _mul24(t, part)
    if "sat" in mods:
        if not (part == "hi" and t == "s32"):
            raise unsupported(inst, ".sat", ".sat only in mad24.hi.sat.s32")
        core = lambda a, b, c: (np.clip(m(a, b).astype(np.int64) + c, *_I32).astype(np.int32),)
    else:
        core = lambda a, b, c: (m(a, b) + c,)
    return _op(inst, t, core, 3)


def build_div(inst):
    plain_int_mods(inst, set())
    t = the_type(inst, INT_TYPES, SUP)
    return _op(inst, t, _divider(t)[0], 2, warns=True)


def build_rem(inst):
    plain_int_mods(inst, set())
    t = the_type(inst, INT_TYPES, SUP)
    return _op(inst, t, _divider(t)[1], 2, warns=True)


def build_abs(inst):
    plain_int_mods(inst, set())
    t = the_type(inst, ("s16", "s32", "s64"), "types .s16 .s32 .s64")
    return _op(inst, t, lambda a: (np.abs(a),), 1)  # abs(INT_MIN) wraps to INT_MIN


def build_neg(inst):
    plain_int_mods(inst, set())
    t = the_type(inst, ("s16", "s32", "s64"), "types .s16 .s32 .s64")
    return _op(inst, t, lambda a: (-a,), 1)


def build_min_max(inst, is_max: bool):
    plain_int_mods(inst, set())
    t = the_type(inst, INT_TYPES, SUP)
    f = np.maximum if is_max else np.minimum
    return _op(inst, t, lambda a, b: (f(a, b),), 2)


def build_sad(inst):
    """``sad``: d = c + |a - b| (the difference taken in the type's signedness)."""
    plain_int_mods(inst, set())
    t = the_type(inst, INT_TYPES, SUP)
    return _op(inst, t, lambda a, b, c: (c + np.where(a > b, a - b, b - a),), 3)


def _bytes_of(x, signed: bool, n: int, size: int):
    """Lanes' ``n`` packed fields of ``size`` bits (from bit 0) as int64, sign-extended
    when ``signed``."""
    x = x.astype(np.int64) & 0xFFFFFFFF
    mask, half = (1 << size) - 1, 1 << (size - 1)
    out = []
    for i in range(n):
        v = (x >> (size * i)) & mask
        out.append((v ^ half) - half if signed else v)
    return out


def _dot_types(inst):
    if len(inst.types) != 2 or any(t not in ("u32", "s32") for t in inst.types):
        raise unsupported(inst, "types", "two types out of .u32 .s32 (atype, btype)")
    at, bt = inst.types
    ct = "u32" if at == bt == "u32" else "s32"
    return at, bt, ct


def build_dp4a(inst):
    """``dp4a.atype.btype d, a, b, c``: d = c + sum of the four byte products."""
    plain_int_mods(inst, set())
    at, bt, ct = _dot_types(inst)
    dt = DTYPE[ct]

    def core(a, b, c):
        va = _bytes_of(a, at == "s32", 4, 8)
        vb = _bytes_of(b, bt == "s32", 4, 8)
        acc = c.astype(np.int64)
        for x, y in zip(va, vb):
            acc = acc + x * y
        return (acc.astype(dt),)
    return _op(inst, ct, core, 3, src_types=("u32", "u32", ct))


def build_dp2a(inst):
    """``dp2a.{lo,hi}.atype.btype d, a, b, c``: two 16-bit halves of a times two bytes of b."""
    mods = plain_int_mods(inst, {"lo", "hi"})
    part = one_of(inst, mods, ("lo", "hi"), None, ".lo .hi")
    if part is None:
        raise unsupported(inst, "missing .lo/.hi", "dp2a.lo / dp2a.hi")
    at, bt, ct = _dot_types(inst)
    dt = DTYPE[ct]
    first = 0 if part == "lo" else 2

    def core(a, b, c):
        va = _bytes_of(a, at == "s32", 2, 16)
        vb = _bytes_of(b, bt == "s32", 4, 8)
        acc = c.astype(np.int64) + va[0] * vb[first] + va[1] * vb[first + 1]
        return (acc.astype(dt),)
    return _op(inst, ct, core, 3, src_types=("u32", "u32", ct))


BUILDERS = {
    "add": lambda i: build_add_sub(i, 1),
    "sub": lambda i: build_add_sub(i, -1),
    "mul": build_mul,
    "mad": build_mad,
    "mul24": build_mul24,
    "mad24": build_mad24,
    "div": build_div,
    "rem": build_rem,
    "abs": build_abs,
    "neg": build_neg,
    "min": lambda i: build_min_max(i, False),
    "max": lambda i: build_min_max(i, True),
    "sad": build_sad,
    "dp4a": build_dp4a,
    "dp2a": build_dp2a,
}

