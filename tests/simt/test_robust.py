"""Robustness battery: ordinary CUDA kernels, compiled with ``nvcc -ptx -arch=sm_75``,
run through the public host API and compared with numpy / plain-Python references.

Integer results are compared exactly. Float results are compared exactly where PTX
prescribes an IEEE-rounded result (``add/mul/div/sqrt .rn``, conversions, floor/ceil/
rint/trunc/round, min/max, fmod, copysign, fma). Results of CUDA's math library (which
nvcc inlines as ``ex2.approx``/``lg2.approx``/polynomials) are compared with a float64
reference in units in the last place: ``|got - ref| <= ulps * ulp(ref) + atol``; the
bound for each function is the CUDA Programming Guide's maximum error plus 2 ULP of
slack (see ``_F32_TOL``). The fast intrinsics ``__expf __sinf __fdividef`` use their
documented absolute/relative bounds.

Sources: tests/simt/kernels/robust_*.cu (PTX committed beside them). Seed: ``SEED``.
"""

from pathlib import Path
import math
from fractions import Fraction

import numpy as np
import pytest

from golden.host import Device

KDIR = Path(__file__).parent / "kernels"
SEED = 20240611
M32, M64 = (1 << 32) - 1, (1 << 64) - 1


@pytest.fixture()
def dev():
    return Device(echo_printf=False)


@pytest.fixture()
def rng():
    return np.random.default_rng(SEED)


def _mod(dev, name):
    return dev.load_module(KDIR / f"{name}.ptx")


def _s32(v):
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def _s64(v):
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def _cdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cmod(a, b):
    return a - b * _cdiv(a, b)


def _ulp_close(got, ref, ulps, atol=0.0, dtype=np.float32):
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    ulp = np.spacing(np.abs(ref).astype(dtype)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        err = np.abs(got - ref)
    bad = ~((err <= ulps * ulp + atol) | (np.isnan(got) & np.isnan(ref)) | (got == ref))
    return bad


def _assert_ulp(got, ref, ulps, atol=0.0, what="", dtype=np.float32):
    bad = _ulp_close(got, ref, ulps, atol, dtype)
    if bad.any():
        k = np.flatnonzero(bad)[:5]
        raise AssertionError(f"{what}: {bad.sum()} mismatches, e.g. got {np.asarray(got)[k]} "
                             f"ref {np.asarray(ref)[k]}")


# ----------------------------------------------------------------------------- memory / ints

def test_vector_loads_ldg(dev, rng):
    n4 = 77
    a = rng.standard_normal((n4, 4)).astype(np.float32)
    b = rng.integers(-1000, 1000, (n4, 2)).astype(np.int32)
    out, outi = dev.zeros((n4, 4), np.float32), dev.zeros((n4, 2), np.int32)
    _mod(dev, "robust_mem").get_function("vec_float4")(
        (3,), (32,), (dev.to_device(a), dev.to_device(b), out, outi, np.int32(n4)))
    ref = np.stack([a[:, 3] + b[:, 0].astype(np.float32), a[:, 2] * np.float32(2),
                    a[:, 1] - b[:, 1].astype(np.float32), a[:, 0]], axis=1)
    np.testing.assert_array_equal(out.get(), ref)
    np.testing.assert_array_equal(outi.get(), np.stack([b[:, 1] * 3, b[:, 0] ^ 0x55], axis=1))


def test_small_integer_types(dev, rng):
    n = 150
    sc = rng.integers(-128, 128, n).astype(np.int8)
    uc = rng.integers(0, 256, n).astype(np.uint8)
    ss = rng.integers(-32768, 32768, n).astype(np.int16)
    us = rng.integers(0, 65536, n).astype(np.uint16)
    oi, ouc = dev.zeros(n, np.int32), dev.zeros(n, np.uint8)
    oss, of = dev.zeros(n, np.int16), dev.zeros(n, np.float32)
    _mod(dev, "robust_mem").get_function("small_types")(
        2, 96, (dev.to_device(sc), dev.to_device(uc), dev.to_device(ss), dev.to_device(us),
                oi, ouc, oss, of, np.int32(n)))
    s, u, s16, u16 = (x.astype(np.int64) for x in (sc, uc, ss, us))
    np.testing.assert_array_equal(oi.get(), s * 1000 + u + s16 - u16)
    np.testing.assert_array_equal(ouc.get(), ((u + s * 7) & 0xFF).astype(np.uint8))
    np.testing.assert_array_equal(oss.get(), ((s16 * 3 + u16) & 0xFFFF).astype(np.uint16).view(np.int16))
    np.testing.assert_array_equal(of.get(), sc.astype(np.float32) + us.astype(np.float32) * np.float32(0.5))


def test_int64_arithmetic(dev, rng):
    n = 100
    a = rng.integers(-(1 << 62), 1 << 62, n).astype(np.int64)
    a[:4] = [-1, 0, -(1 << 63), (1 << 63) - 1]
    b = rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n).astype(np.uint64)
    b[0] = 1
    o1, o2 = dev.zeros(4 * n, np.int64), dev.zeros(3 * n, np.uint64)
    _mod(dev, "robust_mem").get_function("int64_math")(
        1, 128, (dev.to_device(a), dev.to_device(b), o1, o2, np.int32(n)))
    r1, r2 = [], []
    for x, y in zip(a.tolist(), b.tolist()):
        r1 += [_s64(x * 7 - (x >> 3)), _s64(_cdiv(x, 13) + _cmod(x, 13)), y % 1000003,
               _s64((x * 0x123456789) >> 64)]
        r2 += [(y * 0x9E3779B97F4A7C15 + (y >> 17)) & M64, ((y << 5) ^ (y >> 59) ^ x) & M64,
               (y * 0xDEADBEEFCAFEBABE) >> 64]
    np.testing.assert_array_equal(o1.get(), np.array(r1, dtype=np.int64))
    np.testing.assert_array_equal(o2.get(), np.array(r2, dtype=np.uint64))


