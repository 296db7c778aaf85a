"""Test helpers for golden.exec: build Instruction objects without the PTX parser and run
their compiled form on lane arrays.

``mk("setp.lt.and.f32", "p|q", "a", "b", "!c")`` builds the instruction; operand strings
are ``name`` (a register), ``_`` (sink), an integer, ``0fXXXXXXXX`` / ``0dXXXX...``,
a decimal float ``1.5``, ``{a, b}`` (vector), ``p|q`` (two destinations) or ``!p`` (a
negated predicate source).
"""

from __future__ import annotations

import struct
import warnings
from fractions import Fraction

import numpy as np

from golden.exec import DTYPE, compile_op, imm_as
from golden.ptx.ir import TYPE_SUFFIXES, Imm, Instruction, PredGuard, Reg, SourceLoc, Vec

LOC = SourceLoc("test.ptx", 1, 1)


def operand(text: str):
    text = text.strip()
    if text == "_":
        return None
    if text.startswith("{"):
        return Vec(tuple(operand(e) for e in text[1:-1].split(",")))
    if "|" in text:
        return Vec(tuple(operand(e) for e in text.split("|")))
    if text.startswith("!"):
        return PredGuard(Reg(text[1:]), negated=True)
    low = text.lower()
    if low.startswith("0f") and len(text) == 10:
        bits = int(text[2:], 16)
        return Imm(float(np.uint32(bits).view(np.float32)), "f32", bits)
    if low.startswith("0d") and len(text) == 18:
        bits = int(text[2:], 16)
        return Imm(struct.unpack("<d", struct.pack("<Q", bits))[0], "f64", bits)
    try:
        return Imm(int(text, 0), "int")
    except ValueError:
        pass
    try:
        return Imm(float(text), "float")
    except ValueError:
        return Reg(text)


def mk(opcode_mods: str, *operands: str) -> Instruction:
    parts = opcode_mods.split(".")
    mods = tuple(parts[1:])
    text = f"{opcode_mods} {', '.join(operands)};"
    return Instruction(parts[0], mods, tuple(m for m in mods if m in TYPE_SUFFIXES),
                       tuple(operand(o) for o in operands), None, 0, LOC, text)


def lanes(values, t: str) -> np.ndarray:
    """Python values as a lane array of PTX type ``t`` (integers wrap to the width)."""
    dt = DTYPE[t]
    if dt.kind in "iu":
        bits = 8 * dt.itemsize
        u = np.array([int(v) % (1 << bits) for v in values], dtype=f"u{dt.itemsize}")
        return u.view(dt)
    return np.array(values, dtype=dt)


def run(inst: Instruction | str, *regs, operands=None):
    """Compile ``inst`` and run it; ``regs`` are the values of the register sources in
    order (lists or arrays, converted to each source's type). Checks the result dtypes,
    that all results have the lane count, and that no numpy warning escapes. Returns the
    single result or a tuple of results."""
    if isinstance(inst, str):
        inst = mk(inst, *operands)
    op = compile_op(inst)
    vals, k = [], 0
    for o, t in zip(op.src_operands, op.src_types):
        if isinstance(o, Imm):
            vals.append(imm_as(o, t))
        else:
            v = regs[k]
            k += 1
            vals.append(v if isinstance(v, np.ndarray) and v.dtype == DTYPE[t] else lanes(v, t))
    assert k == len(regs), "more register values than register sources"
    n = max([len(v) for v in vals if isinstance(v, np.ndarray)] or [1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = op.fn(*vals)
    assert isinstance(res, tuple) and len(res) == len(op.dst_types)
    for r, t in zip(res, op.dst_types):
        assert isinstance(r, np.ndarray), type(r)
        assert r.dtype == DTYPE[t], (r.dtype, t)
        assert r.shape == (n,), (r.shape, n)
    return res[0] if len(res) == 1 else res


def bits32(x) -> np.ndarray:
    return np.asarray(x, np.float32).view(np.uint32)


def bits64(x) -> np.ndarray:
    return np.asarray(x, np.float64).view(np.uint64)


# ----------------------------------------------------------------------------- reference rounding

def _neighbours(r, dtype):
    return [np.nextafter(r, dtype.type(-np.inf)), r, np.nextafter(r, dtype.type(np.inf))]


def ref_round(x: Fraction, mode: str, dtype=np.float32):
    """Brute-force reference: the float of ``dtype`` that rounding ``mode`` picks for the
    exact rational ``x`` (finite, non-zero, in range), by checking the three candidates
    around a nearby float with exact rational comparisons."""
    dtype = np.dtype(dtype)
    info = np.finfo(dtype)
    if abs(x) > Fraction(float(info.max)):  # overflow rules (IEEE 754 7.4)
        sign = 1 if x > 0 else -1
        edge = Fraction(2) ** (info.maxexp) - Fraction(2) ** (info.maxexp - info.nmant - 2)
        to_inf = {"rn": abs(x) >= edge, "rz": False, "rm": sign < 0, "rp": sign > 0}[mode]
        return dtype.type(sign * (np.inf if to_inf else info.max))
    approx = dtype.type(float(x))
    cands = [c for c in _neighbours(approx, dtype) if np.isfinite(c)]
    cands = sorted(set(float(c) for c in cands))
    fr = [Fraction(c) for c in cands]
    if mode == "rm":
        return dtype.type(max(c for c, f in zip(cands, fr) if f <= x))
    if mode == "rp":
        return dtype.type(min(c for c, f in zip(cands, fr) if f >= x))
    if mode == "rz":
        if x > 0:
            return dtype.type(max(c for c, f in zip(cands, fr) if f <= x))
        return dtype.type(min(c for c, f in zip(cands, fr) if f >= x))
    best = min(abs(f - x) for f in fr)
    ties = [c for c, f in zip(cands, fr) if abs(f - x) == best]
    if len(ties) == 1:
        return dtype.type(ties[0])
    ubits = {4: np.uint32, 8: np.uint64}[dtype.itemsize]
    even = [c for c in ties if int(np.asarray(c, dtype).view(ubits)) % 2 == 0]
    return dtype.type(even[0])


def rng(seed: int) -> np.random.Generator:
    """Seeded generator (the seed is part of each test, so failures reproduce)."""
    return np.random.default_rng(seed)


def random_floats(g: np.random.Generator, n: int, dtype, lo_exp: int, hi_exp: int) -> np.ndarray:
    """Random finite floats of mixed signs with exponents in [lo_exp, hi_exp)."""
    mant = g.uniform(1.0, 2.0, n)
    exp = g.integers(lo_exp, hi_exp, n)
    sign = np.where(g.random(n) < 0.5, -1.0, 1.0)
    return (sign * np.ldexp(mant, exp)).astype(dtype)
