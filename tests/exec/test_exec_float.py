"""Floating-point arithmetic: correct rounding in every mode, fma, ftz/sat, NaN rules,
special functions within their documented tolerance."""

import math
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest

from golden.errors import PTXError
from golden.exec import compile_op
from exec_helpers import bits32, mk, random_floats, ref_round, rng, run

MODES = ["rn", "rz", "rm", "rp"]
NAN, INF = float("nan"), float("inf")
F32_SUB = np.float32(1e-40)
EXACT = {
    "add": lambda a, b: Fraction(a) + Fraction(b),
    "sub": lambda a, b: Fraction(a) - Fraction(b),
    "mul": lambda a, b: Fraction(a) * Fraction(b),
    "div": lambda a, b: Fraction(a) / Fraction(b),
}


def check_against_exact(got, exact_values, mode, dtype):
    for i, (g, x) in enumerate(zip(got, exact_values)):
        if x == 0:
            assert g == 0, (i, g)
            continue
        want = ref_round(x, mode, dtype)
        assert np.asarray(g, dtype).view(f"u{np.dtype(dtype).itemsize}") == \
            np.asarray(want, dtype).view(f"u{np.dtype(dtype).itemsize}"), (i, mode, g, want, x)


def operands_f32(seed, n=250):
    g = rng(seed)
    a = random_floats(g, n, np.float32, -40, 40)
    b = random_floats(g, n, np.float32, -40, 40)
    # close exponents (cancellation), subnormal results, equal magnitudes
    a2 = random_floats(g, 60, np.float32, -130, -110)
    b2 = random_floats(g, 60, np.float32, -130, -110)
    a3 = random_floats(g, 40, np.float32, 0, 3)
    return np.concatenate([a, a2, a3, [1.5, 3.0]]).astype(np.float32), \
        np.concatenate([b, b2, -a3 * np.float32(1.0000001), [-1.5, -3.0]]).astype(np.float32)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_f32_rounding_modes(op, mode):
    a, b = operands_f32(31)
    got = run(f"{op}.{mode}.f32", a, b, operands=["d", "a", "b"])
    check_against_exact(got, [EXACT[op](float(x), float(y)) for x, y in zip(a, b)], mode, np.float32)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_f64_rounding_modes(op, mode):
    g = rng(32)
    a = np.concatenate([random_floats(g, 200, np.float64, -200, 200), random_floats(g, 40, np.float64, 0, 2)])
    b = np.concatenate([random_floats(g, 200, np.float64, -200, 200), -a[-40:] * (1 + 2.0 ** -50)])
    got = run(f"{op}.{mode}.f64", a, b, operands=["d", "a", "b"])
    check_against_exact(got, [EXACT[op](float(x), float(y)) for x, y in zip(a, b)], mode, np.float64)


@pytest.mark.parametrize("mode", MODES)
def test_f64_mul_div_extreme_exponents(mode):
    # products/quotients near the subnormal range take the exact fallback path
    a = np.array([2.0 ** -600 * 1.3, 2.0 ** -537 * 1.7, 2.0 ** 520 * 1.1, 3.0 * 2.0 ** -1070], np.float64)
    b = np.array([2.0 ** -460 * 1.9, -2.0 ** -500 * 1.3, 2.0 ** 480 * 1.7, 0.7], np.float64)
    got = run(f"mul.{mode}.f64", a, b, operands=["d", "a", "b"])
    check_against_exact(got, [EXACT["mul"](float(x), float(y)) for x, y in zip(a, b)], mode, np.float64)
    got = run(f"div.{mode}.f64", b, a, operands=["d", "a", "b"])
    exact = [EXACT["div"](float(y), float(x)) for x, y in zip(a, b)]
    keep = [abs(x) < Fraction(np.finfo(np.float64).max) for x in exact]
    check_against_exact(got[keep], [x for x, k in zip(exact, keep) if k], mode, np.float64)


