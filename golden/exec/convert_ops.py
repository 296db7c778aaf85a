"""Conversions and moves: ``cvt`` and ``mov`` (registers, immediates, vector pack/unpack).

``cvt{.irnd|.frnd}{.ftz}{.sat}.dtype.atype d, a`` (PTX ISA, "cvt"):

* integer -> integer: sign-extend (``.s`` source) or zero-extend (``.u``/``.b`` source),
  or keep the low bits when narrowing; ``.sat`` clamps to the destination range.
* float -> integer: ``.rni .rzi .rmi .rpi`` round to an integer (``.rzi`` when no mode is
  given, as C casts do); the result is always clamped to the destination range
  (saturation is implicit); NaN converts to 0.
* integer -> float: ``.rn .rz .rm .rp`` (``.rn`` by default), correctly rounded also for
  64-bit integers.
* float -> float: widening is exact; narrowing rounds with ``.rn .rz .rm .rp`` (``.rn``
  by default); ``.rni .rzi .rmi .rpi`` round to an integral value in floating point.
* ``.ftz`` flushes f32 subnormal inputs and results to sign-preserving zero; ``.sat``
  with a float destination clamps to [0.0, 1.0] (NaN -> +0.0).

Supported types: ``.u8 .u16 .u32 .u64 .s8 .s16 .s32 .s64 .f16 .f32 .f64`` (``.bf16``,
``.tf32``, fp8 and packed forms, ``.relu`` and ``.satfinite`` are not modelled).

``mov.type d, a`` copies a register or an immediate; ``mov.b64 d, {a, b}`` packs (the first
element is the low half), ``mov.b64 {a, b}, d`` unpacks. ``mov`` of a special register or a
symbol's address is executed by the SIMT core, not here.
"""

from __future__ import annotations

import numpy as np

from golden.errors import PTXError
from golden.exec import fp
from golden.exec.compiled import check_mods, dest_regs, make_op, one_of, split_operands, the_type, unsupported
from golden.exec.types import DTYPE, UINT, is_float, width
from golden.ptx.ir import Addr, SpecialReg, Sym, Vec

CVT_TYPES = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "f32", "f64")
IRND = ("rni", "rzi", "rmi", "rpi")
FRND = fp.ROUNDING
_SUP_CVT = "cvt{.rni|.rzi|.rmi|.rpi|.rn|.rz|.rm|.rp}{.ftz}{.sat}.dtype.atype with types " + \
           " ".join("." + t for t in CVT_TYPES)
_ROUND_INT = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}


def int_range(t: str) -> tuple[int, int]:
    w = width(t)
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t[0] == "s" else (0, (1 << w) - 1)


def _int_to_int(dtype, atype, sat):
    dt, adt = DTYPE[dtype], DTYPE[atype]
    if not sat:
        return lambda a: a.astype(dt)
    (dlo, dhi), (alo, ahi) = int_range(dtype), int_range(atype)
    lo, hi = adt.type(max(dlo, alo)), adt.type(min(dhi, ahi))
    return lambda a: np.clip(a, lo, hi).astype(dt)


def _float_to_int(dtype, irnd, ftz):
    dt = DTYPE[dtype]
    lo, hi = int_range(dtype)
    lo_f, over_f = float(lo), float(hi + 1)  # powers of two: exact in float64
    lo_v, hi_v = dt.type(lo), dt.type(hi)
    rnd = _ROUND_INT[irnd]

    def conv(a):
        if ftz:
            a = fp.ftz(a)
        r = rnd(np.asarray(a, np.float64))
        inside = (r >= lo_f) & (r < over_f)  # False for NaN
        if inside.all():
            return r.astype(dt)
        over, under = r >= over_f, r < lo_f
        bad = over | under | np.isnan(r)
        out = np.where(bad, 0.0, r).astype(dt)
        return np.where(over, hi_v, np.where(under, lo_v, out))
    return conv


def _int_to_float(dtype, atype, frnd):
    fdt = DTYPE[dtype]
    if width(atype) <= 32:
        if dtype == "f64":
            return lambda a: np.asarray(a, np.float64)  # exact
        return lambda a: fp.round_pair(np.asarray(a, np.float64), None, frnd, fdt)
    shift = float(1 << 32)

    def conv(a):
        a = np.asarray(a)
        hi = (a >> 32).astype(np.float64) * shift  # arithmetic shift for .s64
        lo = (a & 0xFFFFFFFF).astype(np.float64)
        s, e = fp.two_sum(hi, lo)  # s + e == a exactly
        if dtype == "f64":
            return s if frnd == "rn" else fp.directed(s, e > 0, e < 0, frnd)
        return fp.round_pair(s, e, frnd, fdt)
    return conv


