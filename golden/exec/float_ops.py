"""Floating-point arithmetic and special functions on ``.f32`` / ``.f64`` lanes.

Accuracy guaranteed by this model (``ulp`` of the destination format, versus the exact
mathematical result):

=====================================================  ==============  =========================
instructions                                           this model      PTX ISA allows
=====================================================  ==============  =========================
``add sub mul fma mad`` f32/f64, every ``.rn .rz .rm    0.5 ulp          correctly rounded
.rp`` (f32 ``mul``/``add`` without a mode: ``.rn``)     (exact IEEE)
``div.rn sqrt.rn rcp.rn`` f32/f64 and their ``.rz .rm   exact IEEE       correctly rounded
.rp`` forms
``div.full.f32``                                       0.5 ulp          2 ulp
``div.approx.f32``                                     0.5 ulp          2 ulp (|b| in 2**+-126)
``rcp.approx.f32``                                     0.5 ulp          1 ulp
``sqrt.approx.f32``                                    0.5 ulp          2**-23 relative
``rsqrt.approx.f32``                                   <= 1 ulp         2**-22.9 relative
``rsqrt.approx.f64``                                   <= 2 ulp         none given (software)
``rcp/rsqrt.approx.ftz.f64``                           1.5 * 2**-20     upper-word "gross
                                                       relative         approximation" (below)
``sin.approx cos.approx .f32``                         <= 1 ulp         2**-20.5 abs in
                                                                        [-2pi, 2pi], 2**-14.7
                                                                        in [-100pi, 100pi]
``ex2.approx.f32``                                     <= 1 ulp         2 ulp
``lg2.approx.f32``                                     <= 1 ulp         2**-22 abs in (0.5, 2),
                                                                        else 2**-22 relative
``tanh.approx.f32``                                    <= 1 ulp         2**-11 relative
=====================================================  ==============  =========================

``rcp.approx.ftz.f64`` and ``rsqrt.approx.ftz.f64`` follow the bit-level description of
the PTX ISA: they read only the upper 32 bits of the input, return a result whose low
32 bits are zero (the upper word is rounded to nearest here), flush subnormals, and
return the canonical NaN 0x7fffffff00000000 for NaN.

The approximate functions are evaluated in float64 with numpy's libm and rounded once
to float32, so the model is *more* accurate than a GPU: its values can differ from a
real GPU's in the last bits, always within the PTX bound. Tests check the bounds in
the "this model" column.

Other rules (PTX ISA, "Floating-Point Instructions"):

* ``.ftz`` flushes subnormal f32 inputs and results to sign-preserving zero; without it
  subnormals are kept (sm_20+). ``rcp/rsqrt.approx.ftz.f64`` flush f64 subnormals.
* ``.sat`` clamps the result to [0.0, 1.0]; NaN becomes +0.0.
* ``add``/``mul`` without a rounding modifier are computed unfused; on a GPU ptxas may
  contract such a pair into an FMA (PTX allows it), which can change the last bit.
* ``min``/``max``: if one input is NaN the other is returned; ``-0.0 < +0.0``;
  ``.NaN`` returns the canonical NaN (0x7fffffff) when an input is NaN.
* ``abs``/``neg`` only change the sign bit (NaN payloads are kept).
* ``copysign d, a, b``: magnitude of ``b``, sign of ``a``.
* NaN results carry numpy's quiet NaN (0x7fc00000 / 0x7ff8000000000000) or the input's
  payload rather than the GPU's canonical 0x7fffffff; no test or statistic depends on
  NaN bit patterns.

f16/bf16 arithmetic (``add.f16``, ``fma.rn.f16x2`` ...) is not modelled; ``cvt`` to and
from ``.f16`` is (see :mod:`golden.exec.convert_ops`).
"""

from __future__ import annotations

import numpy as np

from golden.exec import fp
from golden.exec.compiled import check_mods, dest_regs, make_op, one_of, split_operands, the_type, unsupported

FLOAT_TYPES = ("f32", "f64")
_RND = fp.ROUNDING
_CANON_NAN32 = np.uint32(0x7FFFFFFF).view(np.float32)
_CANON_NAN64 = np.uint64(0x7FFFFFFFFFFFFFFF).view(np.float64)


def _mods(inst, allowed):
    return check_mods(inst, set(allowed),
                      "modifiers " + " ".join("." + m for m in allowed) + " (f16 arithmetic is not modelled)")


def _type(inst):
    return the_type(inst, FLOAT_TYPES, "types .f32 .f64 (f16/bf16 arithmetic is not modelled)")


def _decorate(core, n: int, ftz: bool, sat: bool):
    """Wrap ``core`` (returning one array) with ``.ftz`` input/output flushing and ``.sat``."""
    if not ftz and not sat:
        return lambda *s: (core(*s),)

    def post(r):
        if sat:
            r = fp.saturate(r)
        return fp.ftz(r) if ftz else r
    if not ftz:
        return lambda *s: (post(core(*s)),)
    if n == 1:
        return lambda a: (post(core(fp.ftz(a))),)
    if n == 2:
        return lambda a, b: (post(core(fp.ftz(a), fp.ftz(b))),)
    return lambda a, b, c: (post(core(fp.ftz(a), fp.ftz(b), fp.ftz(c))),)


