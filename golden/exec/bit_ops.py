"""Bitwise, shift, bit-field and predicate-logic instructions.

``and or xor not cnot`` (also on ``.pred``: predicate logic), ``shl shr`` (shift amounts
are read as ``.u32`` and clamped: ``shl`` and ``shr.u``/``shr.b`` give 0 for amounts >= the
width, ``shr.s`` fills with the sign bit), ``shf.l/.r`` with ``.wrap``/``.clamp`` funnel
shifts, ``bfe bfi bfind bmsk szext prmt`` (every mode) ``popc clz brev lop3``. Semantics
follow the pseudo-code of the PTX ISA for each instruction.
"""

from __future__ import annotations

import numpy as np

from golden.exec.compiled import check_mods, dest_regs, make_op, one_of, split_operands, the_type, unsupported
from golden.ptx.ir import Imm
from golden.exec.types import DTYPE, UINT, width

BIT_TYPES = ("b16", "b32", "b64")
_U64 = np.uint64
_ALL32 = np.uint32(0xFFFFFFFF)


def _op(inst, t, core, n_src, *, src_types=None, dst_type=None, warns=False):
    (d,), srcs = split_operands(inst, 1, n_src)
    return make_op(inst, dest_regs(inst, d), (dst_type or t,), srcs,
                   src_types or (t,) * n_src, core, warns=warns)


def _no_mods(inst, allowed=()):
    return check_mods(inst, set(allowed),
                      "modifiers " + (" ".join("." + m for m in allowed) if allowed else "none"))


def bit_length(u):
    """Number of significant bits of each unsigned lane (0 for 0), as int64."""
    if u.dtype.itemsize < 8:
        return np.frexp(u.astype(np.float64))[1].astype(np.int64)
    hi, lo = u >> _U64(32), u & _U64(0xFFFFFFFF)
    bl_hi = np.frexp(hi.astype(np.float64))[1].astype(np.int64)
    bl_lo = np.frexp(lo.astype(np.float64))[1].astype(np.int64)
    return np.where(hi != 0, 32 + bl_hi, bl_lo)


def field_mask(n, udt):
    """``(1 << n) - 1`` per lane for 0 <= n <= width, in unsigned dtype ``udt``."""
    w = 8 * udt.itemsize
    one = udt.type(1)
    return np.where(n >= w, udt.type(-1 & ((1 << w) - 1)),
                    (one << np.minimum(n, w - 1).astype(udt)) - one).astype(udt, copy=False)


_REV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=np.uint8)


def bit_reverse(a, dt):
    """Reverse the bits of each lane (byte lookup; lanes are little-endian in memory)."""
    x = np.ascontiguousarray(np.atleast_1d(a), dtype=dt)
    r = _REV8[x.view(np.uint8).reshape(-1, dt.itemsize)[:, ::-1]]
    return np.ascontiguousarray(r).view(dt).reshape(x.shape)


# ----------------------------------------------------------------------------- logic

def build_logic(inst, kind: str):
    _no_mods(inst)
    t = the_type(inst, ("pred",) + BIT_TYPES, "types .pred .b16 .b32 .b64")
    if kind == "and":
        return _op(inst, t, lambda a, b: (a & b,), 2)
    if kind == "or":
        return _op(inst, t, lambda a, b: (a | b,), 2)
    if kind == "xor":
        return _op(inst, t, lambda a, b: (a ^ b,), 2)
    return _op(inst, t, lambda a: (~a,), 1)


def build_cnot(inst):
    _no_mods(inst)
    t = the_type(inst, BIT_TYPES, "types .b16 .b32 .b64")
    dt = DTYPE[t]
    return _op(inst, t, lambda a: ((a == 0).astype(dt),), 1)


def build_lop3(inst):
    """``lop3.b32 d, a, b, c, immLut``: any 3-input function given by its truth table
    (bit ``4*a + 2*b + c`` of immLut)."""
    _no_mods(inst)
    t = the_type(inst, ("b32",), "lop3.b32 (the predicate-output form is not supported)")
    (d,), srcs = split_operands(inst, 1, 4)
    if not isinstance(srcs[3], Imm):
        raise unsupported(inst, "non-immediate lookup table", "lop3.b32 d, a, b, c, immLut")
    lut = int(srcs[3].value) & 0xFF
    invert = bin(lut).count("1") > 4  # fewer product terms via the complement
    terms = [i for i in range(8) if ((lut >> i) & 1) != invert]

    def core(a, b, c):
        na, nb, nc = ~a, ~b, ~c
        out = np.zeros(np.broadcast(a, b, c).shape, np.uint32)
        for i in terms:
            out |= (a if i & 4 else na) & (b if i & 2 else nb) & (c if i & 1 else nc)
        return (~out if invert else out,)
    return make_op(inst, dest_regs(inst, d), (t,), srcs[:3], (t, t, t), core, warns=False)