def _float_to_float(dtype, atype, irnd, frnd, ftz_in):
    dt = DTYPE[dtype]

    def conv(a):
        if ftz_in:
            a = fp.ftz(a)
        if irnd is not None:
            x = _ROUND_INT[irnd](np.asarray(a, np.float64))  # exact in float64
            return x.astype(dt) if dtype == "f64" else fp.round_pair(x, None, "rn", dt)
        if width(dtype) >= width(atype):
            return np.asarray(a).astype(dt)  # exact (and a copy)
        return fp.round_pair(np.asarray(a, np.float64), None, frnd, dt)
    return conv


def build_cvt(inst):
    mods = check_mods(inst, set(IRND) | set(FRND) | {"ftz", "sat"}, _SUP_CVT)
    if len(inst.types) != 2:
        raise unsupported(inst, "type suffixes", _SUP_CVT)
    dtype = the_type(inst, CVT_TYPES, _SUP_CVT, index=0)
    atype = the_type(inst, CVT_TYPES, _SUP_CVT, index=1)
    rnd = one_of(inst, mods, IRND + FRND, None, _SUP_CVT)
    irnd = rnd if rnd in IRND else None
    frnd = rnd if rnd in FRND else None
    ftz, sat = "ftz" in mods, "sat" in mods
    fd, fa = is_float(dtype), is_float(atype)
    if ftz and "f32" not in (dtype, atype):
        raise unsupported(inst, ".ftz without an .f32 operand", ".ftz with .f32 source or destination")
    if not fd and not fa:
        if rnd is not None or ftz:
            raise unsupported(inst, "rounding/.ftz in an integer-to-integer cvt", _SUP_CVT)
        conv = _int_to_int(dtype, atype, sat)
        warns = False
    elif not fd:
        if frnd is not None:
            raise unsupported(inst, f".{frnd} in a float-to-integer cvt", "cvt.{rni,rzi,rmi,rpi}")
        conv = _float_to_int(dtype, irnd or "rzi", ftz and atype == "f32")
        warns = True
    elif not fa:
        if irnd is not None:
            raise unsupported(inst, f".{irnd} in an integer-to-float cvt", "cvt.{rn,rz,rm,rp}")
        conv = _int_to_float(dtype, atype, frnd or "rn")
        warns = True
    else:
        conv = _float_to_float(dtype, atype, irnd, frnd or "rn", ftz and atype == "f32")
        warns = True
    if fd and (sat or (ftz and dtype == "f32")):
        inner = conv

        def conv(a):
            r = inner(a)
            if sat:
                r = fp.saturate(r)
            return fp.ftz(r) if ftz and dtype == "f32" else r
    (d,), srcs = split_operands(inst, 1, 1)
    return make_op(inst, dest_regs(inst, d), (dtype,), srcs, (atype,),
                   lambda a: (conv(a),), warns=warns)


# ----------------------------------------------------------------------------- mov

MOV_TYPES = tuple(DTYPE)


def build_mov(inst):
    check_mods(inst, set(), "mov.type d, a")
    t = the_type(inst, MOV_TYPES, "types " + " ".join("." + x for x in MOV_TYPES))
    (d,), (s,) = split_operands(inst, 1, 1)
    if isinstance(s, (SpecialReg, Sym, Addr)):
        raise PTXError("mov of a special register or symbol address is executed by the SIMT "
                       "core, not by golden.exec.compile_op", loc=inst.loc, text=inst.text)
    w = width(t)
    if isinstance(d, Vec) or isinstance(s, Vec):
        if isinstance(d, Vec) and isinstance(s, Vec):
            raise unsupported(inst, "vector to vector mov", "mov.bN d, {a, b...} / mov.bN {a, b...}, d")
        if t in ("pred", "f16"):
            raise unsupported(inst, f"vector mov of .{t}", "mov.b32/.b64 with vectors")
        n = len((d if isinstance(d, Vec) else s).elems)
        if n < 2 or w % n or w // n < 8:
            raise unsupported(inst, f"vector of {n} elements", "2 or 4 elements of 8/16/32 bits")
        ew = w // n
        edt, wdt = UINT[ew // 8], UINT[w // 8]
        et, bt = f"b{ew}", f"b{w}"
        if isinstance(d, Vec):  # unpack: element i is bits [ew*i, ew*(i+1))
            mask = wdt.type((1 << ew) - 1)

            def core(x):
                return tuple(((x >> wdt.type(ew * i)) & mask).astype(edt) for i in range(n))
            return make_op(inst, dest_regs(inst, d), (et,) * n, (s,), (bt,), core, warns=False)

        def pack(*xs):
            out = xs[0].astype(wdt)
            for i in range(1, n):
                out = out | (xs[i].astype(wdt) << wdt.type(ew * i))
            return (out,)
        return make_op(inst, dest_regs(inst, d), (bt,), s.elems, (et,) * n, pack, warns=False)
    return make_op(inst, dest_regs(inst, d), (t,), (s,), (t,),
                   lambda a: (np.array(a, copy=True),), warns=False)


BUILDERS = {"cvt": build_cvt, "mov": build_mov}
