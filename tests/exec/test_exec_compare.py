"""setp / set / selp / slct / testp, including NaN ordering and predicate combining."""

import math

import numpy as np
import pytest

from golden.errors import PTXError
from golden.exec import compile_op
from golden.ptx.ir import Reg
from exec_helpers import mk, run

NAN = float("nan")
INF = float("inf")
SUB = float(np.float32(1e-40))  # an f32 subnormal


def test_setp_signed_vs_unsigned():
    a, b = [-1, 1, 5], [1, -1, 5]
    assert run("setp.lt.s32", a, b, operands=["p", "a", "b"]).tolist() == [True, False, False]
    assert run("setp.lo.u32", a, b, operands=["p", "a", "b"]).tolist() == [False, True, False]
    # lo/ls/hi/hs compare unsigned even on a signed type; .b types compare unsigned
    assert run("setp.hi.s32", a, b, operands=["p", "a", "b"]).tolist() == [True, False, False]
    assert run("setp.gt.b32", a, b, operands=["p", "a", "b"]).tolist() == [True, False, False]
    assert run("setp.ge.s32", a, b, operands=["p", "a", "b"]).tolist() == [False, True, True]
    assert run("setp.le.u64", [0], [0], operands=["p", "a", "b"]).tolist() == [True]
    assert run("setp.ls.u16", [3], operands=["p", "a", "3"]).tolist() == [True]
    assert run("setp.ne.s16", [3, 4], operands=["p", "a", "3"]).tolist() == [False, True]
    assert run("setp.eq.b32", [7], operands=["p", "a", "7"]).tolist() == [True]


FLOAT_CMP = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b and not (math.isnan(a) or math.isnan(b)),
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "equ": lambda a, b: a == b or math.isnan(a) or math.isnan(b),
    "neu": lambda a, b: a != b,
    "ltu": lambda a, b: a < b or math.isnan(a) or math.isnan(b),
    "leu": lambda a, b: a <= b or math.isnan(a) or math.isnan(b),
    "gtu": lambda a, b: a > b or math.isnan(a) or math.isnan(b),
    "geu": lambda a, b: a >= b or math.isnan(a) or math.isnan(b),
    "num": lambda a, b: not (math.isnan(a) or math.isnan(b)),
    "nan": lambda a, b: math.isnan(a) or math.isnan(b),
}


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("cmp", sorted(FLOAT_CMP))
def test_setp_float_ordered_unordered(t, cmp):
    vals = [NAN, -INF, -1.0, -0.0, 0.0, 1.0, INF]
    a = [x for x in vals for _ in vals]
    b = [y for _ in vals for y in vals]
    got = run(f"setp.{cmp}.{t}", a, b, operands=["p", "a", "b"]).tolist()
    assert got == [FLOAT_CMP[cmp](x, y) for x, y in zip(a, b)]


def test_setp_ordered_examples():
    assert run("setp.ne.f32", [NAN], [1.0], operands=["p", "a", "b"]).tolist() == [False]
    assert run("setp.neu.f32", [NAN], [1.0], operands=["p", "a", "b"]).tolist() == [True]
    assert run("setp.eq.f32", [-0.0], [0.0], operands=["p", "a", "b"]).tolist() == [True]


def test_setp_ftz():
    assert run("setp.eq.f32", [SUB], [0.0], operands=["p", "a", "b"]).tolist() == [False]
    assert run("setp.eq.ftz.f32", [SUB], [0.0], operands=["p", "a", "b"]).tolist() == [True]
    assert run("setp.gt.ftz.f32", [SUB], operands=["p", "a", "0f00000000"]).tolist() == [False]


def test_setp_two_destinations():
    p, q = run("setp.lt.s32", [1, 5], [3, 3], operands=["p|q", "a", "b"])
    assert p.tolist() == [True, False] and q.tolist() == [False, True]
    # NaN: both the ordered result and its complement
    p, q = run("setp.lt.f32", [NAN], [1.0], operands=["p|q", "a", "b"])
    assert p.tolist() == [False] and q.tolist() == [True]
    op = compile_op(mk("setp.lt.s32", "_|q", "a", "b"))
    assert op.dst_operands == (None, Reg("q"))


