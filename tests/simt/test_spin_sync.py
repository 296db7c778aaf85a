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


# ------------------------------------------------------------------ watchdogs (item 6)

def _tdev(**kw):
    from golden.configs import load_config
    from golden.timing.timing_device import TimingDevice
    return TimingDevice(load_config("pascal"), echo_printf=False, **kw)


def test_default_watchdogs_fire_within_minutes():
    """200M warp instructions / 2e9 cycles took hours; the defaults are 20M / 50M, above
    every shipped workload at `paper` size (largest launch 7.5M warp instructions, LAVAMD;
    longest run 5.2M cycles, BFS on gtx285) and settable per device and per launch."""
    from golden.simt.engine import DEFAULT_MAX_CYCLES, DEFAULT_MAX_INSTRUCTIONS
    from golden.timing.gpu import GPU
    from golden.configs import load_config
    assert DEFAULT_MAX_INSTRUCTIONS == 20_000_000 and DEFAULT_MAX_CYCLES == 50_000_000
    assert Device().max_instructions == DEFAULT_MAX_INSTRUCTIONS
    assert Device(max_instructions=123).max_instructions == 123
    t = _tdev()
    assert t.max_cycles == DEFAULT_MAX_CYCLES and t.gpu.max_cycles == DEFAULT_MAX_CYCLES
    assert _tdev(max_cycles=77).gpu.max_cycles == 77
    assert GPU(load_config("pascal")).max_cycles == DEFAULT_MAX_CYCLES


def test_functional_watchdog_reports_loop_lines_and_iterations(dev, mod):
    k = mod.get_function("wait_forever")
    out = dev.zeros(4 * 64, np.int32)
    with pytest.raises(DeadlockError) as e:
        k(4, 64, (dev.zeros(1, np.int32), out), max_instructions=30_000)
    msg = str(e.value)
    assert "more than 30,000 warp instructions (max_instructions)" in msg
    assert "stuck in a loop" in msg and "--max-instructions" in msg
    # the loop: its PTX lines (head .. back edge) with their text, the warp, its iterations
    assert "loop " in msg and "spin_sync.ptx:" in msg and "ld.volatile.global.u32" in msg
    assert "bra $L__BB3_2" in msg
    it = int(msg.split("tb 0 warp 0 (")[1].split(" iterations")[0].replace(",", ""))
    assert 9_000 < it <= 10_000        # 3 instructions per iteration
    # every other warp went on and stored its 1s; warp 0 of tb 0 waits for its lane 0
    assert out.get()[32:].tolist() == [1] * 224 and not out.get()[:32].any()


def test_device_default_watchdog_applies(mod):
    dev = Device(echo_printf=False, max_instructions=5_000)
    m = dev.load_module(PTX)
    with pytest.raises(DeadlockError, match="more than 5,000 warp instructions"):
        m.get_function("wait_forever")(1, 32, (dev.zeros(1, np.int32), dev.zeros(32, np.int32)))


def test_watchdog_arguments_are_checked(dev, mod):
    from golden.errors import LaunchError, SimtlabError
    k = mod.get_function("wait_forever")
    args = (dev.zeros(1, np.int32), dev.zeros(32, np.int32))
    for bad in (0, -5, 2.5, True, "10"):
        with pytest.raises(LaunchError, match="max_instructions must be a positive integer"):
            k(1, 32, args, max_instructions=bad)
    with pytest.raises(LaunchError, match="max_cycles applies to timing-mode launches"):
        k(1, 32, args, max_cycles=1000)
    with pytest.raises(SimtlabError, match="max_instructions"):
        Device(max_instructions=0)


def test_timing_watchdog_reports_loop_lines_and_iterations():
    tdev = _tdev()
    k = tdev.load_module(PTX).get_function("wait_forever")
    with pytest.raises(DeadlockError) as e:
        k(4, 64, (tdev.zeros(1, np.int32), tdev.zeros(256, np.int32)), max_cycles=100_000)
    msg = str(e.value)
    assert "more than 100,000 cycles (max_cycles)" in msg and "--max-cycles" in msg
    assert "spin_sync.ptx:" in msg and "ld.volatile.global.u32" in msg
    assert "tb 0 warp 0 (" in msg and " iterations)" in msg
    assert "next pc 0x" in msg and "SM 0 TB 0 warp 0" in msg
    # the instruction watchdog also stops a timing-mode launch
    with pytest.raises(DeadlockError, match="more than 2,000 warp instructions"):
        k(1, 32, (tdev.zeros(1, np.int32), tdev.zeros(32, np.int32)), max_instructions=2_000)


def test_timing_deadlock_report_gives_ptx_lines():
    tdev = _tdev()
    m = tdev.load_module(Path(__file__).parent / "kernels" / "simt_cases.ptx")
    with pytest.raises(DeadlockError) as e:
        m.get_function("barrier_deadlock")(1, 128, (tdev.zeros(32, np.int32),))
    msg = str(e.value)
    assert "no warp can ever progress" in msg and "waits at a barrier" in msg
    assert "simt_cases.ptx:" in msg       # the source line of the warp's next instruction


def test_timing_spinlock_and_flag():
    tdev = _tdev()
    m = tdev.load_module(PTX)
    lock, counter, seen = tdev.zeros(1, np.int32), tdev.zeros(1, np.int32), tdev.zeros(8, np.int32)
    m.get_function("lock_counter")(8, 64, (lock, counter, seen))
    assert counter.get()[0] == 8 and sorted(seen.get().tolist()) == list(range(8))


def test_round_robin_steps_only_in_synchronising_loops(dev, mod):
    """The fairness rule applies only while the lowest-PC warps are in a loop with an
    atomic / volatile load / fence; other kernels keep the pure lowest-PC order (and its
    batching)."""
    from golden.simt.engine import _sync_loops
    p = mod.get_function("lock_counter").program
    flags = _sync_loops(p)
    cas = next(s.pc for s in p.slots if s.inst is not None and s.inst.opcode == "atom"
               and "cas" in s.inst.mods)
    exch = next(s.pc for s in p.slots if s.inst is not None and "exch" in s.inst.mods)
    assert flags[cas >> 3] and not flags[exch >> 3]   # the acquire loop, not the release
    assert not _sync_loops(mod.get_function("flag_wait").program)[
        [s.pc >> 3 for s in mod.get_function("flag_wait").program.slots
         if s.inst is not None and s.inst.opcode == "xor"]].any()   # the setter's work loop
    simt = dev.load_module(Path(__file__).parent / "kernels" / "simt_cases.ptx")
    assert not _sync_loops(simt.get_function("diverge").program).any()