def test_runtime_division_and_modulo(dev, rng):
    n = 300
    a = rng.integers(-(1 << 31), 1 << 31, n).astype(np.int32)
    b = rng.integers(-50, 50, n).astype(np.int32)
    b[b == 0] = 7
    b[:6] = [1, -1, 2, -2, 1 << 30, -(1 << 31)]
    a[:6] = [-(1 << 31), 5, -7, 7, -3, 123]
    a[np.logical_and(a == -(1 << 31), b == -1)] = 0   # INT_MIN / -1 is undefined in C
    ua = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    ub = rng.integers(1, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    ub[:50] = rng.integers(1, 40, 50).astype(np.uint32)
    q, r, uq, ur = (dev.zeros(n, t) for t in (np.int32, np.int32, np.uint32, np.uint32))
    _mod(dev, "robust_mem").get_function("int_div")(
        3, 128, (dev.to_device(a), dev.to_device(b), dev.to_device(ua), dev.to_device(ub),
                 q, r, uq, ur, np.int32(n)))
    A, B = a.tolist(), b.tolist()
    np.testing.assert_array_equal(q.get(), [_cdiv(x, y) for x, y in zip(A, B)])
    np.testing.assert_array_equal(r.get(), [_cmod(x, y) for x, y in zip(A, B)])
    np.testing.assert_array_equal(uq.get(), ua // ub)
    np.testing.assert_array_equal(ur.get(), ua % ub)


def test_integer_intrinsics(dev, rng):
    n = 120
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    a[:5] = [0, 1, 0x80000000, 0xFFFFFFFF, 0x00010000]
    b[:5] = [0, 0xFFFFFFFF, 0x80000000, 1, 0]
    a[5:40] >>= rng.integers(0, 32, 35).astype(np.uint32)
    o = dev.zeros(12 * n, np.int32)
    _mod(dev, "robust_mem").get_function("int_intrinsics")(
        2, 64, (dev.to_device(a), dev.to_device(b), o, np.int32(n)))
    ref = []
    for x, y in zip(a.tolist(), b.tolist()):
        sx, sy = _s32(x), _s32(y)
        s24 = lambda v: (v & 0xFFFFFF) - ((v & 0x800000) << 1)
        ffs = (x & -x).bit_length()
        xy = (x << 32) | y
        ref += [bin(x).count("1"), 32 - x.bit_length(), _s32(int(f"{x:032b}"[::-1], 2)),
                ffs, _s32((x * y) >> 32), _s32(s24(sx) * s24(sy)),
                abs((sx & 0xFFFF) - (sy & 0xFFFF)) + 7, min(sx, sy), _s32(max(x, y)),
                _s32(abs(sx)), bin(xy).count("1") + 64 - y.bit_length(),
                _s32((sx * sy) >> 32)]
    np.testing.assert_array_equal(o.get(), np.array(ref, dtype=np.int64).astype(np.int32))


# ----------------------------------------------------------------------------- floats

# (name, float64 reference of (a, b), max ULP error allowed, absolute slack).
# ULP bounds: CUDA Programming Guide, "Mathematical Functions" maximum ulp error, + 2.
_F32_TOL = {
    "sqrtf": 0, "rsqrtf": 4, "expf": 4, "exp2f": 4, "logf": 3, "log2f": 3, "log10f": 4,
    "powf": 6, "sinf": 4, "cosf": 4, "tanf": 6, "tanhf": 4, "erff": 4, "cbrtf": 3,
    "atan2f": 5, "hypotf": 5, "fmaf": 0, "div": 0,
}


def _f32_exact(q: Fraction) -> np.float32:
    """``q`` correctly rounded (to nearest, ties to even) to float32."""
    x = np.float32(float(q))
    cands = [np.nextafter(x, np.float32(-np.inf)), x, np.nextafter(x, np.float32(np.inf))]
    best = min(cands, key=lambda c: (abs(Fraction(float(c)) - q), int(np.array(c).view(np.uint32)) & 1))
    return best


def _fmath_refs(a, b):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    b33 = (b * np.float32(3.3)).astype(np.float64)
    b04 = (b * np.float32(0.4)).astype(np.float64)
    b5 = (b * np.float32(5.0)).astype(np.float64)
    erf = np.vectorize(math.erf)
    with np.errstate(divide="ignore"):
        div = a64 / b64
    return [
        ("sqrtf", np.sqrt(a64)), ("rsqrtf", 1 / np.sqrt(a64)), ("expf", np.exp(b64)),
        ("exp2f", np.exp2(b64)), ("logf", np.log(a64)), ("log2f", np.log2(a64)),
        ("log10f", np.log10(a64)), ("powf", a64 ** b64), ("sinf", np.sin(b64)),
        ("cosf", np.cos(b64)), ("tanf", np.tan(b04)), ("tanhf", np.tanh(b64)), ("erff", erf(b64)),
        ("fabsf", np.abs(b64)), ("floorf", np.floor(b33)), ("ceilf", np.ceil(b33)),
        ("rintf", np.rint(b33)), ("truncf", np.trunc(b33)),
        ("roundf", np.sign(b33) * np.floor(np.abs(b33) + 0.5)),
        ("fminf", np.minimum(a64, b64)), ("fmaxf", np.maximum(a64, b64)), ("fmodf", np.fmod(b5, a64)),
        ("__saturatef", np.clip(b64, 0, 1)), ("__fdividef", b64 / a64), ("__expf", np.exp(b64)),
        ("__sinf", np.sin(b64)), ("copysignf", np.copysign(a64, b64)), ("div", div),
        ("fmaf", np.array([_f32_exact(Fraction(x) * Fraction(y) + 1) for x, y in zip(a.tolist(), b.tolist())])), ("atan2f", np.arctan2(b64, a64)), ("cbrtf", np.cbrt(b64)),
        ("hypotf", np.hypot(a64, b64)),
    ]


def test_float_math_library(dev, rng):
    n = 256
    a = rng.uniform(0.1, 4.0, n).astype(np.float32)
    b = rng.uniform(-3.0, 3.0, n).astype(np.float32)
    b[:6] = [0.5, -0.5, 1.5 / 3.3, 0.0, -0.0, 2.5]
    o = dev.zeros((n, 32), np.float32)
    _mod(dev, "robust_float").get_function("fmath")(
        4, 64, (dev.to_device(a), dev.to_device(b), o, np.int32(n)))
    got = o.get()
    for col, (name, ref) in enumerate(_fmath_refs(a, b)):
        if name == "__expf":      # 2 + floor(|1.16 x|) ulp
            bad = _ulp_close(got[:, col], ref, 2 + np.floor(np.abs(1.16 * b)) + 2)
        elif name == "__sinf":    # absolute error 2^-21.41 on [-pi, pi]
            bad = np.abs(got[:, col] - ref) > 2.0 ** -21.41 + 1e-7
        elif name == "__fdividef":  # 2 ulp
            bad = _ulp_close(got[:, col], ref, 4)
        else:
            bad = _ulp_close(got[:, col], ref.astype(np.float32) if _F32_TOL.get(name, 0) == 0 else ref,
                             _F32_TOL.get(name, 0))
        if bad.any():
            k = np.flatnonzero(bad)[:4]
            raise AssertionError(f"{name}: {bad.sum()} lanes off; a={a[k]} b={b[k]} got={got[k, col]} "
                                 f"ref={ref[k]}")


def test_double_math(dev, rng):
    n = 100
    a = rng.uniform(0.1, 8.0, n)
    b = rng.uniform(-4.0, 4.0, n)
    o = dev.zeros((n, 8), np.float64)
    _mod(dev, "robust_float").get_function("dmath")(
        2, 64, (dev.to_device(a), dev.to_device(b), o, np.int32(n)))
    got = o.get()
    refs = [np.exp(b), np.log(a), np.sqrt(a), a ** b, np.sin(b), a / b, None, np.floor(b * 10.0) + np.abs(b)]
    tol = [3, 3, 0, 4, 3, 0, 0, 0]   # CUDA: exp/log/sin 1 ulp, pow 2 ulp; sqrt, div, fma exact
    for col, (ref, u) in enumerate(zip(refs, tol)):
        if ref is None:
            exact = [float(Fraction(x) * Fraction(y) - 1) for x, y in zip(a.tolist(), b.tolist())]
            np.testing.assert_array_equal(got[:, col], exact)   # float(Fraction) rounds correctly
            continue
        _assert_ulp(got[:, col], ref, u, what=f"dmath col {col}", dtype=np.float64)


def _int_to_f32(k: int, mode: str) -> np.float32:
    f = np.float32(k)  # round to nearest even
    if mode == "rd" and int(f) > k:
        f = np.nextafter(f, np.float32(-np.inf))
    if mode == "ru" and int(f) < k:
        f = np.nextafter(f, np.float32(np.inf))
    if mode == "rz" and abs(int(f)) > abs(k):
        f = np.nextafter(f, np.float32(0))
    return f


def test_conversions_and_rounding_intrinsics(dev, rng):
    n = 160
    f = rng.uniform(-1e5, 1e5, n).astype(np.float32)
    f[:10] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49999, -3.5, 0.0, 7.0]
    d = rng.uniform(-1e6, 1e6, n)
    d[:4] = [0.5, 1.5, -2.5, 1e-7]
    k = rng.integers(-(1 << 31), 1 << 31, n).astype(np.int32)
    k[:4] = [16777217, -16777217, 2147483647, 3]
    oi, ou = dev.zeros((n, 6), np.int32), dev.zeros((n, 2), np.uint32)
    of, od, ol = dev.zeros((n, 5), np.float32), dev.zeros((n, 2), np.float64), dev.zeros((n, 2), np.int64)
    _mod(dev, "robust_float").get_function("conversions")(
        2, 96, (dev.to_device(f), dev.to_device(d), dev.to_device(k), oi, ou, of, od, ol, np.int32(n)))
    f64 = f.astype(np.float64)
    np.testing.assert_array_equal(oi.get(), np.stack(
        [np.rint(f64), np.trunc(f64), np.floor(f64), np.ceil(f64), np.trunc(f64), np.rint(d)], 1).astype(np.int32))
    np.testing.assert_array_equal(ou.get(), np.stack([np.trunc(np.abs(f64)), np.rint(np.abs(f64))], 1).astype(np.uint32))
    K = k.tolist()
    ref_f = np.array([[_int_to_f32(x, "rd"), _int_to_f32(x, "ru"), _int_to_f32(x, "rn"), np.float32(y),
                       _int_to_f32(x & M32, "rz")] for x, y in zip(K, d.tolist())], dtype=np.float32)
    np.testing.assert_array_equal(of.get(), ref_f)
    np.testing.assert_array_equal(od.get(), np.stack([f64 + k.astype(np.float64),
                                                      k.view(np.uint32).astype(np.float64)], 1))
    np.testing.assert_array_equal(ol.get(), np.stack(
        [np.trunc(d * 1e6), np.floor((f * np.float32(1000.0)).astype(np.float64))], 1).astype(np.int64))


# ----------------------------------------------------------------------------- atomics

def test_global_atomics_32_and_64_bit(dev, rng):
    n = 300
    v = rng.integers(-100000, 100000, n).astype(np.int32)
    fv = rng.standard_normal(n).astype(np.float32)
    u64 = dev.to_device(np.array([0, M64, 0, M64, 0, 0], dtype=np.uint64))
    i32 = dev.to_device(np.array([1 << 30, -(1 << 30), 0], dtype=np.int32))
    u32 = dev.to_device(np.array([M32, 0, 0, 0, 0, 0], dtype=np.uint32))
    fmx = dev.to_device(np.array([-np.inf, 0], dtype=np.float32))
    s64 = dev.to_device(np.array([0, -(1 << 63), 0], dtype=np.int64))
    _mod(dev, "robust_atomics").get_function("atomics_global")(
        5, 64, (dev.to_device(v), dev.to_device(fv), u64, i32, u32, fmx, s64, np.int32(n)))
    V = v.tolist()
    and32, or32, xor32, and64, or64, xor64 = M32, 0, 0, M64, 0, 0
    for x in V:
        and32 &= ~(1 << (x & 31)) & M32
        or32 |= 1 << (x & 31)
        xor32 ^= x & M32
        and64 &= ~(1 << (x & 63)) & M64
        or64 |= 1 << (x & 63)
        xor64 ^= (x << 20) & M64
    np.testing.assert_array_equal(u64.get(), np.array(
        [sum((x & 0xFF) << 33 for x in V) & M64, min((x & 0xFFFF) + 5 for x in V),
         max((x * 77) & M64 for x in V), and64, or64, xor64], dtype=np.uint64))
    np.testing.assert_array_equal(i32.get(), [min(V + [1 << 30]), max(V + [-(1 << 30)]),
                                              -sum(x & 15 for x in V)])
    np.testing.assert_array_equal(u32.get(), [and32, or32, xor32, n % 18, (-n) % 10, n])
    got_f = fmx.get()
    assert got_f[0] == fv.max() and got_f[1] == np.float32(0.5 * n)
    got_s = s64.get()
    assert got_s[0] == min(0, min(-3 * x for x in V))
    assert got_s[1] == max(x * 1000000007 for x in V)
    assert got_s[2:3].view(np.float64)[0] == 0.25 * n


def test_atomic_cas_exch_uniqueness(dev):
    n = 200
    slots = dev.to_device(np.full(9, -1, dtype=np.int32))
    owner = dev.to_device(np.full(8 + n, -7, dtype=np.int32))
    cas64 = dev.to_device(np.array([1 << 40], dtype=np.uint64))
    _mod(dev, "robust_atomics").get_function("atomic_exch_cas")(4, 64, (slots, owner, cas64, np.int32(n)))
    s, o = slots.get(), owner.get()
    for k in range(8):
        assert s[k] == o[k] and s[k] % 8 == k and 0 <= s[k] < n
    seen = sorted(o[8:].tolist() + [int(s[8])])
    assert seen == [-1] + list(range(n))           # each exchange returned a distinct previous value
    assert cas64.get()[0] == (1 << 40) + n * (n - 1) // 2


def test_shared_memory_atomics_histogram(dev, rng):
    n = 1000
    v = rng.integers(0, 1 << 20, n).astype(np.int32)
    hist = dev.zeros(66, np.uint32)
    _mod(dev, "robust_atomics").get_function("shared_histogram")(3, 128, (dev.to_device(v), hist, np.int32(n)))
    h = hist.get()
    np.testing.assert_array_equal(h[:64], np.bincount(v & 63, minlength=64))
    assert h[64:66].view(np.uint64)[0] == int(v.astype(np.int64).sum())


# ----------------------------------------------------------------------------- warps, geometry, shared

def test_warp_intrinsics(dev, rng):
    n, threads = 200, 256
    v = rng.integers(0, 100, n).astype(np.int32)
    o = dev.zeros((n, 10), np.int32)
    _mod(dev, "robust_warp").get_function("warp_ops")(4, 64, (dev.to_device(v), o, np.int32(n)))
    x = np.zeros(threads, np.int64)
    x[:n] = v
    ref = np.zeros((threads, 10), np.int64)
    for w in range(threads // 32):
        xs = x[32 * w: 32 * w + 32]
        bal = sum(1 << l for l in range(32) if xs[l] > 50)
        odd = sum(1 << l for l in range(32) if xs[l] & 1)
        part = sum(1 << l for l in range(32) if xs[l] & 1 and xs[l] > 30)
        for l in range(32):
            ref[32 * w + l] = [xs.sum(), xs[: l + 1].sum(), xs[l + 3] if l + 3 < 32 else xs[l], xs[5],
                               _s32(bal), bin(bal).count("1"), int((xs > 95).any()), 1,
                               _s32(odd) if xs[l] & 1 else 0, _s32(part) if xs[l] & 1 else 0]
    np.testing.assert_array_equal(o.get(), ref[:n])


def test_3d_grid_3d_blocks_grid_stride(dev):
    nx, ny, nz = 7, 6, 9
    out, ids = dev.zeros((nz, ny, nx), np.int32), dev.zeros((nz, ny, nx), np.int32)
    _mod(dev, "robust_warp").get_function("grid3d")((2, 2, 2), (4, 4, 2),
                                                    (out, ids, np.int32(nx), np.int32(ny), np.int32(nz)))
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    np.testing.assert_array_equal(out.get(), x + 100 * y + 10000 * z)
    zz = z % 4                       # grid-stride in z by gridDim.z * blockDim.z = 4
    tid = (x % 4) + 4 * ((y % 4) + 4 * (zz % 2))
    bid = (x // 4) + 2 * ((y // 4) + 2 * (zz // 2))
    np.testing.assert_array_equal(ids.get(), tid + 1000 * bid)


def test_2d_grid_stride_transpose(dev, rng):
    w, h = 37, 29
    a = rng.integers(-1000, 1000, (h, w)).astype(np.int32)
    out = dev.zeros((w, h), np.int32)
    _mod(dev, "robust_warp").get_function("grid2d_stride")((2, 3), (8, 4),
                                                           (dev.to_device(a), out, np.int32(w), np.int32(h)))
    np.testing.assert_array_equal(out.get(), a.T * 2 + 1)


def test_dynamic_shared_multiple_arrays(dev, rng):
    n, bs = 250, 96
    a = (rng.integers(-4000, 4000, n) / 4).astype(np.float32)
    b = rng.integers(-500, 500, n).astype(np.int32)
    out = dev.zeros(n, np.float32)
    _mod(dev, "robust_warp").get_function("dyn_shared_multi")(
        3, bs, (dev.to_device(a), dev.to_device(b), out, np.int32(n)), shared_mem=bs * 10)
    ref = np.zeros(n, np.float32)
    for i in range(n):
        blk, t = divmod(i, bs)
        r = bs - 1 - t
        j, k = blk * bs + r, blk * bs + (t + 1) % bs
        fa = a[j] if j < n else 0.0
        ib = b[k] if k < n else 0
        ref[i] = np.float32(float(fa) * ib + 3 * r)    # exact in float64 and in float32
    np.testing.assert_array_equal(out.get(), ref)


def test_static_2d_shared_tile_transpose(dev, rng):
    w, h = 40, 23
    a = rng.standard_normal((h, w)).astype(np.float32)
    out = dev.zeros((w, h), np.float32)
    _mod(dev, "robust_warp").get_function("tile_transpose")((3, 2), (16, 16),
                                                            (dev.to_device(a), out, np.int32(w), np.int32(h)))
    np.testing.assert_array_equal(out.get(), a.T)


def test_tree_reduction_bitexact(dev, rng):
    n, grid, bs = 3000, 4, 256
    x = rng.standard_normal(n).astype(np.float32)
    out, dout = dev.zeros(grid, np.float32), dev.zeros(grid, np.float64)
    _mod(dev, "robust_warp").get_function("tree_reduce")(grid, bs, (dev.to_device(x), out, dout, np.int32(n)))
    acc = np.zeros(grid * bs, np.float32)
    dacc = np.zeros(grid * bs, np.float64)
    for start in range(0, n, grid * bs):      # each thread sums its grid-stride elements in order
        chunk = x[start: start + grid * bs]
        acc[: len(chunk)] += chunk
        dacc[: len(chunk)] += chunk.astype(np.float64)
    s, sd = acc.reshape(grid, bs), dacc.reshape(grid, bs)
    stride = bs // 2
    while stride:
        s[:, :stride] += s[:, stride: 2 * stride]
        sd[:, :stride] += sd[:, stride: 2 * stride]
        stride //= 2
    np.testing.assert_array_equal(out.get(), s[:, 0])
    np.testing.assert_array_equal(dout.get(), sd[:, 0])


# ----------------------------------------------------------------------------- control flow, calls, params

def _nested_ref(x: int) -> int:
    acc = 0
    done = False
    for a in range(x & 15):
        if a == 11:
            break
        if (a ^ x) & 1:
            continue
        for b in range(a):
            if b * a > x:
                break
            acc += b if b & 1 else -a
            if acc > 500:
                done = True
                break
        if done:
            break
    c = _cmod(x, 7)
    if c == 0:
        acc += 1
    elif c == 1:
        acc *= 2
    elif c in (2, 3):
        acc -= 3
    elif c in (4, 5):
        if c == 4:
            acc ^= 0x5A
        acc += 100
    else:
        acc = -acc
    return acc


def test_nested_loops_break_continue_switch(dev, rng):
    n = 400
    v = rng.integers(-300, 3000, n).astype(np.int32)
    out = dev.zeros(n, np.int32)
    st = _mod(dev, "robust_control").get_function("nested_loops")(4, 128, (dev.to_device(v), out, np.int32(n)))
    np.testing.assert_array_equal(out.get(), [_nested_ref(x) for x in v.tolist()])
    assert st.divergent_branches > 0


def test_noinline_device_functions_struct_return(dev, rng):
    n = 90
    a = rng.uniform(-2, 2, 3 * n).astype(np.float32)
    lo, hi, cnt, pv = dev.zeros(n, np.float32), dev.zeros(n, np.float32), dev.zeros(n, np.int32), dev.zeros(n, np.float32)
    mod = _mod(dev, "robust_control")
    assert any(not f.is_entry for f in mod.ir.functions.values())   # really a .func call
    mod.get_function("device_funcs")(2, 64, (dev.to_device(a), lo, hi, cnt, pv, np.int32(n)))
    t = a.reshape(n, 3)
    np.testing.assert_array_equal(lo.get(), t.min(1))
    np.testing.assert_array_equal(hi.get(), t.max(1))
    np.testing.assert_array_equal(cnt.get(), (t > 0).sum(1))
    ref = []
    for i in range(n):
        x, r = np.float32(t[i, 0] * np.float32(0.5)), Fraction(0)
        for k in range(i % 6, -1, -1):    # Horner step, contracted to fma.rn by nvcc
            r = Fraction(float(_f32_exact(r * Fraction(float(x)) + (k + 1))))
        ref.append(float(r))
    np.testing.assert_array_equal(pv.get(), np.array(ref, dtype=np.float32))


def test_local_array_dynamic_index(dev, rng):
    n = 100
    v = rng.integers(0, 1_000_000, n).astype(np.int32)
    out = dev.zeros(n, np.int32)
    mod = _mod(dev, "robust_control")
    assert ".local" in (KDIR / "robust_control.ptx").read_text()
    mod.get_function("local_array")(1, 128, (dev.to_device(v), out, np.int32(n)))
    ref = []
    for x in v.tolist():
        buf = [(x * (k + 1)) % 97 for k in range(24)]
        idx = x % 24
        for k in range(10):
            buf[idx] += k
            idx = (buf[idx] + k) % 24
        ref.append(sum(buf[k] * (k & 3) for k in range(24)) + idx)
    np.testing.assert_array_equal(out.get(), ref)


def test_struct_parameter_by_value(dev, rng):
    n = 70
    pdt = np.dtype([("offset", "<i4"), ("scale", "<f4"), ("bias", "<f8"), ("tag", "<i2"), ("flag", "i1")],
                   align=True)
    x = rng.standard_normal(n).astype(np.float32)
    fn = _mod(dev, "robust_control").get_function("struct_param")
    for flag in (0, 1):
        p = np.zeros((), dtype=pdt)
        p["offset"], p["scale"], p["bias"], p["tag"], p["flag"] = -17, 1.75, 0.125, 300, flag
        raw = p.tobytes() + b"\0" * (24 - pdt.itemsize)
        out = dev.zeros(n, np.float64)
        fn(2, 64, (raw, dev.to_device(x), out, np.int32(n)))
        v = (x * np.float32(1.75)).astype(np.float64) + 0.125 + (-17.0)
        np.testing.assert_array_equal(out.get(), v + 300.0 if flag else v - 300.0)


def test_many_mixed_scalar_parameters(dev):
    n = 40
    args = (np.int8(-5), np.int16(-1234), np.int32(-77777), np.uint32(4000000000), np.int64(-(1 << 40) + 3),
            np.uint64(0xFFFF_FFFF_FF00), np.float32(2.375), np.float64(-1.015625), np.uint8(250))
    out = dev.zeros(2 * n, np.int32)
    _mod(dev, "robust_control").get_function("many_params")(1, 64, (out, *args, np.int32(n)))
    c, s, i32, u32, i64, u64, f, d, uc = (x.item() for x in args)
    r = c + s + i32 + u32 + i64 + (u64 >> 8) + uc + math.trunc(f * 16.0) + math.trunc(d * 64.0)
    ref = [[_s32(r + i), _s32(r >> 32)] for i in range(n)]
    np.testing.assert_array_equal(out.get(), np.array(ref).ravel())


def test_bool_predicate_logic_and_ternaries(dev, rng):
    n = 200
    a = rng.integers(-50, 50, n).astype(np.int32)
    b = rng.integers(-50, 50, n).astype(np.int32)
    out = dev.zeros(2 * n, np.int32)
    _mod(dev, "robust_control").get_function("bool_logic")(
        2, 128, (dev.to_device(a), dev.to_device(b), out, np.int32(n)))
    ref = []
    for x, y in zip(a.tolist(), b.tolist()):
        p, q, r = x > y, (x & 3) == 0, y < 0
        z = (p and not q) or (r != p)
        w = p ^ q ^ r
        t = (x - y if w else y * 2) if z else (x if q else -y)
        ref += [t, p | q << 1 | r << 2 | z << 3 | w << 4]
    np.testing.assert_array_equal(out.get(), ref)


def test_while_loop_early_return_in_divergent_code(dev, rng):
    n = 300
    v = rng.integers(-20, 2000, n).astype(np.int32)
    out, steps = dev.zeros(n, np.int32), dev.zeros(n, np.int32)
    _mod(dev, "robust_control").get_function("while_early_return")(
        3, 128, (dev.to_device(v), out, steps, np.int32(n)))
    ro, rs = [], []
    for x in v.tolist():
        k, o, s = 0, -1, None
        if x & 1:
            while x != 1:
                x = 3 * x + 1 if x & 1 else _cdiv(x, 2)
                k += 1
                if k == 40:
                    s = k
                    break
            if s is None:
                o, s = x, k
        else:
            while x > 0:
                if x % 10 == 7:
                    s = -k
                    break
                x //= 3
                k += 1
            if s is None:
                o, s = x + 1000, k
        ro.append(o)
        rs.append(s)
    np.testing.assert_array_equal(out.get(), ro)
    np.testing.assert_array_equal(steps.get(), rs)


def test_printf(dev):
    v = np.array([3, 4, 5, 6, 9, 10, 255, 12], dtype=np.int32)
    _mod(dev, "robust_control").get_function("say_hello")(1, 32, (dev.to_device(v), np.int32(len(v))))
    want = [f"t{i} v={x} f={x * 0.5:.2f} x={x:x} s=ok\n" for i, x in enumerate(v.tolist()) if x % 3 == 0]
    assert "".join(dev.printf_output) == "".join(want)


def test_cpp_mangled_kernels(dev, rng):
    n = 100
    x = (rng.integers(-100, 100, n) / 8).astype(np.float32)
    y = (rng.integers(-100, 100, n) / 4).astype(np.float32)
    dy = dev.to_device(y)
    mod = _mod(dev, "robust_control")
    mod.get_function("_Z5saxpyfPKfPfi")(1, 128, (np.float32(1.5), dev.to_device(x), dy, np.int32(n)))
    np.testing.assert_array_equal(dy.get(), np.float32(1.5) * x + y)   # exact: few significant bits
    yi = dev.to_device(np.arange(n, dtype=np.int32) - 50)
    mod.get_function("_Z7scale_tIiEvPT_S0_i")(1, 128, (yi, np.int32(-3), np.int32(n)))
    np.testing.assert_array_equal(yi.get(), (np.arange(n) - 50) * -3)
    yd = dev.to_device(np.linspace(-1, 1, n))
    mod.get_function("_Z7scale_tIdEvPT_S0_i")(1, 128, (yd, np.float64(0.1), np.int32(n)))
    np.testing.assert_array_equal(yd.get(), np.linspace(-1, 1, n) * 0.1)


# ----------------------------------------------------------------------------- extras

def test_partial_warps_shuffle_width_shared_float_atomics(dev, rng):
    n, bs, grid = 100, 48, 3          # 48-thread blocks: the second warp of each block is half full
    v = (rng.integers(-1000, 1000, n) / 16).astype(np.float64)
    o, fs = dev.zeros((n, 3), np.float64), dev.zeros((grid, 4), np.float32)
    mod = _mod(dev, "robust_extra")
    mod.get_function("partial_warps")(grid, bs, (dev.to_device(v), o, fs, np.int32(n)))
    x = np.zeros(grid * bs)
    x[:n] = v
    ref = np.zeros((grid * bs, 3))
    w = np.array([0.5, -1.0, 2.0, 0.25, 3.0, -0.75, 1.5, 4.0], dtype=np.float32).astype(np.float64)
    for i in range(grid * bs):
        t = i % bs
        warp0 = i - t + (t // 32) * 32            # first thread of i's warp
        lane = t % 32
        live = min(32, bs - (t // 32) * 32)       # lanes that exist in this warp
        g16 = warp0 + (lane // 16) * 16
        ref[i, 0] = sum(x[g16 + k] for k in range(16) if (g16 + k - warp0) < live)
        src = lane + 1
        ref[i, 1] = x[warp0 + src] if (src % 8) != 0 and src < live else x[i]
        ref[i, 2] = bs + w[t & 7]
    got = o.get()
    np.testing.assert_array_equal(got[:, 2], ref[:n, 2])
    # shfl.down from a lane that does not exist is undefined in CUDA: check only defined lanes
    dfn = [i for i in range(n) if ((i % bs) % 32 + 1) % 8 == 0 or (i % bs) % 32 + 1 < min(32, bs - (i % bs) // 32 * 32)]
    np.testing.assert_array_equal(got[dfn, 1], ref[dfn, 1])
    # lanes beyond the block do not exist; a full-mask shuffle over them is undefined in CUDA,
    # so the xor-sum is only checked for groups of 16 lanes that all exist.
    full = [i for i in range(n) if (i % bs) // 16 * 16 + 16 <= bs]
    np.testing.assert_array_equal(got[full, 0], ref[full, 0])
    per_slot = [sum(t & 7 for t in range(bs) if t & 3 == s) for s in range(4)]
    np.testing.assert_array_equal(fs.get(), np.tile(per_slot, (grid, 1)).astype(np.float32))
    assert mod.get_global("g_counter", np.int32).get()[0] == grid * bs


def test_unsigned_countdown_and_shifts(dev, rng):
    n = 150
    v = rng.integers(-(1 << 31), 1 << 31, n).astype(np.int32)
    out, sh = dev.zeros(n, np.uint32), dev.zeros(3 * n, np.int32)
    _mod(dev, "robust_extra").get_function("countdown")(2, 96, (dev.to_device(v), out, sh, np.int32(n)))
    ro, rs = [], []
    for i, x in enumerate(v.tolist()):
        acc = 0
        for k in range((x & 31) - 1, -1, -1):
            acc = (acc * 31 + k) & M32
        ro.append(acc)
        rs += [x >> (i & 31), _s32((x & M32) >> (i & 31)), _s32(x << (i & 7))]
    np.testing.assert_array_equal(out.get(), ro)
    np.testing.assert_array_equal(sh.get(), rs)


def test_an_array_of_another_device_is_refused():
    """Issue 19 item 2: a DeviceArray of one Device passed to a kernel on another used to
    run on the second device's memory at the same address, corrupting an unrelated array."""
    from golden.errors import LaunchError
    from golden.workloads import registry
    a, b = Device(), Device()
    mod = b.load_module(registry.get("MV").ptx_path)
    k = mod.get_function("spmv_csr")
    foreign = a.zeros((4,), np.int32)
    mine = [b.zeros((4,), np.float32) for _ in range(4)]
    with pytest.raises(LaunchError, match="allocated on another Device"):
        k((1, 1, 1), (32, 1, 1), (foreign, *mine, np.int32(4)))
