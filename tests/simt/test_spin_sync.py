"""Cross-block synchronisation through global memory (issue 19): spin-waits on a lock or a
flag that another thread block releases must finish in functional mode (fair scheduling of
warp groups), contended compare-and-swap loops must be fast, and the watchdogs must stop a
kernel that never terminates with a report of the loops its warps are stuck in.

Sources: tests/simt/kernels/spin_sync.cu (PTX committed beside it, ``nvcc -ptx -arch=sm_75``).
"""

from pathlib import Path

import numpy as np
import pytest

from golden.errors import DeadlockError
from golden.host import Device
from golden.simt.engine import FunctionalLaunch

PTX = Path(__file__).parent / "kernels" / "spin_sync.ptx"


@pytest.fixture()
def dev():
    return Device(echo_printf=False)


@pytest.fixture()
def mod(dev):
    return dev.load_module(PTX)


def _run(dev, k, grid, block, args, limit=2_000_000):
    """Launch through FunctionalLaunch with an explicit warp-instruction watchdog, so that a
    livelock fails the test quickly instead of hanging it."""
    geo, dyn = k.launch_geometry(grid, block, 0)
    launch = FunctionalLaunch(dev, k.program, geo, k.pack_args(args), dyn_shared=dyn,
                              watchdog=limit)
    return launch.run()


def test_cross_block_spinlock_makes_progress(dev, mod):
    nb = 40
    lock, counter = dev.zeros(1, np.int32), dev.zeros(1, np.int32)
    seen = dev.to_device(np.full(nb, -1, np.int32))
    _run(dev, mod.get_function("lock_counter"), nb, 64, (lock, counter, seen))
    assert counter.get()[0] == nb           # every increment happened under the lock
    assert sorted(seen.get().tolist()) == list(range(nb))  # ... once, each seeing a new value
    assert lock.get()[0] == 0


def test_flag_set_by_another_block_is_seen(dev, mod):
    work = 200
    flag, out = dev.zeros(1, np.int32), dev.zeros(2, np.int32)
    _run(dev, mod.get_function("flag_wait"), 6, 64, (flag, out, np.int32(work)))
    acc = 0
    for i in range(work):
        acc = (acc + (i ^ (acc >> 3))) & 0xFFFFFFFF
    acc = acc - (1 << 32) if acc >> 31 else acc
    assert out.get().tolist() == [1 + (acc & 1023), acc]
    assert flag.get()[0] == 1 + (acc & 1023)


# ------------------------------------------------------------------ contended atomics (item 19)

KINDS = {  # kind -> types
    "add": ("u32", "s32", "u64", "f32", "f64"), "min": ("u32", "s32", "s64", "f32"),
    "max": ("u32", "s64", "f64"), "exch": ("b32", "b64", "f32"), "cas": ("b32", "b64", "f32"),
    "and": ("b32", "b64"), "or": ("b32",), "xor": ("b64",), "inc": ("u32",), "dec": ("u32",),
}


@pytest.mark.parametrize("kind,t", [(k, t) for k, ts in KINDS.items() for t in ts])
def test_serialised_atomics_equal_lane_by_lane_reference(kind, t):
    """_serial_atomic (vectorised per address) gives what applying the atomics one lane
    at a time in lane order gives: memory words and every returned old value, bitwise."""
    from golden.exec.atomics import atomic_fn
    from golden.exec.types import DTYPE
    from golden.simt.engine import _serial_atomic
    dt = DTYPE[t]
    rng = np.random.default_rng(hash((kind, t)) & 0xFFFF)
    for trial in range(30):
        n = int(rng.integers(1, 200))
        naddr = int(rng.integers(1, 6))
        el = np.sort(rng.integers(0, naddr, n), kind="stable")
        small = kind in ("cas", "inc", "dec") or rng.random() < 0.5
        draw = (lambda k: rng.integers(0, 4, k)) if small else (lambda k: rng.integers(-9, 1 << 20, k))
        mem0 = draw(naddr + 1).astype(dt)
        bv, cv = draw(n).astype(dt), draw(n).astype(dt)
        if kind == "cas" and trial % 3 == 0:   # a chain: lane i swaps i -> i + 1
            bv, cv = np.arange(n).astype(dt), np.arange(1, n + 1).astype(dt)
            mem0[:] = 0
        fn = atomic_fn(kind, t)
        ref_mem, ref_old = mem0.copy(), np.empty(n, dt)
        with np.errstate(all="ignore"):
            for i in range(n):
                ref_old[i] = ref_mem[el[i]]
                ref_mem[el[i]] = fn(ref_mem[el[i]:el[i] + 1], bv[i:i + 1], cv[i:i + 1])[0]
            start = np.r_[True, el[1:] != el[:-1]]
            mem = mem0.copy()
            old = _serial_atomic(kind, fn, dt, mem, el, start, bv, cv if kind == "cas" else None)
        assert old.dtype == dt
        np.testing.assert_array_equal(old.view(f"u{dt.itemsize}"), ref_old.view(f"u{dt.itemsize}"))
        np.testing.assert_array_equal(mem.view(f"u{dt.itemsize}"), ref_mem.view(f"u{dt.itemsize}"))


def test_contended_cas_loop_is_not_serialised_lane_by_lane(dev, mod, monkeypatch):
    """2,000 threads add their ids through one compare-and-swap loop. The per-lane update
    function used to run once per lane and round (~2M calls, ~50 s); serialising lanes on one
    address now costs O(successful swaps) vectorised steps per instruction."""
    import golden.simt.engine as engine
    calls = []
    real = engine.atomic_fn

    def counting(*a, **k):
        fn = real(*a, **k)

        def f(*x):
            calls.append(1)
            return fn(*x)
        return f
    monkeypatch.setattr(engine, "atomic_fn", counting)
    n = 2000
    counter = dev.zeros(1, np.int32)
    st = _run(dev, mod.get_function("cas_add"), -(-n // 256), 256, (counter, np.int32(n)))
    assert counter.get()[0] == n * (n - 1) // 2
    assert len(calls) <= st.by_opcode["atom"]


def test_contended_cas_loop_timing_mode():
    from golden.configs import load_config
    from golden.timing.timing_device import TimingDevice
    tdev = TimingDevice(load_config("pascal"), echo_printf=False)
    n = 300
    counter = tdev.zeros(1, np.int32)
    st = tdev.load_module(PTX).get_function("cas_add")(2, 256, (counter, np.int32(n)))
    assert counter.get()[0] == n * (n - 1) // 2
    assert st.cycles > 0
