"""Compare and select: ``setp set selp slct testp``.

``setp.CmpOp{.BoolOp}{.ftz}.type p[|q], a, b{, {!}c}`` computes ``t = a CmpOp b`` and
writes ``p = t BoolOp c``, ``q = !t BoolOp c`` (without a BoolOp: ``p = t``, ``q = !t``).
Integer comparisons use the type's signedness (``.b`` types compare unsigned);
``lo ls hi hs`` always compare unsigned. Floating-point ``eq ne lt le gt ge`` are
*ordered* (false when either input is NaN); ``equ neu ltu leu gtu geu`` are *unordered*
(true when either is NaN); ``num`` is true when neither is NaN, ``nan`` when either is.

``set`` writes 0xffffffff (``.u32``), -1 (``.s32``) or 1.0f (``.f32``) for true and 0 for
false. ``selp.type d, a, b, c`` is ``c ? a : b``; ``slct.dtype.ctype d, a, b, c`` is
``c >= 0 ? a : b``; ``testp.op.type p, a`` classifies a float.

Comparisons never raise numpy floating-point warnings (NaN compares quietly), so these
functions run without an ``np.errstate`` guard. A negated predicate source ``!%p`` reaches :func:`golden.exec.compiled.make_op` as a
``PredGuard(reg, negated=True)`` operand.
"""

from __future__ import annotations

import numpy as np

from golden.exec import fp
from golden.exec.compiled import check_mods, dest_regs, make_op, one_of, split_operands, the_type, unsupported
from golden.exec.types import DTYPE, is_float, unsigned_of

_INT_CMP = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
    "lo": np.less, "ls": np.less_equal, "hi": np.greater, "hs": np.greater_equal,
}
_UNSIGNED_CMP = ("lo", "ls", "hi", "hs")
_FLOAT_CMP = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: (a < b) | (a > b),
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "equ": lambda a, b: ~((a < b) | (a > b)),
    "neu": lambda a, b: a != b,
    "ltu": lambda a, b: ~(a >= b),
    "leu": lambda a, b: ~(a > b),
    "gtu": lambda a, b: ~(a <= b),
    "geu": lambda a, b: ~(a < b),
    "num": lambda a, b: (a == a) & (b == b),
    "nan": lambda a, b: (a != a) | (b != b),
}
_BOOL = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}
CMP_TYPES = ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64")
_SUP_CMP = "CmpOp in eq ne lt le gt ge lo ls hi hs (integers) / eq ne lt le gt ge equ neu " \
           "ltu leu gtu geu num nan (floats); BoolOp in and or xor; types " + \
           " ".join("." + t for t in CMP_TYPES)


def _comparison(inst, t: str, mods):
    """``(compare function, source type, ftz)`` for setp/set."""
    cmp = one_of(inst, mods, tuple(set(_INT_CMP) | set(_FLOAT_CMP)), None, _SUP_CMP)
    if cmp is None:
        raise unsupported(inst, "missing comparison operator", _SUP_CMP)
    ftz = "ftz" in mods
    if is_float(t):
        if cmp not in _FLOAT_CMP:
            raise unsupported(inst, f"comparison .{cmp} on .{t}", _SUP_CMP)
        f = _FLOAT_CMP[cmp]
        if ftz:
            if t != "f32":
                raise unsupported(inst, ".ftz with .f64", ".ftz only with .f32")
            g = f
            f = lambda a, b: g(fp.ftz(a), fp.ftz(b))
        return f, t
    if cmp not in _INT_CMP or ftz:
        raise unsupported(inst, f"comparison .{cmp}{'.ftz' if ftz else ''} on .{t}", _SUP_CMP)
    src_t = unsigned_of(t) if (cmp in _UNSIGNED_CMP or t[0] == "b") else t
    return _INT_CMP[cmp], src_t


def build_setp(inst):
    mods = check_mods(inst, set(_INT_CMP) | set(_FLOAT_CMP) | set(_BOOL) | {"ftz"}, _SUP_CMP)
    t = the_type(inst, CMP_TYPES, _SUP_CMP)
    f, src_t = _comparison(inst, t, mods)
    boolop = one_of(inst, mods, tuple(_BOOL), None, ".and .or .xor")
    if not inst.operands:
        raise unsupported(inst, "missing operands", "setp p[|q], a, b{, c}")
    dsts = dest_regs(inst, inst.operands[0])
    if len(dsts) not in (1, 2):
        raise unsupported(inst, "destination list", "setp p, ... or setp p|q, ...")
    _, srcs = split_operands(inst, 1, 3 if boolop else 2)
    two = len(dsts) == 2
    if boolop is None:
        if two:
            def core(a, b):
                r = f(a, b)
                return r, ~r
        else:
            def core(a, b):
                return (f(a, b),)
        src_types = (src_t, src_t)
    else:
        g = _BOOL[boolop]
        if two:
            def core(a, b, c):
                r = f(a, b)
                return g(r, c), g(~r, c)
        else:
            def core(a, b, c):
                return (g(f(a, b), c),)
        src_types = (src_t, src_t, "pred")
    return make_op(inst, dsts, ("pred",) * len(dsts), srcs, src_types, core, warns=False)


