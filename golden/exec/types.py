"""PTX fundamental types as numpy dtypes, and the operand-size rules between them.

A register's lanes are stored with the numpy dtype of the register's *declared* type
(``.reg .b32 %r<9>`` -> ``uint32``). An instruction reads and writes its operands as the
*instruction* type. PTX allows the two to differ (PTX ISA, "Operand Size Exceeding
Instruction-Type Size" and the relaxed type-checking rules):

* same size: the bits are reinterpreted (``mov.b32 %r1, %f1``, ``add.s32`` on a ``.b32``
  register) -- done with ``ndarray.view``, which copies nothing;
* source register wider than the instruction type: the low bits are used (``cvt.u32.u16
  %r1, %rs1`` with a ``.b32`` source reads its low 16 bits);
* destination register wider than the instruction type: the result is zero-extended for
  ``.b``/``.u``/``.f`` types and sign-extended for ``.s`` types (``ld.global.u8 %rs1`` into a
  ``.b16`` register, ``cvt.s8.s32`` into a ``.b32`` register);
* register narrower than the instruction type (not produced by nvcc; PTX only allows it in
  a few relaxed cases): the register value is zero-/sign-extended by the instruction type.

Predicates (``.pred``) are numpy ``bool``.
"""

from __future__ import annotations

import struct

import numpy as np

from golden.errors import PTXError
from golden.ptx.ir import Imm, TYPE_SIZE

#: PTX type suffix -> numpy dtype of one lane
DTYPE: dict[str, np.dtype] = {
    "pred": np.dtype(np.bool_),
    "b8": np.dtype(np.uint8), "u8": np.dtype(np.uint8), "s8": np.dtype(np.int8),
    "b16": np.dtype(np.uint16), "u16": np.dtype(np.uint16), "s16": np.dtype(np.int16),
    "f16": np.dtype(np.float16),
    "b32": np.dtype(np.uint32), "u32": np.dtype(np.uint32), "s32": np.dtype(np.int32),
    "f32": np.dtype(np.float32),
    "b64": np.dtype(np.uint64), "u64": np.dtype(np.uint64), "s64": np.dtype(np.int64),
    "f64": np.dtype(np.float64),
}

SIGNED = frozenset({"s8", "s16", "s32", "s64"})
UNSIGNED = frozenset({"u8", "u16", "u32", "u64"})
BITS = frozenset({"b8", "b16", "b32", "b64"})
FLOATS = frozenset({"f16", "f32", "f64"})
INTEGERS = SIGNED | UNSIGNED | BITS

#: unsigned / signed numpy dtype of each size in bytes
UINT = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
SINT = {1: np.dtype(np.int8), 2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}


def width(t: str) -> int:
    """Width in bits of PTX type ``t`` (``pred`` counts as 1)."""
    return 1 if t == "pred" else 8 * TYPE_SIZE[t]


def is_float(t: str) -> bool:
    return t in FLOATS


def is_signed(t: str) -> bool:
    return t in SIGNED


def unsigned_of(t: str) -> str:
    """The ``.u`` type of the same width (``s32`` -> ``u32``, ``b64`` -> ``u64``)."""
    return f"u{width(t)}"


def signed_of(t: str) -> str:
    return f"s{width(t)}"


def _check(t: str) -> None:
    if t not in DTYPE:
        raise PTXError(f"type .{t} is not supported by the functional model",
                       supported=", ".join("." + k for k in DTYPE))


def read_as(values: np.ndarray, reg_type: str, op_type: str) -> np.ndarray:
    """Lane values of a register declared ``reg_type`` read as instruction type ``op_type``.

    Same size -> bit reinterpretation (a view, no copy); wider register -> low bits;
    narrower register -> zero/sign extension by ``op_type``; predicates <-> integers
    compare with zero / give 0 or 1.
    """
    if reg_type == op_type:
        return values
    if op_type == "pred":
        return values if values.dtype == np.bool_ else values != 0
    if reg_type == "pred":
        return values.astype(DTYPE[op_type])
    rs, os_ = TYPE_SIZE[reg_type], TYPE_SIZE[op_type]
    if rs == os_:
        return values.view(DTYPE[op_type])
    if rs > os_:
        return values.view(UINT[rs]).astype(UINT[os_]).view(DTYPE[op_type])
    if op_type in SIGNED:
        return values.view(SINT[rs]).astype(SINT[os_]).view(DTYPE[op_type])
    return values.view(UINT[rs]).astype(UINT[os_]).view(DTYPE[op_type])


def write_as(values: np.ndarray, op_type: str, reg_type: str) -> np.ndarray:
    """An instruction result of type ``op_type`` converted to the storage dtype of a
    register declared ``reg_type``.

    Same size -> view; wider register -> sign-extension for ``.s`` types and
    zero-extension otherwise; narrower register -> the low bits.
    """
    if op_type == reg_type:
        return values
    if reg_type == "pred":
        return values if values.dtype == np.bool_ else values != 0
    if op_type == "pred":
        return values.astype(DTYPE[reg_type])
    rs, os_ = TYPE_SIZE[reg_type], TYPE_SIZE[op_type]
    if rs == os_:
        return values.view(DTYPE[reg_type])
    if rs > os_ and op_type in SIGNED:
        return values.view(SINT[os_]).astype(SINT[rs]).view(DTYPE[reg_type])
    return values.view(UINT[os_]).astype(UINT[rs]).view(DTYPE[reg_type])


def _float_bits_value(imm: Imm) -> float:
    """The numeric value of a float immediate (``0f``/``0d`` from their raw bits)."""
    if imm.kind == "f32" and imm.bits is not None:
        return float(np.uint32(imm.bits).view(np.float32))
    if imm.kind == "f64" and imm.bits is not None:
        return struct.unpack("<d", struct.pack("<Q", imm.bits))[0]
    return float(imm.value)


def imm_as(imm: Imm, op_type: str):
    """An immediate operand as a numpy scalar of ``DTYPE[op_type]``.

    Integer immediates wrap to the type's width (``-21845`` as ``.u16`` is ``0xAAAB``);
    ``0fXXXXXXXX`` / ``0dXXXXXXXXXXXXXXXX`` keep their raw bits when the type has their
    size (``mov.b32 %r1, 0f3F800000`` gives ``0x3F800000``) and convert by value otherwise;
    decimal floats convert by value (round to nearest).
    """
    _check(op_type)
    dt = DTYPE[op_type]
    if op_type == "pred":
        return np.bool_(bool(imm.value))
    nbytes = dt.itemsize
    if imm.kind == "int":
        if dt.kind == "f":
            return dt.type(imm.value)
        bits = int(imm.value) & ((1 << (8 * nbytes)) - 1)
        return UINT[nbytes].type(bits).view(dt)
    # float immediates
    raw_size = {"f32": 4, "f64": 8}.get(imm.kind)
    if raw_size == nbytes and imm.bits is not None:
        return UINT[nbytes].type(imm.bits).view(dt)
    value = _float_bits_value(imm)
    if dt.kind == "f":
        return dt.type(value)
    # a float literal used with an integer type of another size: its value, truncated
    if value != value or value in (float("inf"), float("-inf")):
        raise PTXError(f"float immediate {imm.value!r} cannot be used as .{op_type}")
    bits = int(value) & ((1 << (8 * nbytes)) - 1)
    return UINT[nbytes].type(bits).view(dt)
