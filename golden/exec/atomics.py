"""Value functions of ``atom`` / ``red``: the new memory word from the old one.

``atomic_fn(op, type)`` returns ``fn(old, b, c=None) -> new`` working elementwise on
lane arrays; the SIMT executor applies it lane by lane in order for lanes that hit the
same address, and returns ``old`` to ``atom``'s destination. Semantics (PTX ISA, atom):

=========  ===========================================  ==========================
op         new value                                    types
=========  ===========================================  ==========================
add        old + b (integers wrap; floats .rn)          u32 s32 u64 f32 f64
min, max   min/max(old, b) (floats: NaN loses)          u32 s32 u64 s64 f32 f64
exch       b                                            b32 b64 (and u/s/f aliases)
cas        c if old == b else old (bitwise compare)     b32 b64 (and u/s/f aliases)
and/or/xor bitwise                                      b32 b64
inc        0 if old >= b else old + 1                   u32
dec        b if old == 0 or old > b else old - 1        u32
=========  ===========================================  ==========================

``atom.add.f32`` on *global* memory flushes subnormal inputs and results to
sign-preserving zero (PTX ISA, atom: "current implementation"); pass ``ftz=True`` for
it. Shared-memory ``atom.add.f32`` keeps subnormals.
"""

from __future__ import annotations

import numpy as np

from golden.errors import PTXError
from golden.exec import fp
from golden.exec.types import DTYPE, UINT

_TYPES = {
    "add": ("u32", "s32", "u64", "s64", "f32", "f64"),
    "min": ("u32", "s32", "u64", "s64", "f32", "f64"),
    "max": ("u32", "s32", "u64", "s64", "f32", "f64"),
    "exch": ("b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64"),
    "cas": ("b16", "b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64"),
    "and": ("b32", "b64"),
    "or": ("b32", "b64"),
    "xor": ("b32", "b64"),
    "inc": ("u32",),
    "dec": ("u32",),
}


def _float_minmax(is_max: bool):
    pick = np.fmax if is_max else np.fmin

    def f(old, b, c=None):
        with np.errstate(all="ignore"):
            r = pick(old, b)
            zeros = (old == 0) & (b == 0)
            sign = (np.signbit(old) & np.signbit(b)) if is_max else (np.signbit(old) | np.signbit(b))
            return np.where(zeros, np.where(sign, -np.zeros_like(r), np.zeros_like(r)), r).astype(r.dtype)
    return f


def atomic_fn(op: str, type: str, *, ftz: bool = False):
    """The update function of ``atom.op.type`` / ``red.op.type`` (see module docstring)."""
    if op not in _TYPES or type not in _TYPES[op]:
        raise PTXError(f"unsupported atomic operation .{op}.{type}",
                       supported="; ".join(f".{o}: " + " ".join("." + t for t in ts)
                                           for o, ts in _TYPES.items()))
    dt = DTYPE[type]
    if op == "add":
        if type == "f32" and ftz:
            def add(old, b, c=None):
                with np.errstate(all="ignore"):
                    return fp.ftz(fp.ftz(old) + fp.ftz(b)).astype(dt, copy=False)
            return add
        if dt.kind == "f":
            def add(old, b, c=None):
                with np.errstate(all="ignore"):
                    return (old + b).astype(dt, copy=False)
            return add
        return lambda old, b, c=None: (old + b).astype(dt, copy=False)
    if op in ("min", "max"):
        if dt.kind == "f":
            return _float_minmax(op == "max")
        f = np.maximum if op == "max" else np.minimum
        return lambda old, b, c=None: f(old, b).astype(dt, copy=False)
    if op == "exch":
        return lambda old, b, c=None: np.array(np.broadcast_to(b, np.shape(old)), dtype=dt)
    if op == "cas":
        udt = UINT[dt.itemsize]

        def cas(old, b, c=None):
            if c is None:
                raise PTXError("atom.cas needs the new value operand c")
            old = np.asarray(old, dt)
            same = old.view(udt) == np.asarray(b, dt).view(udt)  # bitwise, also for floats
            return np.where(same, np.asarray(c, dt), old).astype(dt, copy=False)
        return cas
    if op == "and":
        return lambda old, b, c=None: (old & b).astype(dt, copy=False)
    if op == "or":
        return lambda old, b, c=None: (old | b).astype(dt, copy=False)
    if op == "xor":
        return lambda old, b, c=None: (old ^ b).astype(dt, copy=False)
    if op == "inc":
        return lambda old, b, c=None: np.where(old >= b, dt.type(0), old + dt.type(1)).astype(dt, copy=False)
    # dec
    return lambda old, b, c=None: np.where((old == 0) | (old > b), b, old - dt.type(1)).astype(dt, copy=False)