@pytest.mark.parametrize("boolop", ["and", "or", "xor"])
@pytest.mark.parametrize("negate", [False, True])
def test_setp_combining(boolop, negate):
    f = {"and": lambda x, y: x and y, "or": lambda x, y: x or y, "xor": lambda x, y: x != y}[boolop]
    a = [1, 1, 5, 5]
    c = [True, False, True, False]
    cc = [not x for x in c] if negate else c
    p, q = run(f"setp.lt.{boolop}.s32", a, c, operands=["p|q", "a", "3", "!c" if negate else "c"])
    t = [x < 3 for x in a]
    assert p.tolist() == [f(x, y) for x, y in zip(t, cc)]
    assert q.tolist() == [f(not x, y) for x, y in zip(t, cc)]
    single = run(f"setp.lt.{boolop}.s32", a, c, operands=["p", "a", "3", "!c" if negate else "c"])
    assert single.tolist() == p.tolist()


def test_set():
    assert run("set.lt.u32.s32", [1, 5], operands=["d", "a", "3"]).tolist() == [0xFFFFFFFF, 0]
    assert run("set.lt.s32.s32", [1, 5], operands=["d", "a", "3"]).tolist() == [-1, 0]
    assert run("set.gtu.f32.f32", [NAN, 5.0, 1.0], operands=["d", "a", "0f40000000"]).tolist() == [1.0, 1.0, 0.0]
    d = run("set.eq.and.u32.s32", [3, 3], [True, False], operands=["d", "a", "3", "c"])
    assert d.tolist() == [0xFFFFFFFF, 0]


def test_selp_slct():
    d = run("selp.b32", [True, False], operands=["d", "1", "0", "p"])
    assert d.dtype == np.uint32 and d.tolist() == [1, 0]
    d = run("selp.f32", [1.5, 2.5], [9.0, 8.0], [False, True], operands=["d", "a", "b", "p"])
    assert d.tolist() == [9.0, 2.5]
    d = run("selp.s64", [-1, -2], [True, False], operands=["d", "a", "7", "p"])
    assert d.tolist() == [-1, 7]
    d = run("slct.u32.s32", [1, 1, 1], [2, 2, 2], [-1, 0, 5], operands=["d", "a", "b", "c"])
    assert d.tolist() == [2, 1, 1]
    d = run("slct.f32.f32", [1.0] * 4, [2.0] * 4, [-0.0, NAN, -1.0, SUB], operands=["d", "a", "b", "c"])
    assert d.tolist() == [1.0, 2.0, 2.0, 1.0]
    d = run("slct.ftz.f32.f32", [1.0], [2.0], [-SUB], operands=["d", "a", "b", "c"])
    assert d.tolist() == [1.0]  # -subnormal flushes to -0.0 >= 0


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_testp(t):
    tiny = float(np.finfo(np.float32 if t == "f32" else np.float64).tiny)
    vals = [NAN, INF, -INF, 0.0, -0.0, 1.0, tiny, tiny / 4, -tiny / 4]
    expect = {
        "finite": [False, False, False, True, True, True, True, True, True],
        "infinite": [False, True, True, False, False, False, False, False, False],
        "number": [False, True, True, True, True, True, True, True, True],
        "notanumber": [True, False, False, False, False, False, False, False, False],
        "normal": [False, False, False, False, False, True, True, False, False],
        "subnormal": [False, False, False, False, False, False, False, True, True],
    }
    for op, want in expect.items():
        assert run(f"testp.{op}.{t}", vals, operands=["p", "a"]).tolist() == want, op


def test_compare_errors():
    with pytest.raises(PTXError):
        compile_op(mk("setp.equ.s32", "p", "a", "b"))     # unordered op on integers
    with pytest.raises(PTXError):
        compile_op(mk("setp.lo.f32", "p", "a", "b"))      # unsigned op on floats
    with pytest.raises(PTXError):
        compile_op(mk("setp.f32", "p", "a", "b"))         # no comparison
    with pytest.raises(PTXError):
        compile_op(mk("setp.lt.and.s32", "p", "a", "b"))  # missing c
