"""PTX type <-> numpy rules: DTYPE, read_as, write_as, imm_as."""

import numpy as np
import pytest

from golden.exec import DTYPE, imm_as, read_as, write_as
from golden.ptx.ir import Imm


def test_dtype_table():
    expect = {"pred": np.bool_, "b8": np.uint8, "u8": np.uint8, "s8": np.int8, "b16": np.uint16,
              "u16": np.uint16, "s16": np.int16, "f16": np.float16, "b32": np.uint32,
              "u32": np.uint32, "s32": np.int32, "f32": np.float32, "b64": np.uint64,
              "u64": np.uint64, "s64": np.int64, "f64": np.float64}
    assert {k: v.type for k, v in DTYPE.items()} == expect


def test_read_same_size_is_a_view():
    r = np.array([0x3F800000, 0xFFFFFFFF], np.uint32)
    f = read_as(r, "b32", "f32")
    assert np.shares_memory(f, r)
    assert f[0] == 1.0
    s = read_as(r, "b32", "s32")
    assert s[1] == -1 and np.shares_memory(s, r)
    assert read_as(r, "b32", "b32") is r


def test_read_wider_register_takes_low_bits():
    r = np.array([0x12345678, 0xFFFF8001], np.uint32)
    assert read_as(r, "b32", "u16").tolist() == [0x5678, 0x8001]
    assert read_as(r, "b32", "s16").tolist() == [0x5678, -0x7FFF]
    assert read_as(r, "b32", "u8").tolist() == [0x78, 0x01]
    r64 = np.array([0x1_0000_0005], np.uint64)
    assert read_as(r64, "b64", "u32").tolist() == [5]


def test_read_narrower_register_extends_by_type():
    r = np.array([0xFFFF], np.uint16)
    assert read_as(r, "b16", "u32").tolist() == [0xFFFF]
    assert read_as(r, "b16", "s32").tolist() == [-1]


def test_pred_conversions():
    p = np.array([True, False])
    assert read_as(p, "pred", "u32").tolist() == [1, 0]
    assert read_as(np.array([0, 7], np.uint32), "u32", "pred").tolist() == [False, True]
    assert write_as(p, "pred", "pred") is p


@pytest.mark.parametrize("op_t,reg_t,value,expect", [
    ("u8", "b16", [0xFF], [0x00FF]),          # ld.global.u8 %rs1 -> zero-extend
    ("s8", "b16", [-1], [0xFFFF]),            # ld.global.s8 %rs1 -> sign-extend
    ("s8", "b32", [-128], [0xFFFFFF80]),      # cvt.s8.s32 into a b32 register
    ("u16", "b32", [0x8000], [0x00008000]),
    ("s16", "b64", [-2], [0xFFFFFFFFFFFFFFFE]),
    ("s32", "b64", [-1], [0xFFFFFFFFFFFFFFFF]),
    ("u32", "b64", [0xFFFFFFFF], [0xFFFFFFFF]),
    ("f32", "b64", [1.0], [0x3F800000]),      # floats zero-extend their bits
    ("u64", "b32", [0x1_2345_6789], [0x2345_6789]),   # narrower register: low bits
])
def test_write_as_extension(op_t, reg_t, value, expect):
    dt = DTYPE[op_t]
    v = np.array(value, dtype=dt) if dt.kind == "f" else np.array(
        [x % (1 << (8 * dt.itemsize)) for x in value], dtype=f"u{dt.itemsize}").view(dt)
    out = write_as(v, op_t, reg_t)
    assert out.dtype == DTYPE[reg_t]
    assert out.view(f"u{out.dtype.itemsize}").tolist() == expect


def test_write_same_size_is_a_view():
    v = np.array([-1], np.int32)
    out = write_as(v, "s32", "b32")
    assert out.dtype == np.uint32 and out[0] == 0xFFFFFFFF and np.shares_memory(out, v)


def test_imm_integer_wraps():
    assert imm_as(Imm(-21845), "u16") == 0xAAAB          # mul.wide.u16 %r6, %rs2, -21845
    assert imm_as(Imm(-1), "u32") == 0xFFFFFFFF
    assert imm_as(Imm(0xFFFFFFFF), "s32") == -1
    assert imm_as(Imm(-1), "b64") == 0xFFFFFFFFFFFFFFFF
    assert imm_as(Imm(300), "u8") == 44
    assert imm_as(Imm(3), "f32") == np.float32(3.0)
    assert imm_as(Imm(1), "pred") == np.bool_(True)
    for t in ("u16", "s32", "f64", "pred"):
        assert imm_as(Imm(1), t).dtype == DTYPE[t]


def test_imm_float_bits():
    one = Imm(1.0, "f32", 0x3F800000)
    assert imm_as(one, "f32") == np.float32(1.0)
    assert imm_as(one, "b32") == 0x3F800000
    assert imm_as(one, "f64") == 1.0
    nan = Imm(float("nan"), "f32", 0x7FC00001)  # payload kept bit for bit
    assert int(imm_as(nan, "f32").view(np.uint32)) == 0x7FC00001
    d = Imm(0.1, "f64", 0x3FB999999999999A)
    assert imm_as(d, "f64") == 0.1
    assert imm_as(d, "f32") == np.float32(0.1)
    assert imm_as(d, "u64") == 0x3FB999999999999A
    assert imm_as(Imm(1.5, "float"), "f32") == np.float32(1.5)