def test_f32_overflow_directed():
    big = np.float32(3e38)
    assert run("add.rn.f32", [big], [big], operands=["d", "a", "b"])[0] == np.inf
    assert run("add.rz.f32", [big], [big], operands=["d", "a", "b"])[0] == np.finfo(np.float32).max
    assert run("add.rm.f32", [big], [big], operands=["d", "a", "b"])[0] == np.finfo(np.float32).max
    assert run("add.rm.f32", [-big], [-big], operands=["d", "a", "b"])[0] == -np.inf
    assert run("mul.rp.f32", [-big], [big], operands=["d", "a", "b"])[0] == -np.finfo(np.float32).max
    assert run("mul.rz.f64", [1e300], [1e300], operands=["d", "a", "b"])[0] == np.finfo(np.float64).max
    assert run("mul.rp.f64", [1e300], [1e300], operands=["d", "a", "b"])[0] == np.inf


@pytest.mark.parametrize("mode", MODES)
def test_rounding_near_overflow(mode):
    g = rng(41)
    for t, dtype in (("f32", np.float32), ("f64", np.float64)):
        top = np.finfo(dtype).max
        a = (g.uniform(0.4, 1.0, 200) * top).astype(dtype) * np.where(g.random(200) < 0.5, -1, 1).astype(dtype)
        b = (g.uniform(0.4, 1.0, 200) * top).astype(dtype) * np.sign(a)
        edge = np.array([top, top, -top], dtype)
        info = np.finfo(dtype)
        ulp_top = 2.0 ** (info.maxexp - 1 - info.nmant)
        a = np.concatenate([a, edge])
        b = np.concatenate([b, np.array([ulp_top / 2, ulp_top / 4, -ulp_top / 2], dtype)])
        got = run(f"add.{mode}.{t}", a, b, operands=["d", "a", "b"])
        check_against_exact(got, [Fraction(float(x)) + Fraction(float(y)) for x, y in zip(a, b)], mode, dtype)
        c = np.full(a.size, 1.0000001 if t == "f32" else 1.0000000000001, dtype)
        got = run(f"fma.{mode}.{t}", a, c, b * dtype(0.25), operands=["d", "a", "b", "c"])
        exact = [Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)) / 4 for x, y, z in zip(a, c, b)]
        check_against_exact(got, exact, mode, dtype)


def test_exact_zero_sign_under_rm():
    d = run("add.rm.f32", [1.0, 0.0, -0.0], [-1.0, 0.0, 0.0], operands=["d", "a", "b"])
    assert np.signbit(d).tolist() == [True, False, True]
    d = run("add.rn.f32", [1.0], [-1.0], operands=["d", "a", "b"])
    assert not np.signbit(d[0])
    d = run("sub.rm.f64", [2.5], [2.5], operands=["d", "a", "b"])
    assert np.signbit(d[0])


# ----------------------------------------------------------------------------- fma

@pytest.mark.parametrize("mode", MODES)
def test_fma_f32_correctly_rounded(mode):
    g = rng(33)
    a, b = operands_f32(34)
    c = np.concatenate([random_floats(g, a.size - 50, np.float32, -60, 60),
                        (-(a[:50].astype(np.float64) * b[:50])).astype(np.float32)])  # cancellation
    got = run(f"fma.{mode}.f32", a, b, c, operands=["d", "a", "b", "c"])
    exact = [Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)) for x, y, z in zip(a, b, c)]
    check_against_exact(got, exact, mode, np.float32)
    # mad.rn.f32 is fma.rn.f32
    assert bits32(run(f"mad.{mode}.f32", a, b, c, operands=["d", "a", "b", "c"])).tolist() == bits32(got).tolist()


def test_fma_f32_double_rounding_cases():
    # a*b = 1 + 2^-11 + 2^-24 exactly: an f32 halfway point. c = +-2^-80 decides the side;
    # rounding a*b+c to float64 first would lose c and round to even (down).
    a = np.float32(1 + 2.0 ** -12)
    tiny = float(2.0 ** -80)
    d = run("fma.rn.f32", [a, a, a], [a, a, a], [tiny, -tiny, 0.0], operands=["d", "a", "b", "c"])
    assert d.tolist() == [1 + 2.0 ** -11 + 2.0 ** -23, 1 + 2.0 ** -11, 1 + 2.0 ** -11]
    naive = (np.float64(a) * np.float64(a) + tiny).astype(np.float32)
    assert naive != d[0]  # the case really needs the careful path


