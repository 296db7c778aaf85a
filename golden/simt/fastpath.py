"""Per-lane kernels of the timing model's functional step, compiled with the timing core.

In timing mode the functional model executes one warp instruction at a time, so each
numpy call works on 32 lanes and costs about a microsecond of call overhead, more than the
work itself. The functions here do the same work for one warp as plain loops over its 32
lanes, on byte views of the registers and memories. They are part of the compiled group of
:mod:`golden.native` (``fastpath.pxd`` types them); :data:`COMPILED` says whether this copy
was compiled. :class:`golden.simt.engine.FunctionalLaunch` uses them only when it was:
uncompiled they are correct but slower than numpy, and the numpy paths they replace stay
the reference (tests compare the two on random and real-kernel inputs).

Values travel as raw bytes (little-endian, as numpy stores them), so a load or a move
between registers of one size is an exact bit copy, whatever the element type.

* :func:`load_addresses` -- a ``ld`` fast path's lane addresses (the base register plus
  the immediate offset, wrapping in 64 bits), with the OR of the active lanes' addresses
  (alignment) and their minimum and maximum (bounds);
* :func:`gather` -- one vector element of the load: copy ``size`` bytes per active lane
  from the memory into the destination register.
"""

from __future__ import annotations

import cython
import numpy as np

COMPILED = bool(cython.compiled)

MASK64 = 0xFFFFFFFFFFFFFFFF
HIGH32 = 0xFFFFFFFF00000000


def _lane_value(base, i, width, signed):
    """Lane ``i``'s value of a register of ``width`` (4 or 8) bytes, as an unsigned 64-bit
    integer (a signed 4-byte value is sign-extended, as numpy's ``astype(uint64)`` does)."""
    o = i * width
    v = 0
    for b in range(width - 1, -1, -1):
        v = (v << 8) | base[o + b]
    if signed and width == 4 and v & 0x80000000:
        v |= HIGH32
    return v


def load_addresses(base, width, signed, lane0, offset, active, out):
    """Fill ``out`` (uint64, 32) with lane ``l``'s address: the base register's value at
    lane ``lane0 + l`` (``base``: its byte view; ``width`` 4 or 8 bytes, ``signed`` for a
    sign-extended 4-byte register) plus ``offset``, modulo 2**64, for every lane.
    Returns ``(or, min, max)`` over the lanes set in ``active`` (a 32-bit mask, not 0)."""
    if not cython.compiled:   # plain Python: index through memoryviews (Python ints)
        base, out = memoryview(base), memoryview(out)
    acc_or = 0
    lo = MASK64
    hi = 0
    for lane in range(32):
        a = (_lane_value(base, lane0 + lane, width, signed) + offset) & MASK64
        out[lane] = a
        if (active >> lane) & 1:
            acc_or |= a
            if a < lo:
                lo = a
            if a > hi:
                hi = a
    return acc_or, lo, hi


