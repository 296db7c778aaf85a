"""Integer arithmetic semantics (wrap-around, hi/wide products, division by zero...)."""

import numpy as np
import pytest

from golden.errors import PTXError
from golden.exec import compile_op
from exec_helpers import mk, rng, run

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
U32 = (1 << 32) - 1


def wrap(v, bits, signed):
    v %= 1 << bits
    return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v


def rand_ints(g, n, bits, signed):
    lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
    edge = [lo, hi - 1, 0, 1, -1 if signed else 2, lo + 1, hi - 2]
    body = [int(x) for x in g.integers(lo, hi, n, dtype=np.int64 if bits < 64 or signed else np.uint64)]
    return edge + body


def test_add_sub_wrap():
    assert run("add.s32", [I32_MAX, -1], [1, I32_MIN], operands=["d", "a", "b"]).tolist() == [I32_MIN, I32_MAX]
    assert run("add.u32", [U32], operands=["d", "a", "1"]).tolist() == [0]
    assert run("sub.u32", [0], [1], operands=["d", "a", "b"]).tolist() == [U32]
    assert run("sub.s64", [-(1 << 63)], operands=["d", "a", "1"]).tolist() == [(1 << 63) - 1]
    assert run("add.u16", [0xFFFF], operands=["d", "a", "2"]).tolist() == [1]


def test_add_sub_sat():
    d = run("add.sat.s32", [I32_MAX, I32_MIN, 5], [1, -1, 6], operands=["d", "a", "b"])
    assert d.tolist() == [I32_MAX, I32_MIN, 11]
    d = run("sub.sat.s32", [I32_MIN, I32_MAX, 5], [1, -1, 6], operands=["d", "a", "b"])
    assert d.tolist() == [I32_MIN, I32_MAX, -1]
    with pytest.raises(PTXError, match=r"\.sat"):
        compile_op(mk("add.sat.u32", "d", "a", "b"))


@pytest.mark.parametrize("t", ["u16", "s16", "u32", "s32", "u64", "s64"])
def test_mul_lo_hi_against_python(t):
    g = rng(11)
    bits, signed = int(t[1:]), t[0] == "s"
    a, b = rand_ints(g, 200, bits, signed), rand_ints(g, 200, bits, signed)[::-1]
    lo = run(f"mul.lo.{t}", a, b, operands=["d", "a", "b"]).tolist()
    hi = run(f"mul.hi.{t}", a, b, operands=["d", "a", "b"]).tolist()
    assert lo == [wrap(x * y, bits, signed) for x, y in zip(a, b)]
    assert hi == [wrap((x * y) >> bits, bits, signed) for x, y in zip(a, b)]


@pytest.mark.parametrize("t", ["u16", "s16", "u32", "s32"])
def test_mul_wide_and_mad_wide(t):
    g = rng(12)
    bits, signed = int(t[1:]), t[0] == "s"
    a, b = rand_ints(g, 100, bits, signed), rand_ints(g, 100, bits, signed)[::-1]
    c = rand_ints(g, 100, 2 * bits, signed)[: len(a)]
    assert run(f"mul.wide.{t}", a, b, operands=["d", "a", "b"]).tolist() == [x * y for x, y in zip(a, b)]
    got = run(f"mad.wide.{t}", a, b, c, operands=["d", "a", "b", "c"]).tolist()
    assert got == [wrap(x * y + z, 2 * bits, signed) for x, y, z in zip(a, b, c)]


def test_mul_wide_u16_negative_immediate():
    # nvcc: mul.wide.u16 %r6, %rs2, -21845  (division by 3 trick): -21845 is 0xAAAB
    d = run("mul.wide.u16", [3, 65535], operands=["d", "a", "-21845"])
    assert d.dtype == np.uint32 and d.tolist() == [3 * 0xAAAB, 65535 * 0xAAAB]


def test_mul_wide_64_rejected():
    with pytest.raises(PTXError, match="64-bit"):
        compile_op(mk("mul.wide.u64", "d", "a", "b"))