# ----------------------------------------------------------------------------- shifts

def build_shift(inst, left: bool):
    _no_mods(inst)
    if left:
        t = the_type(inst, BIT_TYPES, "types .b16 .b32 .b64")
    else:
        t = the_type(inst, BIT_TYPES + ("u16", "u32", "u64", "s16", "s32", "s64"),
                     "types .b16 .b32 .b64 .u16 .u32 .u64 .s16 .s32 .s64")
    w, dt = width(t), DTYPE[t]
    zero = dt.type(0)
    (_, amount_op) = split_operands(inst, 1, 2)[1]
    if isinstance(amount_op, Imm):  # the common case: shift by a constant, decoded once
        n = int(amount_op.value) & 0xFFFFFFFF
        k = dt.type(min(n, w - 1))
        if left or t[0] != "s":
            if n >= w:
                return _op(inst, t, lambda a, _n: (np.zeros_like(a),), 2, src_types=(t, "u32"))
            core = (lambda a, _n: (a << k,)) if left else (lambda a, _n: (a >> k,))
        else:
            core = lambda a, _n: (a >> k,)
        return _op(inst, t, core, 2, src_types=(t, "u32"))
    if left:
        def core(a, n):
            return (np.where(n >= w, zero, a << np.minimum(n, w - 1).astype(dt)),)
    elif t[0] == "s":
        def core(a, n):
            return (a >> np.minimum(n, w - 1).astype(dt),)  # sign fill for n >= w
    else:
        def core(a, n):
            return (np.where(n >= w, zero, a >> np.minimum(n, w - 1).astype(dt)),)
    return _op(inst, t, core, 2, src_types=(t, "u32"))


def build_shf(inst):
    """Funnel shift of the 64-bit value ``{b, a}`` by ``c`` (``.wrap``: c & 31, ``.clamp``:
    min(c, 32)); ``shf.l`` keeps the high 32 bits, ``shf.r`` the low 32 bits."""
    mods = _no_mods(inst, ("l", "r", "wrap", "clamp"))
    t = the_type(inst, ("b32",), "shf.{l,r}.{wrap,clamp}.b32")
    direction = one_of(inst, mods, ("l", "r"), None, ".l .r")
    mode = one_of(inst, mods, ("wrap", "clamp"), None, ".wrap .clamp")
    if direction is None or mode is None:
        raise unsupported(inst, "missing direction or mode", "shf.{l,r}.{wrap,clamp}.b32")

    def amount(c):
        return (np.minimum(c, 32) if mode == "clamp" else c & 31).astype(_U64)

    if direction == "l":
        def core(a, b, c):
            x = (b.astype(_U64) << _U64(32)) | a
            return (((x << amount(c)) >> _U64(32)).astype(np.uint32),)
    else:
        def core(a, b, c):
            x = (b.astype(_U64) << _U64(32)) | a
            return ((x >> amount(c)).astype(np.uint32),)
    return _op(inst, t, core, 3, src_types=(t, t, "u32"))


# ----------------------------------------------------------------------------- bit fields

def build_bfe(inst):
    """``bfe``: extract ``len = c & 0xff`` bits from position ``pos = b & 0xff``; bits past
    the msb, and all bits when pos > msb, take the sign bit ``a[min(pos+len-1, msb)]``
    for signed types (0 when len == 0) and 0 for unsigned types."""
    _no_mods(inst)
    t = the_type(inst, ("u32", "u64", "s32", "s64"), "types .u32 .u64 .s32 .s64")
    w, dt = width(t), DTYPE[t]
    udt = UINT[dt.itemsize]
    signed = t[0] == "s"

    _, b_op, c_op = split_operands(inst, 1, 3)[1]
    if isinstance(b_op, Imm) and isinstance(c_op, Imm):  # constant field: decode once
        pos, ln = int(b_op.value) & 0xFF, int(c_op.value) & 0xFF
        n = min(ln, max(w - pos, 0))
        shift, mask = udt.type(min(pos, w - 1)), udt.type((1 << n) - 1)
        fill = udt.type(((1 << w) - 1) ^ ((1 << n) - 1))
        sbit = udt.type(min(max(pos + ln - 1, 0), w - 1))
        one = udt.type(1)

        def fixed(a, _b, _c):
            ua = np.asarray(a).view(udt)
            field = (ua >> shift) & mask
            if signed and ln:
                field = np.where(((ua >> sbit) & one) != 0, field | fill, field)
            return (np.asarray(field, udt).view(dt),)
        return _op(inst, t, fixed, 3, src_types=(t, "u32", "u32"))

    def core(a, b, c):
        ua = np.asarray(a).view(udt)
        pos = (b & 0xFF).astype(np.int64)
        ln = (c & 0xFF).astype(np.int64)
        n = np.minimum(ln, np.clip(w - pos, 0, w))
        mask = field_mask(n, udt)
        field = (ua >> np.minimum(pos, w - 1).astype(udt)) & mask
        if signed:
            sbit_pos = np.clip(pos + ln - 1, 0, w - 1).astype(udt)
            sbit = (((ua >> sbit_pos) & udt.type(1)) != 0) & (ln != 0)
            field = np.where(sbit, field | ~mask, field)
        return (np.asarray(field, udt).view(dt),)
    return _op(inst, t, core, 3, src_types=(t, "u32", "u32"))


