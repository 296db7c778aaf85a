"""Bitwise, shift, bit-field, permute and counting instructions against Python
transcriptions of the PTX ISA pseudo-code."""

import numpy as np
import pytest

from golden.errors import PTXError
from golden.exec import compile_op
from exec_helpers import mk, rng, run

U32 = (1 << 32) - 1


def rand_u(g, n, bits):
    edge = [0, 1, (1 << bits) - 1, 1 << (bits - 1), (1 << (bits - 1)) - 1]
    return edge + [int(x) for x in g.integers(0, 1 << bits, n, dtype=np.uint64)]


def signed(v, bits):
    return v - (1 << bits) if v >> (bits - 1) else v


def test_logic_and_predicates():
    a, b = [0xF0F0F0F0, 0x12345678], [0xFF00FF00, 0xFFFFFFFF]
    assert run("and.b32", a, b, operands=["d", "a", "b"]).tolist() == [x & y for x, y in zip(a, b)]
    assert run("or.b32", a, b, operands=["d", "a", "b"]).tolist() == [x | y for x, y in zip(a, b)]
    assert run("xor.b32", a, b, operands=["d", "a", "b"]).tolist() == [x ^ y for x, y in zip(a, b)]
    assert run("not.b32", a, operands=["d", "a"]).tolist() == [U32 ^ x for x in a]
    assert run("and.b64", [-1], operands=["d", "a", "0xFF"]).tolist() == [0xFF]
    assert run("cnot.b32", [0, 5], operands=["d", "a"]).tolist() == [1, 0]
    p, q = [True, True, False, False], [True, False, True, False]
    assert run("and.pred", p, q, operands=["d", "a", "b"]).tolist() == [True, False, False, False]
    assert run("or.pred", p, q, operands=["d", "a", "b"]).tolist() == [True, True, True, False]
    assert run("xor.pred", p, q, operands=["d", "a", "b"]).tolist() == [False, True, True, False]
    assert run("not.pred", p, operands=["d", "a"]).tolist() == [False, False, True, True]
    assert run("and.pred", p, q, operands=["d", "a", "!b"]).tolist() == [False, True, False, False]
    assert run("mov.pred", operands=["d", "0"]).tolist() == [False]


@pytest.mark.parametrize("t", ["b16", "b32", "b64", "u32", "s16", "s32", "s64", "u64"])
def test_shifts_clamp_large_amounts(t):
    bits = int(t[1:])
    is_s = t[0] == "s"
    g = rng(21)
    a = rand_u(g, 30, bits)
    amounts = [0, 1, bits - 1, bits, bits + 1, 255, U32]
    for n in amounts:
        left = run(f"shl.b{bits}", a, [n] * len(a), operands=["d", "a", "n"]).tolist()
        left_imm = run(f"shl.b{bits}", a, operands=["d", "a", str(n)]).tolist()
        assert left == left_imm == [(x << n) & ((1 << bits) - 1) if n < bits else 0 for x in a]
        right = run(f"shr.{t}", a, [n] * len(a), operands=["d", "a", "n"]).tolist()
        right_imm = run(f"shr.{t}", a, operands=["d", "a", str(n)]).tolist()
        if is_s:
            ref = [signed(x, bits) >> min(n, bits - 1) for x in a]   # sign fill
        else:
            ref = [x >> n if n < bits else 0 for x in a]
        assert right == right_imm == ref


def test_shr_s32_sign_fill_example():
    assert run("shr.s32", [-8, -8, 8], [1, 40, 40], operands=["d", "a", "n"]).tolist() == [-4, -1, 0]


@pytest.mark.parametrize("direction", ["l", "r"])
@pytest.mark.parametrize("mode", ["wrap", "clamp"])
def test_shf_funnel(direction, mode):
    g = rng(22)
    a, b = rand_u(g, 40, 32), rand_u(g, 40, 32)[::-1]
    for c in [0, 1, 16, 31, 32, 33, 63, 64, U32]:
        n = min(c, 32) if mode == "clamp" else c & 31
        x = (b_ << 32 for b_ in b)
        if direction == "l":
            ref = [((y | x_) << n >> 32) & U32 for x_, y in zip(a, x)]
        else:
            ref = [((y | x_) >> n) & U32 for x_, y in zip(a, x)]
        got = run(f"shf.{direction}.{mode}.b32", a, b, [c] * len(a), operands=["d", "a", "b", "c"]).tolist()
        assert got == ref, (c, direction, mode)


