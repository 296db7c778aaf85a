"""Carry-flag arithmetic (add.cc addc sub.cc subc mad.cc madc) in multi-word chains,
checked against Python big integers. The chain runner plays the executor: the carry
flag lives in the CARRY_REG pseudo-register like any other register."""

import numpy as np
import pytest

from golden.exec import CARRY_REG, CARRY_TYPE, compile_op, imm_as, read_as, write_as
from golden.ptx.ir import Imm
from exec_helpers import lanes, mk, rng

N = 64


def run_chain(program, regs, reg_types):
    """Execute ``program`` (list of (opcode.mods, operands...)) over register dict ``regs``."""
    for head, *ops in program:
        op = compile_op(mk(head, *ops))
        srcs = []
        for o, t in zip(op.src_operands, op.src_types):
            if isinstance(o, Imm):
                srcs.append(imm_as(o, t))
            else:
                srcs.append(read_as(regs[o.name], reg_types[o.name], t))
        for d, t, v in zip(op.dst_operands, op.dst_types, op.fn(*srcs)):
            if d is not None:
                regs[d.name] = write_as(v, t, reg_types[d.name])
    return regs


def words(values, n):
    return [lanes([(v >> (32 * i)) & 0xFFFFFFFF for v in values], "u32") for i in range(n)]


def join(ws):
    return [sum(int(w[k]) << (32 * i) for i, w in enumerate(ws)) for k in range(len(ws[0]))]


def test_carry_register_in_operands():
    op = compile_op(mk("addc.cc.u32", "d", "a", "b"))
    assert op.src_operands[-1] == CARRY_REG and op.src_types[-1] == CARRY_TYPE == "pred"
    assert op.dst_operands[-1] == CARRY_REG
    op = compile_op(mk("add.cc.s32", "d", "a", "b"))
    assert CARRY_REG not in op.src_operands and op.dst_operands[-1] == CARRY_REG
    op = compile_op(mk("madc.hi.u32", "d", "a", "b", "0"))
    assert op.src_operands[-1] == CARRY_REG and op.dst_operands == (op.dst_operands[0],)


def _types(names, t="b32"):
    out = {n: t for n in names}
    out[CARRY_REG.name] = CARRY_TYPE
    return out


@pytest.mark.parametrize("sub", [False, True])
def test_128bit_add_sub_chain(sub):
    g = rng(71)
    x = [int.from_bytes(g.bytes(16), "little") for _ in range(N)] + [(1 << 128) - 1, 0, 1]
    y = [int.from_bytes(g.bytes(16), "little") for _ in range(N)] + [1, 1, (1 << 128) - 1]
    regs = {}
    for i, w in enumerate(words(x, 4)):
        regs[f"a{i}"] = w
    for i, w in enumerate(words(y, 4)):
        regs[f"b{i}"] = w
    first, rest = ("sub.cc.u32", "subc.cc.u32") if sub else ("add.cc.u32", "addc.cc.u32")
    last = "subc.u32" if sub else "addc.u32"
    prog = [(first, "r0", "a0", "b0"), (rest, "r1", "a1", "b1"), (rest, "r2", "a2", "b2"),
            (last, "r3", "a3", "b3")]
    names = [f"{p}{i}" for p in "abr" for i in range(4)]
    run_chain(prog, regs, _types(names))
    want = [((a - b) if sub else (a + b)) % (1 << 128) for a, b in zip(x, y)]
    assert join([regs[f"r{i}"] for i in range(4)]) == want


def test_64x64_to_128_multiply_chain():
    # the PTX ISA's madc example: [r3,r2,r1,r0] = [r5,r4] * [r7,r6]
    g = rng(72)
    x = [int(v) for v in g.integers(0, 1 << 64, N, dtype=np.uint64)] + [(1 << 64) - 1]
    y = [int(v) for v in g.integers(0, 1 << 64, N, dtype=np.uint64)] + [(1 << 64) - 1]
    regs = {}
    regs["r4"], regs["r5"] = words(x, 2)
    regs["r6"], regs["r7"] = words(y, 2)
    prog = [("mul.lo.u32", "r0", "r4", "r6"), ("mul.hi.u32", "r1", "r4", "r6"),
            ("mad.lo.cc.u32", "r1", "r5", "r6", "r1"), ("madc.hi.u32", "r2", "r5", "r6", "0"),
            ("mad.lo.cc.u32", "r1", "r4", "r7", "r1"), ("madc.hi.cc.u32", "r2", "r4", "r7", "r2"),
            ("addc.u32", "r3", "0", "0"), ("mad.lo.cc.u32", "r2", "r5", "r7", "r2"),
            ("madc.hi.u32", "r3", "r5", "r7", "r3")]
    run_chain(prog, regs, _types([f"r{i}" for i in range(8)]))
    assert join([regs[f"r{i}"] for i in range(4)]) == [a * b for a, b in zip(x, y)]


def test_64bit_carry_types():
    g = rng(73)
    x = [int(v) for v in g.integers(0, 1 << 64, N, dtype=np.uint64)]
    y = [int(v) for v in g.integers(0, 1 << 64, N, dtype=np.uint64)]
    regs = {"a0": lanes(x, "u64"), "a1": lanes(y, "u64"), "b0": lanes(y, "u64"), "b1": lanes(x, "u64")}
    prog = [("add.cc.s64", "r0", "a0", "b0"), ("addc.s64", "r1", "a1", "b1")]
    run_chain(prog, regs, _types(["a0", "a1", "b0", "b1", "r0", "r1"], "b64"))
    got = [int(lo) + (int(hi) << 64) for lo, hi in zip(regs["r0"], regs["r1"])]
    assert got == [(a + (b << 64) + b + (a << 64)) % (1 << 128) for a, b in zip(x, y)]
    regs = {"a": lanes(x, "u64"), "b": lanes(y, "u64"), "c": lanes(y, "u64")}
    run_chain([("mad.hi.cc.u64", "d", "a", "b", "c"), ("addc.u64", "e", "0", "0")], regs,
              _types(["a", "b", "c", "d", "e"], "b64"))
    s = [((a * b) >> 64) + c for a, b, c in zip(x, y, y)]
    assert [int(v) for v in regs["d"]] == [v % (1 << 64) for v in s]
    assert [int(v) for v in regs["e"]] == [v >> 64 for v in s]