def build_bfi(inst):
    """``bfi d, f, b, c, d``: insert the low ``len = d & 0xff`` bits of ``f`` into ``b`` at
    position ``pos = c & 0xff`` (bits past the msb are dropped)."""
    _no_mods(inst)
    t = the_type(inst, ("b32", "b64"), "types .b32 .b64")
    w, dt = width(t), DTYPE[t]

    def core(f, base, c, d):
        pos = (c & 0xFF).astype(np.int64)
        ln = (d & 0xFF).astype(np.int64)
        n = np.minimum(ln, np.clip(w - pos, 0, w))
        sh = np.minimum(pos, w - 1).astype(dt)
        m = field_mask(n, dt) << sh
        return ((base & ~m) | ((f << sh) & m),)
    return _op(inst, t, core, 4, src_types=(t, t, "u32", "u32"))


def build_bfind(inst):
    """``bfind``: position of the most significant non-sign bit (0xffffffff if none);
    ``.shiftamt`` returns ``msb - position`` instead."""
    mods = _no_mods(inst, ("shiftamt",))
    t = the_type(inst, ("u32", "u64", "s32", "s64"), "types .u32 .u64 .s32 .s64")
    w, dt = width(t), DTYPE[t]
    udt = UINT[dt.itemsize]
    shiftamt = "shiftamt" in mods

    def core(a):
        a = np.asarray(a)
        if t[0] == "s":
            a = np.where(a < 0, ~a, a)
        pos = bit_length(a.view(udt)) - 1
        r = (w - 1) - pos if shiftamt else pos
        return (np.where(pos < 0, 0xFFFFFFFF, r).astype(np.uint32),)
    return _op(inst, t, core, 1, dst_type="u32")


def build_bmsk(inst):
    """``bmsk.{clamp,wrap}.b32 d, a, b``: mask of ``b`` ones starting at bit ``a``."""
    mods = _no_mods(inst, ("clamp", "wrap"))
    the_type(inst, ("b32",), "bmsk.{clamp,wrap}.b32")
    mode = one_of(inst, mods, ("clamp", "wrap"), None, ".clamp .wrap")
    if mode is None:
        raise unsupported(inst, "missing .clamp/.wrap", "bmsk.{clamp,wrap}.b32")

    def core(a, b):
        a1, b1 = (a & 31).astype(_U64), (b & 31).astype(_U64)
        full = _U64(0xFFFFFFFF)
        mask0 = (full << a1) & full
        s = a1 + b1
        mask1 = (full << np.minimum(s, _U64(32))) & full
        kill = s >= 32
        if mode == "clamp":
            mask0 = np.where(a >= 32, _U64(0), mask0)
            kill = kill | (a >= 32) | (b >= 32)
        mask1 = np.where(kill, _U64(0), np.where(b1 == 0, full, mask1))
        return ((mask0 & ~mask1 & full).astype(np.uint32),)
    return _op(inst, "b32", core, 2)


def build_szext(inst):
    """``szext.{clamp,wrap}.{u32,s32} d, a, b``: zero/sign-extend the low ``b`` bits of a."""
    mods = _no_mods(inst, ("clamp", "wrap"))
    t = the_type(inst, ("u32", "s32"), "szext.{clamp,wrap}.{u32,s32}")
    mode = one_of(inst, mods, ("clamp", "wrap"), None, ".clamp .wrap")
    if mode is None:
        raise unsupported(inst, "missing .clamp/.wrap", "szext.{clamp,wrap}.{u32,s32}")
    dt = DTYPE[t]

    def core(a, b):
        ua = np.asarray(a).view(np.uint32)
        b1 = b & 31
        too_large = (b >= 32) if mode == "clamp" else np.zeros_like(b, dtype=bool)
        mask = np.where(too_large, np.uint32(0), _ALL32 << b1.astype(np.uint32))
        if t == "s32":
            sbit = (b1 != 0) & ~too_large & (((ua >> ((b1 - 1) & 31).astype(np.uint32)) & 1) != 0)
        else:
            sbit = False
        d = (ua & ~mask) | np.where(sbit, mask, np.uint32(0))
        return (np.asarray(d, np.uint32).view(dt),)
    return _op(inst, t, core, 2, src_types=(t, "u32"))