@pytest.mark.parametrize("t", ["s32", "u32", "s64", "u64"])
def test_mad_lo_hi(t):
    g = rng(13)
    bits, signed = int(t[1:]), t[0] == "s"
    a, b, c = (rand_ints(g, 100, bits, signed) for _ in range(3))
    lo = run(f"mad.lo.{t}", a, b, c, operands=["d", "a", "b", "c"]).tolist()
    hi = run(f"mad.hi.{t}", a, b, c, operands=["d", "a", "b", "c"]).tolist()
    assert lo == [wrap(x * y + z, bits, signed) for x, y, z in zip(a, b, c)]
    assert hi == [wrap(((x * y) >> bits) + z, bits, signed) for x, y, z in zip(a, b, c)]


def test_mad_hi_sat():
    a, b, c = [I32_MAX, I32_MIN, 1 << 20], [I32_MAX, I32_MAX, 1 << 20], [I32_MAX, I32_MIN, 3]
    got = run("mad.hi.sat.s32", a, b, c, operands=["d", "a", "b", "c"]).tolist()
    ref = [max(I32_MIN, min(I32_MAX, ((x * y) >> 32) + z)) for x, y, z in zip(a, b, c)]
    assert got == ref == [I32_MAX, I32_MIN, 256 + 3]


@pytest.mark.parametrize("t", ["u32", "s32"])
def test_mul24_mad24(t):
    g = rng(14)
    signed = t == "s32"
    a, b, c = (rand_ints(g, 100, 32, signed) for _ in range(3))

    def low24(v):
        v &= 0xFFFFFF
        return v - (1 << 24) if signed and v & 0x800000 else v
    p = [low24(x) * low24(y) for x, y in zip(a, b)]
    assert run(f"mul24.lo.{t}", a, b, operands=["d", "a", "b"]).tolist() == [wrap(v, 32, signed) for v in p]
    assert run(f"mul24.hi.{t}", a, b, operands=["d", "a", "b"]).tolist() == [wrap(v >> 16, 32, signed) for v in p]
    got = run(f"mad24.lo.{t}", a, b, c, operands=["d", "a", "b", "c"]).tolist()
    assert got == [wrap(v + z, 32, signed) for v, z in zip(p, c)]


def c_div(x, y):
    q = abs(x) // abs(y)
    return -q if (x < 0) != (y < 0) else q


@pytest.mark.parametrize("t", ["s16", "s32", "s64", "u16", "u32", "u64"])
def test_div_rem_against_python(t):
    g = rng(15)
    bits, signed = int(t[1:]), t[0] == "s"
    a, b = rand_ints(g, 300, bits, signed), rand_ints(g, 300, bits, signed)[::-1]
    b = [y if y != 0 else 7 for y in b]
    q = run(f"div.{t}", a, b, operands=["d", "a", "b"]).tolist()
    r = run(f"rem.{t}", a, b, operands=["d", "a", "b"]).tolist()
    assert q == [wrap(c_div(x, y), bits, signed) for x, y in zip(a, b)]
    assert r == [wrap(x - c_div(x, y) * y, bits, signed) for x, y in zip(a, b)]


def test_division_by_zero_and_int_min():
    # unspecified in PTX; NVIDIA hardware gives all ones for div, the dividend for rem
    assert run("div.u32", [5, 0], [0, 0], operands=["d", "a", "b"]).tolist() == [U32, U32]
    assert run("rem.u32", [5, 0], [0, 0], operands=["d", "a", "b"]).tolist() == [5, 0]
    assert run("div.s32", [5, -5], [0, 0], operands=["d", "a", "b"]).tolist() == [-1, -1]
    assert run("rem.s32", [5, -5], [0, 0], operands=["d", "a", "b"]).tolist() == [5, -5]
    assert run("div.u64", [1], operands=["d", "a", "0"]).tolist() == [(1 << 64) - 1]
    # INT_MIN / -1 wraps, INT_MIN % -1 is 0
    assert run("div.s32", [I32_MIN], [-1], operands=["d", "a", "b"]).tolist() == [I32_MIN]
    assert run("rem.s32", [I32_MIN], [-1], operands=["d", "a", "b"]).tolist() == [0]
    assert run("div.s64", [-(1 << 63)], [-1], operands=["d", "a", "b"]).tolist() == [-(1 << 63)]
    # truncation toward zero, remainder takes the dividend's sign
    assert run("div.s32", [-7, 7, -7], [2, -2, -2], operands=["d", "a", "b"]).tolist() == [-3, -3, 3]
    assert run("rem.s32", [-7, 7, -7], [2, -2, -2], operands=["d", "a", "b"]).tolist() == [-1, 1, -1]