def gather(mem, addrs, sub, base_off, size, k, active, dst, lane0):
    """Element ``k`` of a ``size``-byte load for every lane set in ``active``: lane ``l``
    reads the ``size`` bytes of ``mem`` at ``((addrs[l] - sub) // size + k) * size +
    base_off`` and writes them to lane ``lane0 + l`` of ``dst`` (the destination register's
    byte view). Lanes not in ``active`` keep their value. The caller has checked every
    active lane's address (alignment, bounds)."""
    if not cython.compiled:   # plain Python: index through memoryviews (Python ints)
        mem, addrs, dst = memoryview(mem), memoryview(addrs), memoryview(dst)
    for lane in range(32):
        if (active >> lane) & 1:
            src = (((addrs[lane] - sub) & MASK64) // size + k) * size + base_off
            o = (lane0 + lane) * size
            for b in range(size):
                dst[o + b] = mem[src + b]


# ----------------------------------------------------------------------------- ALU

#: operation codes of :func:`int_op` (integer and predicate ALU instructions; operands and
#: results as unsigned bit patterns of their width) and of :func:`f32_op` (``F*``: round to
#: nearest even, no flush to zero). Callers use this dict; the module's own copies below are
#: C integers when compiled.
CODES = dict(ADD=1, SUB=2, MUL_LO=3, MAD_LO=4, MUL_WIDE_S=5, MUL_WIDE_U=6,
             MIN_S=7, MAX_S=8, MIN_U=9, MAX_U=10, SHL=11, SHR_U=12, SHR_S=13,
             AND=14, OR=15, XOR=16, NOT=17, NOT_PRED=18, MOV=19, SELP=20, CVT_SX=21, CVT_ZX=22,
             SETP_EQ=30, SETP_NE=31, SETP_LT_S=32, SETP_LE_S=33, SETP_GT_S=34, SETP_GE_S=35,
             SETP_LT_U=36, SETP_LE_U=37, SETP_GT_U=38, SETP_GE_U=39,
             FADD=1, FSUB=2, FMUL=3, FFMA=4)
ADD, SUB, MUL_LO, MAD_LO = CODES["ADD"], CODES["SUB"], CODES["MUL_LO"], CODES["MAD_LO"]
MUL_WIDE_S, MUL_WIDE_U = CODES["MUL_WIDE_S"], CODES["MUL_WIDE_U"]
MIN_S, MAX_S, MIN_U, MAX_U = CODES["MIN_S"], CODES["MAX_S"], CODES["MIN_U"], CODES["MAX_U"]
SHL, SHR_U, SHR_S = CODES["SHL"], CODES["SHR_U"], CODES["SHR_S"]
AND, OR, XOR, NOT, NOT_PRED = CODES["AND"], CODES["OR"], CODES["XOR"], CODES["NOT"], CODES["NOT_PRED"]
MOV, SELP, CVT_SX, CVT_ZX = CODES["MOV"], CODES["SELP"], CODES["CVT_SX"], CODES["CVT_ZX"]
SETP_EQ, SETP_NE = CODES["SETP_EQ"], CODES["SETP_NE"]
SETP_LT_S, SETP_LE_S, SETP_GT_S, SETP_GE_S = (CODES["SETP_LT_S"], CODES["SETP_LE_S"],
                                              CODES["SETP_GT_S"], CODES["SETP_GE_S"])
SETP_LT_U, SETP_LE_U, SETP_GT_U, SETP_GE_U = (CODES["SETP_LT_U"], CODES["SETP_LE_U"],
                                              CODES["SETP_GT_U"], CODES["SETP_GE_U"])
FADD, FSUB, FMUL, FFMA = CODES["FADD"], CODES["FSUB"], CODES["FMUL"], CODES["FFMA"]

SIGN64 = 0x8000000000000000


def _rd(buf, i, width):
    """Lane ``i`` of a register of ``width`` bytes (1, 2, 4 or 8) as an unsigned integer."""
    o = i * width
    v = 0
    for b in range(width - 1, -1, -1):
        v = (v << 8) | buf[o + b]
    return v


def _wr(buf, i, width, v):
    """Store the low ``width`` bytes of ``v`` into lane ``i`` of a register."""
    o = i * width
    for b in range(width):
        buf[o + b] = (v >> (8 * b)) & 0xFF


def _sx(v, bits):
    """``v`` (``bits`` wide) sign-extended to 64 bits."""
    if bits < 64 and (v >> (bits - 1)) & 1:
        v |= (MASK64 << bits) & MASK64
    return v


def int_op(code, bits, a, wa, ia, b, wb, ib, c, wc, ic, d, wd, lane0, active):
    """One integer / predicate ALU instruction for the lanes set in ``active``: operand
    ``x`` (a, b, c) is lane ``lane0 + l`` of the register byte view ``x`` (``wx`` bytes a
    lane), or the immediate bits ``ix`` when ``x`` is None; ``bits`` is the operation's
    width; the result's low ``wd`` bytes go to lane ``lane0 + l`` of ``d``. Inactive lanes
    keep their value. Same bits as the numpy builders of :mod:`golden.exec` for the
    instruction forms :func:`golden.simt.engine._native_alu` maps here."""
    if not cython.compiled:   # plain Python: index through memoryviews (Python ints)
        a = memoryview(a) if a is not None else None
        b = memoryview(b) if b is not None else None
        c = memoryview(c) if c is not None else None
        d = memoryview(d)
    for lane in range(32):
        if not (active >> lane) & 1:
            continue
        i = lane0 + lane
        x = _rd(a, i, wa) if a is not None else ia
        y = _rd(b, i, wb) if b is not None else ib
        if code == ADD:
            r = x + y
        elif code == SUB:
            r = x - y
        elif code == MUL_LO:
            r = x * y
        elif code == MAD_LO:
            r = x * y + (_rd(c, i, wc) if c is not None else ic)
        elif code == MUL_WIDE_S:
            r = _sx(x, bits) * _sx(y, bits)
        elif code == MUL_WIDE_U:
            r = x * y
        elif code == MIN_S or code == MAX_S:
            xs = _sx(x, bits) ^ SIGN64
            ys = _sx(y, bits) ^ SIGN64
            r = x if (xs < ys) == (code == MIN_S) else y
        elif code == MIN_U:
            r = x if x < y else y
        elif code == MAX_U:
            r = x if x > y else y
        elif code == SHL:
            r = 0 if y >= bits else x << y
        elif code == SHR_U:
            r = 0 if y >= bits else x >> y
        elif code == SHR_S:
            n = y if y < bits else bits - 1
            r = _sx(x, bits)
            if n:
                r = (r >> n) | (((MASK64 << (64 - n)) & MASK64) if r & SIGN64 else 0)
        elif code == AND:
            r = x & y
        elif code == OR:
            r = x | y
        elif code == XOR:
            r = x ^ y
        elif code == NOT:
            r = ~x
        elif code == NOT_PRED:
            r = x ^ 1
        elif code == MOV:
            r = x
        elif code == SELP:
            r = x if (_rd(c, i, wc) if c is not None else ic) else y
        elif code == CVT_SX:
            r = _sx(x, 8 * wa if a is not None else bits)
        elif code == CVT_ZX:
            r = x
        else:   # SETP_*: a 0/1 predicate byte
            if code == SETP_EQ:
                r = x == y
            elif code == SETP_NE:
                r = x != y
            elif code <= SETP_GE_S:
                x = _sx(x, bits) ^ SIGN64
                y = _sx(y, bits) ^ SIGN64
                r = (x < y if code == SETP_LT_S else x <= y if code == SETP_LE_S
                     else x > y if code == SETP_GT_S else x >= y)
            else:
                r = (x < y if code == SETP_LT_U else x <= y if code == SETP_LE_U
                     else x > y if code == SETP_GT_U else x >= y)
            d[i] = 1 if r else 0
            continue
        _wr(d, i, wd, r)   # the low wd bytes: results wrap at the destination's width


def f32_op(code, a, ia, b, ib, c, ic, d, lane0, active):
    """One f32 ALU instruction (``FADD``, ``FSUB``, ``FMUL``, ``FFMA``; round to nearest)
    for the lanes set in ``active``: operands are float32 register views or, when None,
    the immediates ``ia`` / ``ib`` / ``ic``. Results go to a scratch row first; when any
    lane's result is a NaN nothing is written and False is returned (the numpy path then
    runs: NaN payloads are its to define), else True."""
    if not cython.compiled:
        from golden.exec.fp import fma_f32
        f = np.float32
        tmp = [f(0)] * 32
    for lane in range(32):
        if not (active >> lane) & 1:
            continue
        i = lane0 + lane
        x = a[i] if a is not None else ia
        y = b[i] if b is not None else ib
        if code == FADD:
            r = x + y
        elif code == FSUB:
            r = x - y
        elif code == FMUL:
            r = x * y
        else:
            z = c[i] if c is not None else ic
            if cython.compiled:
                r = fmaf(x, y, z)
            else:
                r = fma_f32(np.array([x], f), np.array([y], f), np.array([z], f), "rn")[0]
        if not cython.compiled:
            r = f(r)
        if r != r:
            return False
        tmp[lane] = r
    for lane in range(32):
        if (active >> lane) & 1:
            d[lane0 + lane] = tmp[lane]
    return True


def u8_view(m):
    """A contiguous uint8 array as the kernels take it, to be kept and passed again:
    compiled, a typed memoryview made once (a numpy array passed to a kernel costs a buffer
    request and a new memoryview on every call); plain Python, the array itself."""
    return m


def f32_view(m):
    """:func:`u8_view` for a contiguous float32 array."""
    return m


def _view(views, regs, key, dtype):
    """The ``dtype`` view of register ``key`` (``regs[key]``), kept in ``views`` in the
    form :func:`u8_view` / :func:`f32_view` give."""
    v = views.get(key)
    if v is None:
        a = regs[key].view(dtype)
        v = views[key] = u8_view(a) if dtype is np.uint8 else f32_view(a)
    return v


def alu(nat, regs, rb, fv, lane0, active):
    """One warp's ALU instruction decoded by :func:`golden.simt.engine._native_alu`
    (``nat``), on the registers ``regs`` of its wave (``rb`` / ``fv``: the wave's caches of
    their uint8 / float32 views): :func:`int_op` or :func:`f32_op` on lanes ``lane0`` ...
    ``lane0 + 31``. Returns False, having changed nothing, when the f32 kernel declines."""
    kind = nat[0]
    ops = nat[3]
    dst = nat[4]
    ka, wa, ia = ops[0]
    kb, wb, ib = ops[1]
    kc, wc, ic = ops[2]
    if kind == 0:
        return _alu_int(nat[1], nat[2], None if ka is None else _view(rb, regs, ka, np.uint8), wa, ia,
                        None if kb is None else _view(rb, regs, kb, np.uint8), wb, ib,
                        None if kc is None else _view(rb, regs, kc, np.uint8), wc, ic,
                        _view(rb, regs, dst[0], np.uint8), dst[1], lane0, active)
    return f32_op(nat[1], None if ka is None else _view(fv, regs, ka, np.float32), wa,
                  None if kb is None else _view(fv, regs, kb, np.float32), wb,
                  None if kc is None else _view(fv, regs, kc, np.float32), wc,
                  _view(fv, regs, dst[0], np.float32), lane0, active)


def _alu_int(code, bits, a, wa, ia, b, wb, ib, c, wc, ic, d, wd, lane0, active):
    int_op(code, bits, a, wa, ia, b, wb, ib, c, wc, ic, d, wd, lane0, active)
    return True


def scatter(mem, addrs, sub, base_off, size, k, active, src, imm, lane0):
    """Element ``k`` of a ``size``-byte store for every lane set in ``active``, in lane
    order (of two lanes storing to one address the higher one's value stays, as numpy's
    indexed assignment leaves it): lane ``l`` writes lane ``lane0 + l`` of ``src`` (the
    source register's byte view), or the immediate bits ``imm`` when ``src`` is None, to
    the ``size`` bytes of ``mem`` at ``((addrs[l] - sub) // size + k) * size + base_off``.
    The caller has checked every active lane's address (alignment, bounds)."""
    if not cython.compiled:   # plain Python: index through memoryviews (Python ints)
        mem, addrs = memoryview(mem), memoryview(addrs)
        src = memoryview(src) if src is not None else None
    for lane in range(32):
        if (active >> lane) & 1:
            dst = (((addrs[lane] - sub) & MASK64) // size + k) * size + base_off
            if src is not None:
                o = (lane0 + lane) * size
                for b in range(size):
                    mem[dst + b] = src[o + b]
            else:
                for b in range(size):
                    mem[dst + b] = (imm >> (8 * b)) & 0xFF