def ref_bfe(a, b, c, t):
    msb = 31 if t in ("u32", "s32") else 63
    pos, ln = b & 0xFF, c & 0xFF
    sbit = 0 if t[0] == "u" or ln == 0 else (a >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(msb + 1):
        bit = (a >> (pos + i)) & 1 if (i < ln and pos + i <= msb) else sbit
        d |= bit << i
    return signed(d, msb + 1) if t[0] == "s" else d


@pytest.mark.parametrize("t", ["u32", "s32", "u64", "s64"])
def test_bfe_against_pseudocode(t):
    g = rng(23)
    bits = int(t[1:])
    vals = rand_u(g, 12, bits)
    cases = [(p, n) for p in (0, 1, 7, bits - 8, bits - 1, bits, bits + 5, 255, 256 + 3)
             for n in (0, 1, 8, bits - 1, bits, bits + 7, 255)]
    a = [v for v in vals for _ in cases]
    pos = [p for _ in vals for p, _ in cases]
    ln = [n for _ in vals for _, n in cases]
    got = run(f"bfe.{t}", a, pos, ln, operands=["d", "a", "b", "c"]).tolist()
    assert got == [ref_bfe(x, p, n, t) for x, p, n in zip(a, pos, ln)]


@pytest.mark.parametrize("t", ["u32", "s32", "u64", "s64"])
def test_bfe_immediate_field(t):
    # constant position/length (the usual nvcc form) takes a separately compiled path
    g = rng(29)
    bits = int(t[1:])
    vals = rand_u(g, 20, bits)
    for p in (0, 1, 7, bits - 8, bits - 1, bits, 255, 259):
        for n in (0, 1, 8, bits - 1, bits, 255):
            got = run(f"bfe.{t}", vals, operands=["d", "a", str(p), str(n)]).tolist()
            assert got == [ref_bfe(x, p, n, t) for x in vals], (p, n)


def test_bfe_examples():
    assert run("bfe.u32", [0xABCD1234], operands=["d", "a", "8", "8"]).tolist() == [0x12]
    assert run("bfe.s32", [0x0000F000], operands=["d", "a", "12", "4"]).tolist() == [-1]
    assert run("bfe.s32", [0x80000000], operands=["d", "a", "40", "3"]).tolist() == [-1]  # pos > msb


def ref_bfi(f, base, c, d, bits):
    pos, ln = c & 0xFF, d & 0xFF
    out = base
    for i in range(ln):
        if pos + i > bits - 1:
            break
        out = (out & ~(1 << (pos + i))) | (((f >> i) & 1) << (pos + i))
    return out & ((1 << bits) - 1)


@pytest.mark.parametrize("t", ["b32", "b64"])
def test_bfi_against_pseudocode(t):
    g = rng(24)
    bits = int(t[1:])
    f, base = rand_u(g, 6, bits), rand_u(g, 6, bits)[::-1]
    cases = [(p, n) for p in (0, 3, bits - 4, bits - 1, bits, 255, 300) for n in (0, 1, 5, bits, 255)]
    ff = [x for x in f for _ in cases]
    bb = [x for x in base for _ in cases]
    pp = [p for _ in f for p, _ in cases]
    nn = [n for _ in f for _, n in cases]
    got = run(f"bfi.{t}", ff, bb, pp, nn, operands=["d", "f", "b", "c", "n"]).tolist()
    assert got == [ref_bfi(*x, bits) for x in zip(ff, bb, pp, nn)]


@pytest.mark.parametrize("t", ["u32", "s32", "u64", "s64"])
def test_bfind_popc_clz(t):
    g = rng(25)
    bits = int(t[1:])
    vals = rand_u(g, 60, bits) + [1 << k for k in range(bits)]

    def ref(v, shiftamt):
        if t[0] == "s" and v >> (bits - 1):
            v = ~v & ((1 << bits) - 1)
        if v == 0:
            return U32
        p = v.bit_length() - 1
        return bits - 1 - p if shiftamt else p
    assert run(f"bfind.{t}", vals, operands=["d", "a"]).tolist() == [ref(v, False) for v in vals]
    assert run(f"bfind.shiftamt.{t}", vals, operands=["d", "a"]).tolist() == [ref(v, True) for v in vals]
    assert run(f"popc.b{bits}", vals, operands=["d", "a"]).tolist() == [bin(v).count("1") for v in vals]
    assert run(f"clz.b{bits}", vals, operands=["d", "a"]).tolist() == [bits - v.bit_length() for v in vals]
    rev = run(f"brev.b{bits}", vals, operands=["d", "a"]).tolist()
    assert rev == [int(f"{v:0{bits}b}"[::-1], 2) for v in vals]


# PTX ISA prmt table, transcribed row by row as printed: (d.b3, d.b2, d.b1, d.b0)
PRMT_TABLE = {
    "f4e": [(3, 2, 1, 0), (4, 3, 2, 1), (5, 4, 3, 2), (6, 5, 4, 3)],
    "b4e": [(5, 6, 7, 0), (6, 7, 0, 1), (7, 0, 1, 2), (0, 1, 2, 3)],
    "rc8": [(0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)],
    "ecl": [(3, 2, 1, 0), (3, 2, 1, 1), (3, 2, 2, 2), (3, 3, 3, 3)],
    "ecr": [(0, 0, 0, 0), (1, 1, 1, 0), (2, 2, 1, 0), (3, 2, 1, 0)],
    "rc16": [(1, 0, 1, 0), (3, 2, 3, 2), (1, 0, 1, 0), (3, 2, 3, 2)],
}


def ref_prmt(a, b, c, mode):
    src = [(((b << 32) | a) >> (8 * i)) & 0xFF for i in range(8)]
    d = 0
    for k in range(4):
        if mode is None:
            ctl = (c >> (4 * k)) & 0xF
            byte = src[ctl & 7]
            if ctl & 8:
                byte = 0xFF if byte & 0x80 else 0
        else:
            byte = src[PRMT_TABLE[mode][c & 3][3 - k]]
        d |= byte << (8 * k)
    return d


@pytest.mark.parametrize("mode", [None, "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"])
def test_prmt(mode):
    g = rng(26)
    a, b = rand_u(g, 40, 32), rand_u(g, 40, 32)[::-1]
    c = [int(x) for x in g.integers(0, 1 << 32, len(a), dtype=np.uint64)]
    name = "prmt.b32" + ("" if mode is None else f".{mode}")
    got = run(name, a, b, c, operands=["d", "a", "b", "c"]).tolist()
    assert got == [ref_prmt(*x, mode) for x in zip(a, b, c)]


@pytest.mark.parametrize("mode", [None, "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"])
def test_prmt_immediate_selector(mode):
    g = rng(30)
    a, b = rand_u(g, 20, 32), rand_u(g, 20, 32)[::-1]
    name = "prmt.b32" + ("" if mode is None else f".{mode}")
    for c in (0x3210, 0x7531, 0x0123, 0x8888, 0xFEDC, 1, 2, 3, 0xFFFF1234):
        got = run(name, a, b, operands=["d", "a", "b", str(c)]).tolist()
        assert got == [ref_prmt(x, y, c, mode) for x, y in zip(a, b)], hex(c)


def test_prmt_examples():
    # cub::PRMT doc example: a=0x03020100, b=0x07060504, index 0x7531 -> 0x07050301
    assert run("prmt.b32", [0x03020100], [0x07060504], operands=["d", "a", "b", "0x7531"]).tolist() == [0x07050301]
    assert run("prmt.b32", [0x00008000], [0], operands=["d", "a", "b", "0x9999"]).tolist() == [0xFFFFFFFF]


def test_lop3_every_table():
    g = rng(27)
    a, b, c = (rand_u(g, 20, 32) for _ in range(3))
    for lut in range(256):
        got = run("lop3.b32", a, b, c, operands=["d", "a", "b", "c", str(lut)]).tolist()
        ref = []
        for x, y, z in zip(a, b, c):
            r = 0
            for i in range(32):
                idx = (((x >> i) & 1) << 2) | (((y >> i) & 1) << 1) | ((z >> i) & 1)
                r |= ((lut >> idx) & 1) << i
            ref.append(r)
        assert got == ref, lut


def ref_bmsk(a, b, mode):
    a1, b1 = a & 31, b & 31
    mask0 = (U32 << a1) & U32
    s = a1 + b1
    mask1 = (U32 << s) & U32 if s < 32 else 0
    kill = s >= 32
    if mode == "clamp":
        if a >= 32:
            mask0 = 0
            kill = True
        if b >= 32:
            kill = True
    if kill:
        mask1 = 0
    elif b1 == 0:
        mask1 = U32
    return mask0 & ~mask1 & U32


def ref_szext(a, b, mode, t):
    b1 = b & 31
    too_large = b >= 32 and mode == "clamp"
    mask = 0 if too_large else (U32 << b1) & U32
    sbit = 0 if (b1 == 0 or too_large or t != "s32") else (a >> ((b1 - 1) & 31)) & 1
    d = (a & ~mask & U32) | (mask if sbit else 0)
    return signed(d, 32) if t == "s32" else d


@pytest.mark.parametrize("mode", ["clamp", "wrap"])
def test_bmsk_szext(mode):
    vals = [0, 1, 2, 5, 16, 31, 32, 33, 40, 255]
    a = [x for x in vals for _ in vals]
    b = [y for _ in vals for y in vals]
    assert run(f"bmsk.{mode}.b32", a, b, operands=["d", "a", "b"]).tolist() == \
        [ref_bmsk(x, y, mode) for x, y in zip(a, b)]
    assert run("bmsk.wrap.b32", operands=["d", "1", "2"]).tolist() == [6]   # PTX ISA example
    g = rng(28)
    aa = rand_u(g, 30, 32)
    for t in ("u32", "s32"):
        for n in (0, 1, 8, 31, 32, 33):
            got = run(f"szext.{mode}.{t}", aa, [n] * len(aa), operands=["d", "a", "b"]).tolist()
            assert got == [ref_szext(x, n, mode, t) for x in aa]


def test_bit_ops_reject_bad_types():
    for text in ("shl.u32", "popc.u32", "bfe.b32", "prmt.b64", "shf.l.b32"):
        with pytest.raises(PTXError):
            compile_op(mk(text, "d", "a", "b", "c"))
