"""Extended-precision integer arithmetic with the carry flag: ``add.cc addc sub.cc subc
mad.cc madc`` (PTX ISA, "Extended-Precision Integer Arithmetic Instructions").

nvcc emits these in libdevice code, e.g. the Payne-Hanek argument reduction of
double-precision ``sin``/``cos``. The per-thread condition-code carry flag ``CC.CF`` is
modelled as a pseudo-register :data:`CARRY_REG` of type ``.pred``: an instruction that
reads the flag (``addc subc madc``) lists it as its last source operand, one that writes
it (``.cc``) lists it as its last destination. The SIMT executor stores it like any
other predicate register (one per thread, per function; its initial value is
irrelevant because PTX only reads it after a ``.cc`` instruction has set it).

Semantics (``.u32 .s32 .u64 .s64``; carries are those of the unsigned addition of the
bit patterns, for signed types too):

* ``add.cc``: ``d = a + b``, CF = carry-out; ``addc{.cc}``: ``d = a + b + CF``;
* ``sub.cc``: ``d = a - b``, CF = borrow-out (``a < b`` unsigned); ``subc{.cc}``:
  ``d = a - (b + CF)``, CF = borrow-out;
* ``mad{.lo,.hi}.cc``: ``d = (a * b).{lo,hi} + c``, CF = carry-out of that addition;
  ``madc{.lo,.hi}{.cc}``: ``d = (a * b).{lo,hi} + c + CF``.
"""

from __future__ import annotations

import numpy as np

from golden.exec.compiled import check_mods, dest_regs, make_op, one_of, split_operands, the_type
from golden.exec.types import DTYPE, UINT, width
from golden.exec.wide_mul import mulhi_64
from golden.ptx.ir import Reg

#: pseudo-register holding the carry flag CC.CF ('.' cannot occur in a PTX identifier)
CARRY_REG = Reg("%cc.cf")
CARRY_TYPE = "pred"

TYPES = ("u32", "s32", "u64", "s64")
_SUP = "types .u32 .s32 .u64 .s64"


def _add_carry(ua, ub, cin):
    """``(sum, carry_out)`` of unsigned ``ua + ub + cin`` (cin: bool array or None)."""
    s = ua + ub
    carry = s < ua
    if cin is None:
        return s, carry
    s2 = s + cin.astype(s.dtype)
    return s2, carry | (s2 < s)


def _sub_borrow(ua, ub, bin_):
    """``(difference, borrow_out)`` of unsigned ``ua - (ub + bin)``."""
    d = ua - ub
    borrow = ua < ub
    if bin_ is None:
        return d, borrow
    return d - bin_.astype(d.dtype), borrow | ((ua == ub) & bin_)


def _carry_op(inst, t, core, n_src, reads: bool, writes: bool):
    (d,), srcs = split_operands(inst, 1, n_src)
    dsts = dest_regs(inst, d) + ((CARRY_REG,) if writes else ())
    dst_types = (t,) + ((CARRY_TYPE,) if writes else ())
    srcs = tuple(srcs) + ((CARRY_REG,) if reads else ())
    src_types = (t,) * n_src + ((CARRY_TYPE,) if reads else ())
    return make_op(inst, dsts, dst_types, srcs, src_types, core, warns=False)


def _views(t):
    dt = DTYPE[t]
    return dt, UINT[dt.itemsize]


def build_add_sub(inst, sub: bool, reads: bool):
    """``add.cc`` / ``sub.cc`` (``reads=False``) and ``addc`` / ``subc`` (``reads=True``)."""
    mods = check_mods(inst, {"cc"}, ".cc")
    t = the_type(inst, TYPES, _SUP)
    writes = "cc" in mods
    dt, udt = _views(t)
    step = _sub_borrow if sub else _add_carry

    def core(a, b, cf=None):
        r, c = step(np.asarray(a).view(udt), np.asarray(b).view(udt), cf)
        r = np.asarray(r, udt).view(dt)
        return (r, c) if writes else (r,)
    return _carry_op(inst, t, core, 2, reads, writes)


def build_mad(inst, reads: bool):
    """``mad{.lo,.hi}.cc`` (``reads=False``) and ``madc{.lo,.hi}{.cc}`` (``reads=True``)."""
    mods = check_mods(inst, {"cc", "lo", "hi"}, ".lo .hi .cc")
    t = the_type(inst, TYPES, _SUP)
    part = one_of(inst, mods, ("lo", "hi"), "lo", ".lo .hi")
    writes = "cc" in mods
    dt, udt = _views(t)
    w = width(t)
    if part == "lo":
        def product(a, b):
            return np.asarray(a * b).view(udt)
    elif w == 64:
        hi = mulhi_64(t)

        def product(a, b):
            return np.asarray(hi(np.asarray(a), np.asarray(b))).view(udt)
    else:
        wdt = DTYPE[f"{t[0]}64"]

        def product(a, b):
            return ((np.asarray(a).astype(wdt) * b) >> 32).astype(dt).view(udt)

    def core(a, b, c, cf=None):
        r, carry = _add_carry(product(a, b), np.asarray(c).view(udt), cf)
        r = np.asarray(r, udt).view(dt)
        return (r, carry) if writes else (r,)
    return _carry_op(inst, t, core, 3, reads, writes)


BUILDERS = {
    "addc": lambda i: build_add_sub(i, False, True),
    "subc": lambda i: build_add_sub(i, True, True),
    "madc": lambda i: build_mad(i, True),
}