def _op(inst, t, core, n_src, ftz=False, sat=False, warns=True):
    """``warns=False`` for sign/compare-only operations, which never raise numpy
    floating-point warnings (so ``fn`` can skip the errstate guard)."""
    (d,), srcs = split_operands(inst, 1, n_src)
    return make_op(inst, dest_regs(inst, d), (t,), srcs, (t,) * n_src,
                   _decorate(core, n_src, ftz, sat), warns=warns)


def _f32_only(inst, t, mods, which):
    for m in which:
        if m in mods and t != "f32":
            raise unsupported(inst, f".{m} with .{t}", f".{m} only with .f32")


# ----------------------------------------------------------------------------- + - * fma

def build_add_sub_mul(inst, kind: str):
    t = _type(inst)
    mods = _mods(inst, _RND + ("ftz", "sat"))
    _f32_only(inst, t, mods, ("ftz", "sat"))
    mode = one_of(inst, mods, _RND, "rn", ".rn .rz .rm .rp")
    if t == "f32":
        add, mul = fp.add_f32, fp.mul_f32
    else:
        add, mul = fp.add_f64, fp.mul_f64
    if mode == "rn":  # numpy is IEEE round-to-nearest-even: use the operators directly
        core = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
                "mul": lambda a, b: a * b}[kind]
    elif kind == "add":
        core = lambda a, b: add(a, b, mode)
    elif kind == "sub":
        core = lambda a, b: add(a, -b, mode)
    else:
        core = lambda a, b: mul(a, b, mode)
    return _op(inst, t, core, 2, "ftz" in mods, "sat" in mods)


def build_fma(inst):
    """``fma`` and floating-point ``mad`` (``mad.f32`` without a rounding mode is treated
    as ``mad.rn.f32``, which is what it means on sm_20+)."""
    t = _type(inst)
    mods = _mods(inst, _RND + ("ftz", "sat"))
    _f32_only(inst, t, mods, ("ftz", "sat"))
    mode = one_of(inst, mods, _RND, "rn", ".rn .rz .rm .rp")
    f = fp.fma_f32 if t == "f32" else fp.fma_f64
    return _op(inst, t, lambda a, b, c: f(a, b, c, mode), 3, "ftz" in mods, "sat" in mods)


# ----------------------------------------------------------------------------- div rcp sqrt

def build_div(inst):
    t = _type(inst)
    mods = _mods(inst, _RND + ("approx", "full", "ftz"))
    _f32_only(inst, t, mods, ("ftz", "approx", "full"))
    mode = one_of(inst, mods, _RND + ("approx", "full"), "rn", ".rn .rz .rm .rp .approx .full")
    mode = "rn" if mode in ("approx", "full") else mode
    f = fp.div_f32 if t == "f32" else fp.div_f64
    core = (lambda a, b: a / b) if mode == "rn" else (lambda a, b: f(a, b, mode))
    return _op(inst, t, core, 2, "ftz" in mods)


_HI_WORD = np.uint64(0xFFFFFFFF00000000)
_HALF_LO = np.uint64(0x80000000)
_CANON_NAN_HI = np.uint64(0x7FFFFFFF00000000).view(np.float64)


def upper_word_approx(g):
    """``rcp/rsqrt.approx.ftz.f64`` (PTX ISA 9.7.3.14/17): only the upper 32 bits of the
    input (1.11.20 format) are used, subnormal inputs/results flush to sign-preserving
    zero, the result keeps 32 significant bits (rounded to nearest here; the low 32 bits
    are zero) and NaN inputs give the canonical NaN 0x7fffffff00000000."""
    def core(a):
        a = np.asarray(a, np.float64)
        x = fp.ftz((a.view(np.uint64) & _HI_WORD).view(np.float64))
        r = fp.ftz(g(x))
        bits = (r.view(np.uint64) + _HALF_LO) & _HI_WORD
        r = np.where(np.isinf(r), r, bits.view(np.float64))
        return np.where(np.isnan(r), _CANON_NAN_HI, r)
    return core


def build_rcp(inst):
    t = _type(inst)
    mods = _mods(inst, _RND + ("approx", "ftz"))
    if t == "f64" and "ftz" in mods and "approx" not in mods:
        raise unsupported(inst, ".ftz with .f64", "rcp.approx.ftz.f64, rcp.{rn,rz,rm,rp}.f64")
    if t == "f64" and "approx" in mods:
        if "ftz" not in mods:
            raise unsupported(inst, "rcp.approx.f64 without .ftz", "rcp.approx.ftz.f64")
        return _op(inst, t, upper_word_approx(lambda x: 1.0 / x), 1)
    mode = one_of(inst, mods, _RND + ("approx",), "rn", ".rn .rz .rm .rp .approx")
    mode = "rn" if mode == "approx" else mode
    one = np.dtype("float32" if t == "f32" else "float64").type(1)
    f = fp.div_f32 if t == "f32" else fp.div_f64
    core = (lambda a: one / a) if mode == "rn" else (lambda a: f(one, a, mode))
    return _op(inst, t, core, 1, "ftz" in mods)