@pytest.mark.parametrize("mode", MODES)
def test_fma_f64_correctly_rounded(mode):
    g = rng(35)
    n = 300
    a = random_floats(g, n, np.float64, -60, 60)
    b = random_floats(g, n, np.float64, -60, 60)
    c = random_floats(g, n, np.float64, -130, 130)
    c[:60] = -(a[:60] * b[:60])                             # massive cancellation
    c[60:80] = -(a[60:80] * b[60:80]) * (1 + 2.0 ** -40)
    a[80:90] *= 2.0 ** 700                                  # outside the fast window
    c[90:100] = 0.0
    got = run(f"fma.{mode}.f64", a, b, c, operands=["d", "a", "b", "c"])
    exact = [Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)) for x, y, z in zip(a, b, c)]
    check_against_exact(got, exact, mode, np.float64)


def test_fma_f64_double_rounding_case():
    # a*b = 1 + 2^-26 + 2^-27 + 2^-53: a float64 halfway point; c = 2^-100 pushes it up
    a, b = 1 + 2.0 ** -26, 1 + 2.0 ** -27
    d = run("fma.rn.f64", [a, a], [b, b], [2.0 ** -100, -(2.0 ** -100)], operands=["d", "a", "b", "c"])
    up = 1 + 2.0 ** -26 + 2.0 ** -27 + 2.0 ** -52
    assert d.tolist() == [up, 1 + 2.0 ** -26 + 2.0 ** -27]
    assert a * b + 2.0 ** -100 != up


def test_fma_specials_and_signed_zero():
    d = run("fma.rn.f64", [-0.0, 0.0, INF, 1e308, 2.0], [5.0, 5.0, 0.0, 10.0, 3.0],
            [-0.0, -0.0, 1.0, -INF, NAN], operands=["d", "a", "b", "c"])
    assert np.signbit(d[0]) and not np.signbit(d[1])
    assert math.isnan(d[2]) and d[3] == -INF and math.isnan(d[4])
    d = run("fma.rn.f32", [-0.0, 1.0], [5.0, 1.0], [-0.0, -1.0], operands=["d", "a", "b", "c"])
    assert np.signbit(d[0]) and d[1] == 0 and not np.signbit(d[1])


# ----------------------------------------------------------------------------- ftz / sat

def test_ftz_flushes_inputs_and_results():
    s = float(F32_SUB)
    assert run("add.f32", [s], [0.0], operands=["d", "a", "b"])[0] == np.float32(s)
    d = run("add.ftz.f32", [s, -s], [0.0, -0.0], operands=["d", "a", "b"])
    assert d.tolist() == [0.0, 0.0] and np.signbit(d).tolist() == [False, True]
    small = np.float32(2.0 ** -70)
    assert run("mul.f32", [small], [small], operands=["d", "a", "b"])[0] == np.float32(2.0 ** -140)
    d = run("mul.ftz.f32", [small, -small], [small, small], operands=["d", "a", "b"])
    assert d.tolist() == [0.0, 0.0] and np.signbit(d).tolist() == [False, True]
    assert run("fma.rn.ftz.f32", [1.0], [s], [0.0], operands=["d", "a", "b", "c"])[0] == 0.0
    assert run("sqrt.approx.ftz.f32", [s], operands=["d", "a"])[0] == 0.0
    assert run("rcp.approx.ftz.f64", [1e-310, -1e-310], operands=["d", "a"]).tolist() == [INF, -INF]


def test_sat():
    d = run("add.sat.f32", [0.5, 2.0, -3.0, NAN, -0.0], [0.25, 0.0, 1.0, 1.0, 0.0], operands=["d", "a", "b"])
    assert d.tolist() == [0.75, 1.0, 0.0, 0.0, 0.0] and not np.signbit(d).any()
    assert run("fma.rn.sat.f32", [2.0], [2.0], [-3.5], operands=["d", "a", "b", "c"]).tolist() == [0.5]
    assert run("mul.sat.f32", [INF], [1.0], operands=["d", "a", "b"]).tolist() == [1.0]