# ----------------------------------------------------------------------------- byte permute

# output byte k's source byte index for selector s = c & 3 (PTX ISA prmt mode table)
_PRMT_MODES = {
    "f4e": [[(s + k) & 7 for k in range(4)] for s in range(4)],
    "b4e": [[(s - k) & 7 for k in range(4)] for s in range(4)],
    "rc8": [[s] * 4 for s in range(4)],
    "ecl": [[max(k, s) for k in range(4)] for s in range(4)],
    "ecr": [[min(k, s) for k in range(4)] for s in range(4)],
    "rc16": [[(k & 1) + 2 * (s & 1) for k in range(4)] for s in range(4)],
}


def _prmt_selectors(c, table):
    """Per-lane source-byte indices (n, 4): into the 8 bytes {b, a} for the modes, into
    those 8 bytes followed by their 8 sign bytes for the default mode."""
    c = np.atleast_1d(c)
    if table is None:
        return ((c[:, None] >> np.array([0, 4, 8, 12], np.uint32)) & 0xF).astype(np.intp)
    return table[(c & 3).astype(np.intp)]


def build_prmt(inst):
    """``prmt.b32{.mode} d, a, b, c``: pick 4 bytes out of the 8 bytes ``{b, a}``; default
    mode takes one 4-bit selector per byte (bit 3 replicates the byte's sign)."""
    mods = _no_mods(inst, tuple(_PRMT_MODES))
    t = the_type(inst, ("b32",), "prmt.b32{.f4e .b4e .rc8 .ecl .ecr .rc16}")
    mode = one_of(inst, mods, tuple(_PRMT_MODES), None, " ".join("." + m for m in _PRMT_MODES))
    table = None if mode is None else np.array(_PRMT_MODES[mode], dtype=np.intp)
    sel_op = split_operands(inst, 1, 3)[1][2]
    fixed = None
    if isinstance(sel_op, Imm):  # nvcc's __byte_perm with a constant selector
        fixed = _prmt_selectors(np.uint32(int(sel_op.value) & 0xFFFFFFFF), table)[0]

    def core(a, b, c):
        a, b = np.broadcast_arrays(np.atleast_1d(a), np.atleast_1d(b))
        n = a.shape[0]
        src = np.empty((n, 16 if table is None else 8), np.uint8)
        src[:, 0:4] = np.ascontiguousarray(a, np.uint32).view(np.uint8).reshape(n, 4)
        src[:, 4:8] = np.ascontiguousarray(b, np.uint32).view(np.uint8).reshape(n, 4)
        if table is None:  # selector values 8..15: the sign of byte (sel & 7), replicated
            src[:, 8:16] = (src[:, 0:8].view(np.int8) >> 7).view(np.uint8)
        if fixed is not None:
            out = src[:, fixed]
        else:
            sel = _prmt_selectors(c, table)
            if sel.shape[0] != n:
                sel = np.broadcast_to(sel, (n, 4))
            out = np.take_along_axis(src, sel, axis=1)
        return (np.ascontiguousarray(out).view(np.uint32).reshape(n),)
    return _op(inst, t, core, 3)


# ----------------------------------------------------------------------------- counting

def build_popc(inst):
    _no_mods(inst)
    t = the_type(inst, ("b32", "b64"), "types .b32 .b64")
    return _op(inst, t, lambda a: (np.bitwise_count(a).astype(np.uint32),), 1, dst_type="u32")


def build_clz(inst):
    _no_mods(inst)
    t = the_type(inst, ("b32", "b64"), "types .b32 .b64")
    w = width(t)
    return _op(inst, t, lambda a: ((w - bit_length(np.asarray(a))).astype(np.uint32),), 1,
               dst_type="u32")


def build_brev(inst):
    _no_mods(inst)
    t = the_type(inst, ("b32", "b64"), "types .b32 .b64")
    dt = DTYPE[t]
    return _op(inst, t, lambda a: (bit_reverse(a, dt),), 1)


BUILDERS = {
    "and": lambda i: build_logic(i, "and"),
    "or": lambda i: build_logic(i, "or"),
    "xor": lambda i: build_logic(i, "xor"),
    "not": lambda i: build_logic(i, "not"),
    "cnot": build_cnot,
    "lop3": build_lop3,
    "shl": lambda i: build_shift(i, True),
    "shr": lambda i: build_shift(i, False),
    "shf": build_shf,
    "bfe": build_bfe,
    "bfi": build_bfi,
    "bfind": build_bfind,
    "bmsk": build_bmsk,
    "szext": build_szext,
    "prmt": build_prmt,
    "popc": build_popc,
    "clz": build_clz,
    "brev": build_brev,
}