def test_abs_neg_min_max():
    assert run("abs.s32", [I32_MIN, -3, 4], operands=["d", "a"]).tolist() == [I32_MIN, 3, 4]
    assert run("neg.s32", [I32_MIN, -3, 4], operands=["d", "a"]).tolist() == [I32_MIN, 3, -4]
    assert run("neg.s64", [1], operands=["d", "a"]).tolist() == [-1]
    # signedness decides the order
    assert run("min.s32", [-1], [1], operands=["d", "a", "b"]).tolist() == [-1]
    assert run("min.u32", [U32], [1], operands=["d", "a", "b"]).tolist() == [1]
    assert run("max.u32", [U32], [1], operands=["d", "a", "b"]).tolist() == [U32]
    assert run("max.s64", [-5], operands=["d", "a", "-7"]).tolist() == [-5]
    assert run("max.u16", [3], operands=["d", "a", "-1"]).tolist() == [0xFFFF]


def test_sad():
    assert run("sad.s32", [-5, 5], [5, -5], [1, 2], operands=["d", "a", "b", "c"]).tolist() == [11, 12]
    assert run("sad.u32", [1, U32], [U32, 1], [0, 0], operands=["d", "a", "b", "c"]).tolist() == [U32 - 1] * 2


def test_dp4a_dp2a():
    g = rng(16)
    a = [int(x) for x in g.integers(0, 1 << 32, 50, dtype=np.uint64)]
    b = [int(x) for x in g.integers(0, 1 << 32, 50, dtype=np.uint64)]
    c = [int(x) for x in g.integers(-(1 << 31), 1 << 31, 50)]

    def fields(v, n, size, signed):
        out = []
        for i in range(n):
            f = (v >> (size * i)) & ((1 << size) - 1)
            out.append(f - (1 << size) if signed and f >> (size - 1) else f)
        return out
    for at, bt in [("u32", "u32"), ("s32", "s32"), ("s32", "u32"), ("u32", "s32")]:
        ct = "u32" if at == bt == "u32" else "s32"
        cc = [x % (1 << 32) for x in c] if ct == "u32" else c
        got = run(f"dp4a.{at}.{bt}", a, b, cc, operands=["d", "a", "b", "c"]).tolist()
        ref = [wrap(z + sum(p * q for p, q in zip(fields(x, 4, 8, at == "s32"), fields(y, 4, 8, bt == "s32"))),
                    32, ct == "s32") for x, y, z in zip(a, b, cc)]
        assert got == ref
        for part, first in (("lo", 0), ("hi", 2)):
            got = run(f"dp2a.{part}.{at}.{bt}", a, b, cc, operands=["d", "a", "b", "c"]).tolist()
            ref = [wrap(z + sum(p * q for p, q in zip(fields(x, 2, 16, at == "s32"),
                                                      fields(y, 4, 8, bt == "s32")[first:first + 2])),
                        32, ct == "s32") for x, y, z in zip(a, b, cc)]
            assert got == ref


def test_unknown_modifiers_rejected():
    with pytest.raises(PTXError, match="carry"):
        compile_op(mk("mul.lo.cc.u32", "d", "a", "b"))
    with pytest.raises(PTXError) as e:
        compile_op(mk("mul.lo.u8", "d", "a", "b"))
    assert "test.ptx:1:1" in str(e.value) and "mul.lo.u8" in str(e.value)