def build_set(inst):
    mods = check_mods(inst, set(_INT_CMP) | set(_FLOAT_CMP) | set(_BOOL) | {"ftz"}, _SUP_CMP)
    if len(inst.types) != 2:
        raise unsupported(inst, "type suffixes", "set.CmpOp{.BoolOp}{.ftz}.dtype.stype")
    dt_name = the_type(inst, ("u32", "s32", "f32"), "dtype .u32 .s32 .f32", index=0)
    st = the_type(inst, CMP_TYPES, _SUP_CMP, index=1)
    f, src_t = _comparison(inst, st, mods)
    boolop = one_of(inst, mods, tuple(_BOOL), None, ".and .or .xor")
    dt = DTYPE[dt_name]
    true = dt.type(1.0) if dt_name == "f32" else dt.type(-1 & 0xFFFFFFFF) if dt_name == "u32" else dt.type(-1)
    false = dt.type(0)
    (d,), srcs = split_operands(inst, 1, 3 if boolop else 2)
    if boolop is None:
        core = lambda a, b: (np.where(f(a, b), true, false),)
        src_types = (src_t, src_t)
    else:
        g = _BOOL[boolop]
        core = lambda a, b, c: (np.where(g(f(a, b), c), true, false),)
        src_types = (src_t, src_t, "pred")
    return make_op(inst, dest_regs(inst, d), (dt_name,), srcs, src_types, core, warns=False)


def build_selp(inst):
    check_mods(inst, set(), "selp.type d, a, b, c")
    t = the_type(inst, CMP_TYPES, "types " + " ".join("." + x for x in CMP_TYPES))
    (d,), srcs = split_operands(inst, 1, 3)
    return make_op(inst, dest_regs(inst, d), (t,), srcs, (t, t, "pred"),
                   lambda a, b, c: (np.where(c, a, b),), warns=False)


def build_slct(inst):
    mods = check_mods(inst, {"ftz"}, "slct{.ftz}.dtype.{s32,f32}")
    if len(inst.types) != 2:
        raise unsupported(inst, "type suffixes", "slct.dtype.s32 / slct{.ftz}.dtype.f32")
    t = the_type(inst, CMP_TYPES, "dtype " + " ".join("." + x for x in CMP_TYPES), index=0)
    ct = the_type(inst, ("s32", "f32"), "ctype .s32 .f32", index=1)
    (d,), srcs = split_operands(inst, 1, 3)
    if "ftz" in mods:
        if ct != "f32":
            raise unsupported(inst, ".ftz with .s32", "slct.ftz.dtype.f32")
        core = lambda a, b, c: (np.where(fp.ftz(c) >= 0, a, b),)
    else:
        core = lambda a, b, c: (np.where(c >= 0, a, b),)
    return make_op(inst, dest_regs(inst, d), (t,), srcs, (t, t, ct), core, warns=False)


_TESTP = {
    "finite": lambda a: np.isfinite(a),
    "infinite": lambda a: np.isinf(a),
    "number": lambda a: ~np.isnan(a),
    "notanumber": lambda a: np.isnan(a),
    "normal": lambda a: np.isfinite(a) & (np.abs(a) >= np.finfo(a.dtype).tiny),
    "subnormal": lambda a: (a != 0) & (np.abs(a) < np.finfo(a.dtype).tiny),
}


def build_testp(inst):
    mods = check_mods(inst, set(_TESTP), "testp.{" + ",".join(_TESTP) + "}.{f32,f64}")
    t = the_type(inst, ("f32", "f64"), "types .f32 .f64")
    op = one_of(inst, mods, tuple(_TESTP), None, " ".join("." + m for m in _TESTP))
    if op is None:
        raise unsupported(inst, "missing test", " ".join("." + m for m in _TESTP))
    g = _TESTP[op]
    (d,), srcs = split_operands(inst, 1, 1)
    return make_op(inst, dest_regs(inst, d), ("pred",), srcs, (t,),
                   lambda a: (np.asarray(g(a), dtype=bool),), warns=False)


BUILDERS = {
    "setp": build_setp,
    "set": build_set,
    "selp": build_selp,
    "slct": build_slct,
    "testp": build_testp,
}