# ----------------------------------------------------------------------------- min max abs neg

@pytest.mark.parametrize("t", ["f32", "f64"])
def test_min_max_nan_and_zero(t):
    a = [NAN, 1.0, NAN, -0.0, 0.0, -0.0, 2.0, -INF]
    b = [1.0, NAN, NAN, 0.0, -0.0, -0.0, 3.0, 5.0]
    mn = run(f"min.{t}", a, b, operands=["d", "a", "b"])
    mx = run(f"max.{t}", a, b, operands=["d", "a", "b"])
    assert mn[[0, 1, 6, 7]].tolist() == [1.0, 1.0, 2.0, -INF]
    assert mx[[0, 1, 6, 7]].tolist() == [1.0, 1.0, 3.0, 5.0]
    assert math.isnan(mn[2]) and math.isnan(mx[2])
    assert np.signbit(mn[3:6]).tolist() == [True, True, True]
    assert np.signbit(mx[3:6]).tolist() == [False, False, True]
    nn = run(f"min.NaN.{t}", [NAN, 1.0], [1.0, 2.0], operands=["d", "a", "b"])
    assert math.isnan(nn[0]) and nn[1] == 1.0
    if t == "f32":
        assert bits32(nn[:1]).tolist() == [0x7FFFFFFF]   # canonical NaN


def test_min_max_ftz():
    d = run("min.ftz.f32", [-float(F32_SUB)], [0.0], operands=["d", "a", "b"])
    assert d[0] == 0.0 and np.signbit(d[0])  # -sub -> -0, min(-0, +0) = -0
    d = run("max.f32", [-float(F32_SUB)], [-1.0], operands=["d", "a", "b"])
    assert d[0] == -F32_SUB


def test_abs_neg_sign_bit_only():
    nan_payload = np.array([0x7FC00123], np.uint32).view(np.float32)
    neg_nan = np.array([0xFFC00123], np.uint32).view(np.float32)
    assert bits32(run("abs.f32", neg_nan, operands=["d", "a"])).tolist() == [0x7FC00123]
    assert bits32(run("neg.f32", nan_payload, operands=["d", "a"])).tolist() == [0xFFC00123]
    d = run("neg.f32", [0.0, -0.0, 1.5], operands=["d", "a"])
    assert np.signbit(d).tolist() == [True, False, True]
    assert run("abs.f64", [-0.0, -2.0], operands=["d", "a"]).tolist() == [0.0, 2.0]
    assert not np.signbit(run("abs.f64", [-0.0], operands=["d", "a"])[0])
    d = run("neg.ftz.f32", [float(F32_SUB)], operands=["d", "a"])
    assert d[0] == 0 and np.signbit(d[0])


def test_copysign():
    d = run("copysign.f32", [-1.0, 1.0, -0.0], [2.0, -3.0, 4.0], operands=["d", "a", "b"])
    assert d.tolist() == [-2.0, 3.0, -4.0]
    assert run("copysign.f64", [-1.0], [INF], operands=["d", "a", "b"]).tolist() == [-INF]


# ----------------------------------------------------------------------------- div rcp sqrt

def test_div_special_values_no_warnings():
    d = run("div.rn.f32", [1.0, -1.0, 0.0, INF], [0.0, 0.0, 0.0, INF], operands=["d", "a", "b"])
    assert d[0] == INF and d[1] == -INF and math.isnan(d[2]) and math.isnan(d[3])
    for text in ("div.approx.f32", "div.full.f32", "div.approx.ftz.f32", "div.full.ftz.f32"):
        a, b = operands_f32(36)
        got = run(text, a, b, operands=["d", "a", "b"])
        if "ftz" in text:
            continue
        check_against_exact(got, [EXACT["div"](float(x), float(y)) for x, y in zip(a, b)], "rn", np.float32)
    d = run("div.rn.f64", [1.0, 0.0], [0.0, 0.0], operands=["d", "a", "b"])
    assert d[0] == INF and math.isnan(d[1])


