"""cvt (widths, saturation, rounding, NaN/out-of-range) and mov (copy, pack, unpack)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from golden.errors import PTXError
from golden.exec import compile_op, read_as, write_as
from golden.ptx.ir import Reg, SpecialReg
from exec_helpers import mk, random_floats, ref_round, rng, run

NAN, INF = float("nan"), float("inf")
I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
U64_MAX = (1 << 64) - 1


@pytest.mark.parametrize("text,src,want", [
    ("cvt.s64.s32", [-1, I32_MIN, 5], [-1, I32_MIN, 5]),            # sign extension
    ("cvt.u64.u32", [0xFFFFFFFF], [0xFFFFFFFF]),                      # zero extension
    ("cvt.u64.s32", [-1], [U64_MAX]),                                 # sign-extend then reinterpret
    ("cvt.s64.u32", [0xFFFFFFFF], [0xFFFFFFFF]),
    ("cvt.u32.u64", [0x1_2345_6789], [0x2345_6789]),                  # truncation
    ("cvt.s32.s64", [-(1 << 40) - 1], [-1]),
    ("cvt.u16.u32", [0x12345], [0x2345]),
    ("cvt.s8.s32", [0x1FF], [-1]),
    ("cvt.u8.s16", [-1], [255]),
    ("cvt.s16.u8", [200], [200]),
    ("cvt.s32.s8", [-100], [-100]),
    ("cvt.u32.u16", [0xFFFF], [0xFFFF]),
])
def test_cvt_int_widths(text, src, want):
    assert run(text, src, operands=["d", "a"]).tolist() == want


@pytest.mark.parametrize("text,src,want", [
    ("cvt.sat.u8.s32", [-5, 300, 7], [0, 255, 7]),
    ("cvt.sat.s8.s32", [-500, 500, -7], [-128, 127, -7]),
    ("cvt.sat.s32.u32", [0xFFFFFFFF, 5], [I32_MAX, 5]),
    ("cvt.sat.u32.s32", [-1, 5], [0, 5]),
    ("cvt.sat.u32.s64", [-(1 << 40), 1 << 40, 9], [0, 0xFFFFFFFF, 9]),
    ("cvt.sat.s64.u64", [U64_MAX, 3], [I64_MAX, 3]),
    ("cvt.sat.u16.u64", [1 << 33], [0xFFFF]),
])
def test_cvt_int_saturation(text, src, want):
    assert run(text, src, operands=["d", "a"]).tolist() == want


def test_cvt_through_register_widths():
    # cvt.u32.u16 %r1, %rs1 reads the low half of a b16 register; cvt.s8.s32 into a b32
    # register sign-extends (write_as)
    rs = np.array([0xFFFF], np.uint16)
    src = read_as(rs, "b16", "u16")
    assert run("cvt.u32.u16", src, operands=["d", "a"]).tolist() == [0xFFFF]
    d = run("cvt.s8.s32", [-3], operands=["d", "a"])
    assert write_as(d, "s8", "b32").tolist() == [0xFFFFFFFD]
    d = run("cvt.u8.u32", [0x1FD], operands=["d", "a"])
    assert write_as(d, "u8", "b32").tolist() == [0xFD]


@pytest.mark.parametrize("ft", ["f32", "f64"])
def test_cvt_float_to_int_rounding(ft):
    x = [0.5, 1.5, 2.5, -0.5, -1.5, 2.7, -2.7, -0.0]
    assert run(f"cvt.rni.s32.{ft}", x, operands=["d", "a"]).tolist() == [0, 2, 2, 0, -2, 3, -3, 0]
    assert run(f"cvt.rzi.s32.{ft}", x, operands=["d", "a"]).tolist() == [0, 1, 2, 0, -1, 2, -2, 0]
    assert run(f"cvt.rmi.s32.{ft}", x, operands=["d", "a"]).tolist() == [0, 1, 2, -1, -2, 2, -3, 0]
    assert run(f"cvt.rpi.s32.{ft}", x, operands=["d", "a"]).tolist() == [1, 2, 3, 0, -1, 3, -2, 0]
    assert run(f"cvt.s32.{ft}", x, operands=["d", "a"]).tolist() == [0, 1, 2, 0, -1, 2, -2, 0]  # default .rzi


@pytest.mark.parametrize("text,src,want", [
    ("cvt.rzi.s32.f32", [NAN, INF, -INF, 3e9, -3e9], [0, I32_MAX, I32_MIN, I32_MAX, I32_MIN]),
    ("cvt.rzi.u32.f32", [NAN, -1.0, -0.9, 3e9, 5e9], [0, 0, 0, 3000000000, 0xFFFFFFFF]),
    ("cvt.rzi.s64.f64", [1e19, -1e19, 2.0 ** 63, -(2.0 ** 63)], [I64_MAX, I64_MIN, I64_MAX, I64_MIN]),
    ("cvt.rzi.u64.f64", [1.8e19, 2.0 ** 64, -5.0, NAN], [18000000000000000000, U64_MAX, 0, 0]),
    ("cvt.rni.s8.f32", [127.4, 127.6, -128.6, NAN], [127, 127, -128, 0]),
    ("cvt.rzi.u16.f64", [65535.9, 70000.0], [65535, 65535]),
    ("cvt.rzi.s64.f32", [-1.5, 2.0 ** 62], [-1, 1 << 62]),
])
def test_cvt_float_to_int_saturates(text, src, want):
    assert run(text, src, operands=["d", "a"]).tolist() == want


def test_cvt_float_to_int_ftz():
    sub = float(np.float32(1e-40))
    assert run("cvt.rpi.s32.f32", [sub, -sub], operands=["d", "a"]).tolist() == [1, 0]
    assert run("cvt.rpi.ftz.s32.f32", [sub], operands=["d", "a"]).tolist() == [0]
    assert run("cvt.rmi.s32.f32", [-sub], operands=["d", "a"]).tolist() == [-1]


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_cvt_int_to_float_modes(mode):
    v = 16777217  # 2^24 + 1
    want = {"rn": [16777216, -16777216], "rz": [16777216, -16777216],
            "rm": [16777216, -16777218], "rp": [16777218, -16777216]}[mode]
    assert run(f"cvt.{mode}.f32.s32", [v, -v], operands=["d", "a"]).tolist() == want
    g = rng(51)
    for t, bits, dts in (("s64", 64, (np.float32, np.float64)), ("u64", 64, (np.float32, np.float64)),
                         ("u32", 32, (np.float32,)), ("s16", 16, (np.float32,))):
        lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if t[0] == "s" else (0, 1 << bits)
        vals = [int(x) for x in g.integers(lo, hi, 200, dtype=np.int64 if t[0] == "s" else np.uint64)]
        vals += [lo, hi - 1, (1 << 53) + 1, (1 << 24) + 1] if bits == 64 else [lo, hi - 1]
        for dt in dts:
            ft = "f32" if dt is np.float32 else "f64"
            got = run(f"cvt.{mode}.{ft}.{t}", vals, operands=["d", "a"])
            for v_, r in zip(vals, got):
                assert r == (0 if v_ == 0 else ref_round(Fraction(v_), mode, dt)), (t, ft, v_)


def test_cvt_u64_to_f32_top():
    assert run("cvt.rn.f32.u64", [U64_MAX], operands=["d", "a"]).tolist() == [2.0 ** 64]
    assert run("cvt.rz.f32.u64", [U64_MAX], operands=["d", "a"]).tolist() == [2.0 ** 64 - 2.0 ** 40]
    assert run("cvt.rp.f64.s64", [(1 << 53) + 1], operands=["d", "a"]).tolist() == [2.0 ** 53 + 2]
    assert run("cvt.f32.s32", [3], operands=["d", "a"]).tolist() == [3.0]   # default .rn


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_cvt_f64_to_f32(mode):
    g = rng(52)
    x = np.concatenate([random_floats(g, 300, np.float64, -160, 130), [1e39, -1e39]])
    got = run(f"cvt.{mode}.f32.f64", x, operands=["d", "a"])
    for v, r in zip(x, got):
        assert r == ref_round(Fraction(float(v)), mode, np.float32), (v, mode)
    d = run(f"cvt.{mode}.f32.f64", [NAN, INF, -0.0], operands=["d", "a"])
    assert math.isnan(d[0]) and d[1] == INF and d[2] == 0 and np.signbit(d[2])


def test_cvt_float_widening_and_integral():
    sub = float(np.float32(1e-40))
    assert run("cvt.f64.f32", [0.1, sub], operands=["d", "a"]).tolist() == [float(np.float32(0.1)), sub]
    assert run("cvt.ftz.f64.f32", [sub], operands=["d", "a"]).tolist() == [0.0]
    x = [0.5, 1.5, -2.5, 2.7, -0.3]
    assert run("cvt.rni.f32.f32", x, operands=["d", "a"]).tolist() == [0.0, 2.0, -2.0, 3.0, -0.0]
    assert run("cvt.rmi.f32.f32", x, operands=["d", "a"]).tolist() == [0.0, 1.0, -3.0, 2.0, -1.0]
    assert run("cvt.rpi.f64.f64", x, operands=["d", "a"]).tolist() == [1.0, 2.0, -2.0, 3.0, -0.0]
    assert run("cvt.rzi.f32.f32", [-2.7], operands=["d", "a"]).tolist() == [-2.0]
    assert run("cvt.sat.f32.f32", [-1.0, 0.5, 7.0, NAN], operands=["d", "a"]).tolist() == [0.0, 0.5, 1.0, 0.0]
    assert run("cvt.ftz.f32.f32", [sub], operands=["d", "a"]).tolist() == [0.0]
    assert run("cvt.rni.f32.f64", [2.5e10 + 0.5], operands=["d", "a"]).tolist() == [float(np.float32(2.5e10))]


def test_cvt_f16():
    d = run("cvt.rn.f16.f32", [1.0, 65504.0, 70000.0, 1e-8, 0.1], operands=["d", "a"])
    assert d.dtype == np.float16
    assert d.tolist() == [1.0, 65504.0, INF, float(np.float16(1e-8)), float(np.float16(0.1))]
    assert run("cvt.rz.f16.f32", [70000.0], operands=["d", "a"]).tolist() == [65504.0]
    assert run("cvt.f32.f16", [0.1], operands=["d", "a"]).tolist() == [float(np.float16(0.1))]
    assert run("cvt.rzi.s32.f16", [-2.5], operands=["d", "a"]).tolist() == [-2]
    assert run("cvt.rn.f16.s32", [2049], operands=["d", "a"]).tolist() == [2048.0]
    assert run("cvt.rp.f16.s32", [2049], operands=["d", "a"]).tolist() == [2050.0]


def test_cvt_errors():
    for text in ("cvt.rn.s32.f32", "cvt.rzi.f32.s32", "cvt.rn.s32.s16", "cvt.ftz.s32.s16",
                 "cvt.rn.bf16.f32", "cvt.s32", "cvt.rn.rz.f32.f64"):
        with pytest.raises(PTXError):
            compile_op(mk(text, "d", "a"))


# ----------------------------------------------------------------------------- mov

def test_mov_copies_registers_and_immediates():
    src = np.array([1, 2, 3], np.uint32)
    d = run("mov.u32", src, operands=["d", "a"])
    assert d.tolist() == [1, 2, 3] and not np.shares_memory(d, src)
    d = run("mov.f32", operands=["d", "0f3F800000"])
    assert d.shape == (1,) and d.tolist() == [1.0]
    d = run("mov.b32", operands=["d", "0f3F800000"])
    assert d.tolist() == [0x3F800000]
    assert run("mov.u64", operands=["d", "-1"]).tolist() == [U64_MAX]
    assert run("mov.pred", operands=["p", "1"]).tolist() == [True]


def test_mov_pack_unpack():
    lo, hi = [0x89ABCDEF, 1], [0x01234567, 0xFFFFFFFF]
    d = run("mov.b64", lo, hi, operands=["d", "{a, b}"])
    assert d.dtype == np.uint64 and d.tolist() == [0x0123456789ABCDEF, 0xFFFFFFFF00000001]
    x, y = run("mov.b64", [0x0123456789ABCDEF], operands=["{x, y}", "d"])
    assert x.dtype == np.uint32 and x.tolist() == [0x89ABCDEF] and y.tolist() == [0x01234567]
    # double -> hi/lo words, as nvcc does for double-precision bit tricks
    words = run("mov.b64", np.array([1.0]).view(np.uint64), operands=["{x, y}", "d"])
    assert [w.tolist() for w in words] == [[0], [0x3FF00000]]
    d = run("mov.b32", [0x1234], [0xABCD], operands=["d", "{a, b}"])
    assert d.tolist() == [0xABCD1234]
    h = run("mov.b32", [0xABCD1234], operands=["{x, y}", "d"])
    assert h[0].dtype == np.uint16 and [v.tolist() for v in h] == [[0x1234], [0xABCD]]
    op = compile_op(mk("mov.b64", "{_, y}", "d"))
    assert op.dst_operands == (None, Reg("y")) and op.dst_types == ("b32", "b32")
    q = run("mov.b64", [0x0807060504030201], operands=["{a, b, c, e}", "d"])
    assert [v.tolist()[0] for v in q] == [0x0201, 0x0403, 0x0605, 0x0807]


def test_mov_special_register_is_the_executors():
    inst = mk("mov.u32", "d", "a")
    inst.operands = (Reg("d"), SpecialReg("tid", "x"))
    with pytest.raises(PTXError, match="SIMT core"):
        compile_op(inst)