def build_sqrt(inst):
    t = _type(inst)
    mods = _mods(inst, _RND + ("approx", "ftz"))
    _f32_only(inst, t, mods, ("ftz", "approx"))
    mode = one_of(inst, mods, _RND + ("approx",), "rn", ".rn .rz .rm .rp .approx")
    mode = "rn" if mode == "approx" else mode
    f = fp.sqrt_f32 if t == "f32" else fp.sqrt_f64
    return _op(inst, t, (lambda a: np.sqrt(a)) if mode == "rn" else (lambda a: f(a, mode)),
               1, "ftz" in mods)


def build_rsqrt(inst):
    t = _type(inst)
    mods = _mods(inst, ("approx", "ftz"))
    if "approx" not in mods:
        raise unsupported(inst, "rsqrt without .approx", "rsqrt.approx{.ftz}.{f32,f64}")
    if t == "f32":
        core = lambda a: (1.0 / np.sqrt(np.asarray(a, np.float64))).astype(np.float32)
    elif "ftz" in mods:
        return _op(inst, t, upper_word_approx(lambda x: 1.0 / np.sqrt(x)), 1)
    else:
        core = lambda a: 1.0 / np.sqrt(a)
    return _op(inst, t, core, 1, "ftz" in mods)


_SFU = {"sin": np.sin, "cos": np.cos, "ex2": np.exp2, "lg2": np.log2, "tanh": np.tanh}


def build_sfu(inst):
    """``sin cos ex2 lg2 tanh .approx{.ftz}.f32``: float64 libm, rounded once to f32."""
    t = the_type(inst, ("f32",), f"{inst.opcode}.approx{{.ftz}}.f32 (f16 forms are not modelled)")
    mods = _mods(inst, ("approx", "ftz"))
    if "approx" not in mods:
        raise unsupported(inst, f"{inst.opcode} without .approx", f"{inst.opcode}.approx{{.ftz}}.f32")
    g = _SFU[inst.opcode]
    return _op(inst, t, lambda a: g(np.asarray(a, np.float64)).astype(np.float32), 1, "ftz" in mods)


# ----------------------------------------------------------------------------- sign ops, min/max

def build_abs_neg(inst, neg: bool):
    t = _type(inst)
    mods = _mods(inst, ("ftz",))
    _f32_only(inst, t, mods, ("ftz",))
    core = (lambda a: -a) if neg else (lambda a: np.abs(a))
    return _op(inst, t, core, 1, "ftz" in mods, warns=False)


def build_min_max(inst, is_max: bool):
    t = _type(inst)
    mods = _mods(inst, ("ftz", "NaN"))
    _f32_only(inst, t, mods, ("ftz",))
    pick = np.fmax if is_max else np.fmin
    canon = _CANON_NAN32 if t == "f32" else _CANON_NAN64

    nan_mode = "NaN" in mods

    def core(a, b):
        r = pick(a, b)  # NaN loses to a number
        zeros = (a == 0) & (b == 0)
        if zeros.any():  # +0 vs -0: order them (fmin/fmax may return either)
            if is_max:
                sign = np.signbit(a) & np.signbit(b)
            else:
                sign = np.signbit(a) | np.signbit(b)
            r = np.where(zeros, np.where(sign, -np.zeros_like(r), np.zeros_like(r)), r)
        if nan_mode:
            r = np.where(np.isnan(a) | np.isnan(b), canon, r)
        return np.asarray(r, canon.dtype)
    return _op(inst, t, core, 2, "ftz" in mods, warns=False)


def build_copysign(inst):
    t = _type(inst)
    _mods(inst, ())
    return _op(inst, t, lambda a, b: np.copysign(b, a), 2, warns=False)


BUILDERS = {
    "add": lambda i: build_add_sub_mul(i, "add"),
    "sub": lambda i: build_add_sub_mul(i, "sub"),
    "mul": lambda i: build_add_sub_mul(i, "mul"),
    "fma": build_fma,
    "mad": build_fma,
    "div": build_div,
    "rcp": build_rcp,
    "sqrt": build_sqrt,
    "rsqrt": build_rsqrt,
    "sin": build_sfu,
    "cos": build_sfu,
    "ex2": build_sfu,
    "lg2": build_sfu,
    "tanh": build_sfu,
    "abs": lambda i: build_abs_neg(i, False),
    "neg": lambda i: build_abs_neg(i, True),
    "min": lambda i: build_min_max(i, False),
    "max": lambda i: build_min_max(i, True),
    "copysign": build_copysign,
}