def ref_sqrt(x: float, mode: str, dtype):
    """Correct rounding of sqrt(x) by exact comparisons of squares."""
    dtype = np.dtype(dtype)
    r = dtype.type(math.sqrt(x))
    fx = Fraction(x)
    cands = sorted({float(np.nextafter(r, dtype.type(-np.inf))), float(r), float(np.nextafter(r, dtype.type(np.inf)))})
    below = [c for c in cands if Fraction(c) ** 2 <= fx]
    above = [c for c in cands if Fraction(c) ** 2 >= fx]
    lo, hi = max(below), min(above)
    if lo == hi or mode in ("rz", "rm"):
        return dtype.type(lo)
    if mode == "rp":
        return dtype.type(hi)
    mid = (Fraction(lo) + Fraction(hi)) / 2
    return dtype.type(lo if mid ** 2 > fx else hi)  # sqrt is never exactly halfway


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("mode", MODES)
def test_sqrt_rcp_rounding(t, mode):
    dtype = np.float32 if t == "f32" else np.float64
    g = rng(37)
    lo = -140 if t == "f32" else -1060
    x = np.abs(np.concatenate([random_floats(g, 200, dtype, -100, 100), random_floats(g, 20, dtype, lo, lo + 20)]))
    got = run(f"sqrt.{mode}.{t}", x, operands=["d", "a"])
    for v, r in zip(x, got):
        assert r == ref_sqrt(float(v), mode, dtype), (v, mode)
    got = run(f"rcp.{mode}.{t}", x[:200], operands=["d", "a"])
    check_against_exact(got, [1 / Fraction(float(v)) for v in x[:200]], mode, dtype)


def test_sqrt_rcp_specials():
    d = run("sqrt.rn.f32", [-1.0, -0.0, INF, 0.0], operands=["d", "a"])
    assert math.isnan(d[0]) and d[1] == 0 and np.signbit(d[1]) and d[2] == INF and d[3] == 0
    d = run("rcp.rn.f32", [0.0, -0.0, INF], operands=["d", "a"])
    assert d.tolist() == [INF, -INF, 0.0]
    d = run("rcp.approx.f32", [4.0], operands=["d", "a"])
    assert d.tolist() == [0.25]
    assert run("sqrt.approx.f32", [2.0], operands=["d", "a"])[0] == np.float32(math.sqrt(2))


# ----------------------------------------------------------------------------- approximate functions

def ulp_error(got, ref, dtype):
    spacing = np.abs(np.spacing(np.asarray(ref, dtype)).astype(np.float64))
    return np.abs(got.astype(np.float64) - ref) / spacing


def test_sin_cos_within_one_ulp_and_ptx_bound():
    g = rng(38)
    x = np.concatenate([g.uniform(-100 * math.pi, 100 * math.pi, 2000), [0.0, -0.0, 1e-30, math.pi]]).astype(np.float32)
    for name, f in (("sin", math.sin), ("cos", math.cos)):
        got = run(f"{name}.approx.f32", x, operands=["d", "a"])
        ref = np.array([f(float(v)) for v in x])
        assert ulp_error(got, ref, np.float32).max() <= 1.0
        assert np.abs(got - ref).max() <= 2.0 ** -20.5  # PTX ISA absolute error bound
    got = run("sin.approx.ftz.f32", [float(F32_SUB), INF], operands=["d", "a"])
    assert got[0] == 0 and math.isnan(got[1])


def test_ex2_lg2_tanh_rsqrt_within_one_ulp():
    g = rng(39)
    x = g.uniform(-126, 127, 2000).astype(np.float32)
    got = run("ex2.approx.f32", x, operands=["d", "a"])
    assert ulp_error(got, np.array([2.0 ** float(v) for v in x]), np.float32).max() <= 1.0
    y = np.abs(random_floats(g, 2000, np.float32, -149, 127))
    got = run("lg2.approx.f32", y, operands=["d", "a"])
    assert ulp_error(got, np.array([math.log2(float(v)) for v in y]), np.float32).max() <= 1.0
    z = g.uniform(-10, 10, 2000).astype(np.float32)
    got = run("tanh.approx.f32", z, operands=["d", "a"])
    assert ulp_error(got, np.array([math.tanh(float(v)) for v in z]), np.float32).max() <= 1.0
    got = run("rsqrt.approx.f32", y, operands=["d", "a"])
    assert ulp_error(got, np.array([1 / math.sqrt(float(v)) for v in y]), np.float32).max() <= 1.0
    d = run("ex2.approx.ftz.f32", [-INF, INF, 0.0, -150.0], operands=["d", "a"])
    assert d.tolist() == [0.0, INF, 1.0, 0.0]
    d = run("lg2.approx.f32", [0.0, -1.0, 1.0, INF], operands=["d", "a"])
    assert d[0] == -INF and math.isnan(d[1]) and d[2] == 0 and d[3] == INF


