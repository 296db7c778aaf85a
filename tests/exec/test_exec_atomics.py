"""atom/red update functions."""

import math

import numpy as np
import pytest

from golden.errors import PTXError
from golden.exec import atomic_fn
from exec_helpers import lanes


def apply(op, t, old, b, c=None, **kw):
    f = atomic_fn(op, t, **kw)
    out = f(lanes(old, t), lanes(b, t), None if c is None else lanes(c, t))
    assert out.dtype == lanes([0], t).dtype
    return out.tolist()


def test_add():
    assert apply("add", "u32", [0xFFFFFFFF, 5], [1, 6]) == [0, 11]
    assert apply("add", "s32", [(1 << 31) - 1], [1]) == [-(1 << 31)]
    assert apply("add", "u64", [(1 << 64) - 1], [2]) == [1]
    assert apply("add", "f32", [1.5], [2.25]) == [3.75]
    assert apply("add", "f64", [0.1], [0.2]) == [0.1 + 0.2]


def test_add_f32_global_ftz():
    sub = float(np.float32(1e-40))
    assert apply("add", "f32", [sub], [0.0]) == [float(np.float32(sub))]  # shared: keeps subnormals
    assert apply("add", "f32", [sub], [0.0], ftz=True) == [0.0]          # global: flushes
    assert apply("add", "f32", [1.0], [sub], ftz=True) == [1.0]


def test_min_max():
    assert apply("min", "u32", [0xFFFFFFFF, 3], [1, 7]) == [1, 3]
    assert apply("min", "s32", [-1, 3], [1, 7]) == [-1, 3]
    assert apply("max", "s64", [-(1 << 63)], [-1]) == [-1]
    assert apply("max", "u64", [1 << 63], [1]) == [1 << 63]
    assert apply("min", "f32", [float("nan"), 2.0], [1.0, float("nan")]) == [1.0, 2.0]
    r = atomic_fn("max", "f32")(np.float32([-0.0]), np.float32([0.0]))
    assert not np.signbit(r[0])
    r = atomic_fn("min", "f64")(np.float64([0.0]), np.float64([-0.0]))
    assert np.signbit(r[0])


def test_exch_cas_bitwise():
    assert apply("exch", "b32", [1, 2], [9, 8]) == [9, 8]
    assert apply("cas", "b32", [5, 5, 6], [5, 6, 6], [100, 100, 7]) == [100, 5, 7]
    assert apply("cas", "b64", [1 << 40], [1 << 40], [3]) == [3]
    # float cas compares bits: -0.0 != +0.0, NaN == same NaN
    nan = np.float32([np.nan])
    out = atomic_fn("cas", "f32")(np.float32([-0.0, np.nan]), np.float32([0.0, nan[0]]), np.float32([1.0, 2.0]))
    assert out[0] == 0 and np.signbit(out[0]) and out[1] == 2.0
    assert apply("and", "b32", [0xF0F0], [0xFF00]) == [0xF000]
    assert apply("or", "b64", [1 << 63], [1]) == [(1 << 63) | 1]
    assert apply("xor", "b32", [0xFFFF], [0x0FF0]) == [0xF00F]


def test_inc_dec():
    # inc: old >= b ? 0 : old + 1 ; dec: (old == 0 || old > b) ? b : old - 1
    assert apply("inc", "u32", [0, 4, 5, 9], [5, 5, 5, 5]) == [1, 5, 0, 0]
    assert apply("dec", "u32", [0, 1, 5, 9], [5, 5, 5, 5]) == [5, 0, 4, 5]
    assert apply("inc", "u32", [0xFFFFFFFE], [0xFFFFFFFF]) == [0xFFFFFFFF]


def test_cas_without_c_and_bad_combinations():
    with pytest.raises(PTXError):
        atomic_fn("cas", "b32")(np.uint32([1]), np.uint32([1]), None)
    for op, t in (("inc", "s32"), ("and", "f32"), ("mul", "u32"), ("add", "b32")):
        with pytest.raises(PTXError):
            atomic_fn(op, t)
    assert math.isfinite(apply("add", "f64", [1e308], [1e308])[0]) is False