def test_rsqrt_f64_within_two_ulp():
    g = rng(40)
    x = np.abs(random_floats(g, 300, np.float64, -1000, 1000))
    got = run("rsqrt.approx.f64", x, operands=["d", "a"])
    getcontext().prec = 60
    ref = np.array([float(1 / Decimal(float(v)).sqrt()) for v in x])
    assert ulp_error(got, ref, np.float64).max() <= 2.0
    assert run("rsqrt.approx.f64", [0.0, 4.0], operands=["d", "a"]).tolist() == [INF, 0.5]


@pytest.mark.parametrize("name,f", [("rcp", lambda x: 1 / x), ("rsqrt", lambda x: 1 / math.sqrt(x))])
def test_upper_word_f64_approximations(name, f):
    # PTX ISA: only a[63:32] is used; d[31:0] = 0; a gross (~20-bit) approximation
    g = rng(42)
    x = np.abs(random_floats(g, 500, np.float64, -1000, 1000))
    if name == "rcp":
        x[:250] *= -1
    d = run(f"{name}.approx.ftz.f64", x, operands=["d", "a"])
    assert (d.view(np.uint64) & 0xFFFFFFFF).tolist() == [0] * x.size
    ref = np.array([f(float(v)) for v in x])
    assert np.max(np.abs(d - ref) / np.abs(ref)) <= 1.5 * 2.0 ** -20   # float_ops table
    same_hi = (x.view(np.uint64) & np.uint64(0xFFFFFFFF00000000)).view(np.float64)
    assert run(f"{name}.approx.ftz.f64", same_hi, operands=["d", "a"]).tolist() == d.tolist()
    sp = run(f"{name}.approx.ftz.f64", [0.0, -0.0, INF, NAN, 1e-310], operands=["d", "a"])
    if name == "rcp":
        assert sp[:3].tolist() == [INF, -INF, 0.0] and sp[4] == INF
    else:
        assert sp[:3].tolist() == [INF, -INF, 0.0] and sp[4] == INF
    assert int(sp[3:4].view(np.uint64)[0]) == 0x7FFFFFFF00000000
    assert math.isnan(run("rsqrt.approx.ftz.f64", [-4.0], operands=["d", "a"])[0])


def test_float_errors():
    for text in ("add.f16", "fma.rn.f16x2", "add.ftz.f64", "sin.approx.f64", "sqrt.approx.f64",
                 "rsqrt.f32", "sin.f32", "min.xorsign.abs.f32", "div.full.f64"):
        with pytest.raises(PTXError):
            compile_op(mk(text, "d", "a", "b"))


def test_fma_f32_infinite_lane_is_not_changed_by_a_risky_neighbour():
    """A lane whose exact result is infinite stays infinite when another lane of the same
    warp needs the exact re-rounding (its f64 sum in the f32 subnormal range); before, the
    re-rounding turned -1816 * -inf + tiny into FLT_MAX."""
    f = np.float32
    a = np.array([-1816.0525, 1e-40], f)
    b = np.array([-np.inf, 1.0], f)
    c = np.array([-1e-42, 0.0], f)
    got = run("fma.rn.f32", a, b, c, operands=["d", "a", "b", "c"])
    alone = run("fma.rn.f32", a[:1], b[:1], c[:1], operands=["d", "a", "b", "c"])
    assert np.isposinf(got[0]) and np.isposinf(alone[0])
    assert got[1] == f(1e-40)
