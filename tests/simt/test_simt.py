"""SIMT core: divergence/reconvergence, barriers, atomics, calls, 3-D blocks, warp ops, faults."""

from pathlib import Path

import numpy as np
import pytest

from golden.errors import DeadlockError, KernelFault, LaunchError
from golden.host import Device

PTX = Path(__file__).parent / "kernels" / "simt_cases.ptx"


@pytest.fixture()
def dev():
    return Device()


@pytest.fixture()
def mod(dev):
    return dev.load_module(PTX)


def _diverge_ref(v: np.ndarray) -> np.ndarray:
    out = np.zeros_like(v)
    for i, x in enumerate(v.tolist()):
        acc = 0
        if x & 1:
            acc = sum(k * x for k in range(x & 7))
        elif x % 3 == 0:
            acc = -x
        else:
            while x > 1:
                x = 3 * x + 1 if x & 1 else x >> 1
                acc += 1
        out[i] = acc
    return out


def test_divergent_loops_match_reference(dev, mod):
    rng = np.random.default_rng(1)
    n = 1000
    v = rng.integers(0, 200, n).astype(np.int32)
    a, out = dev.to_device(v), dev.zeros(n, np.int32)
    st = mod.get_function("diverge")((4,), (256,), (a, out, np.int32(n)))
    np.testing.assert_array_equal(out.get(), _diverge_ref(v))
    assert st.divergent_branches > 0
    assert 0 < st.simd_utilization < 1
    assert st.warp_instructions > 0 and st.thread_instructions <= 32 * st.warp_instructions


def test_dynamic_shared_and_barrier(dev, mod):
    x = np.arange(512, dtype=np.float32)
    a, out = dev.to_device(x), dev.empty(512, np.float32)
    st = mod.get_function("block_reverse")(2, 256, (a, out), shared_mem=256 * 4)
    np.testing.assert_array_equal(out.get(), x.reshape(2, 256)[:, ::-1].ravel())
    assert st.barriers == 2 * 8


def test_shared_and_global_atomics(dev, mod):
    rng = np.random.default_rng(2)
    v = rng.integers(0, 1 << 20, 5000).astype(np.uint32)
    bins = dev.zeros(40, np.uint32)
    mod.get_function("histogram")(3, 128, (dev.to_device(v), bins, np.int32(v.size), np.int32(40)))
    np.testing.assert_array_equal(bins.get(), np.bincount(v % 40, minlength=40))


def test_atomic_return_values_and_kinds(dev, mod):
    n = 300
    vals = np.random.default_rng(3).integers(-1000, 1000, n).astype(np.int32)
    cnt, mx = dev.zeros(2, np.int32), dev.to_device(np.array([-5000], np.int32))
    fs, ring = dev.zeros(1, np.float32), dev.zeros(n, np.uint32)
    mod.get_function("atomics_mix")(3, 128, (cnt, mx, fs, ring, dev.to_device(vals), np.int32(n)))
    c = cnt.get()
    assert c[0] == n
    # atomicInc wraps at 7: after n increments from 0 the value is n mod 8
    assert c[1] == n % 8
    assert mx.get()[0] == vals.max()
    assert fs.get()[0] == np.float32(0.5 * n)
    # every returned slot is unique: the ring holds a permutation of the thread ids
    np.testing.assert_array_equal(np.sort(ring.get()), np.arange(n))


def test_device_function_call(dev, mod):
    v = np.random.default_rng(4).integers(1, 500, 700).astype(np.int32)
    out = dev.zeros(700, np.int32)
    mod.get_function("call_func")(3, 256, (dev.to_device(v), out, np.int32(700)))

    def clen(x):
        s = 0
        while x != 1 and s < 100:
            x = 3 * x + 1 if x & 1 else x >> 1
            s += 1
        return s
    np.testing.assert_array_equal(out.get(), [clen(x) + 1 for x in v.tolist()])


def test_3d_blocks_linearised_x_fastest(dev, mod):
    grid, block = (2, 3, 2), (4, 3, 5)
    nt = 4 * 3 * 5
    out = dev.zeros(12 * nt, np.int32)
    mod.get_function("ids3d")(grid, block, (out,))
    got = out.get().reshape(2, 3, 2, 5, 3, 4)  # bz, by, bx, tz, ty, tx
    bz, by, bx, tz, ty, tx = np.indices(got.shape)
    want = (tz << 16) | (ty << 8) | tx | (bz << 28) | (by << 24)
    np.testing.assert_array_equal(got, want)


def test_warp_shuffle_and_ballot(dev, mod):
    v = np.random.default_rng(5).integers(-50, 50, 128).astype(np.int32)
    s, b, bc = dev.zeros(4, np.int32), dev.zeros(4, np.uint32), dev.zeros(128, np.int32)
    mod.get_function("warp_ops")(1, 128, (dev.to_device(v), s, b, bc))
    w = v.reshape(4, 32)
    np.testing.assert_array_equal(s.get(), w.sum(axis=1))
    want_b = ((w > 0).astype(np.int64) << np.arange(32)).sum(axis=1).astype(np.uint32)
    np.testing.assert_array_equal(b.get(), want_b)
    np.testing.assert_array_equal(bc.get(), np.repeat(w[:, 3], 32))


def test_constant_table_with_initialiser(dev, mod):
    v = np.arange(64, dtype=np.int32)
    out = dev.zeros(64, np.int32)
    mod.get_function("const_lookup")(1, 64, (dev.to_device(v), out, np.int32(64)))
    lut = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    np.testing.assert_array_equal(out.get(), lut[v & 7] * 10 + lut[(v >> 3) & 7])
    g = mod.get_global("lut", dtype=np.int32)
    assert g.shape == (8,)
    np.testing.assert_array_equal(g.get(), lut)
    g.set(np.arange(8, dtype=np.int32))
    mod.get_function("const_lookup")(1, 64, (dev.to_device(v), out, np.int32(64)))
    np.testing.assert_array_equal(out.get(), (v & 7) * 10 + ((v >> 3) & 7))


def test_out_of_bounds_fault_names_everything(dev, mod):
    out = dev.zeros(64, np.int32)
    with pytest.raises(KernelFault) as e:
        mod.get_function("oob_write")(1, 64, (out, np.int32(64)))
    msg = str(e.value)
    for part in ("oob_write", "pc 0x", "simt_cases.ptx:", "warp 0", "lane 0", "address 0x", "past the end"):
        assert part in msg, msg
    assert e.value.lane == 0


def test_barrier_deadlock_is_reported(dev, mod):
    with pytest.raises(DeadlockError) as e:
        mod.get_function("barrier_deadlock")(1, 128, (dev.zeros(32, np.int32),))
    msg = str(e.value)
    assert "barrier_deadlock" in msg and "wait at barrier" in msg and "simt_cases.ptx:" in msg
    assert "3 warp(s) already exited" in msg


def test_loop_deadlock_watchdog(dev, mod):
    k = mod.get_function("spin_forever")
    from golden.simt.engine import FunctionalLaunch, LaunchGeometry
    launch = FunctionalLaunch(dev, k.program, LaunchGeometry((1, 1, 1), (32, 1, 1)),
                              k.pack_args((dev.zeros(1, np.int32),)), watchdog=20_000)
    with pytest.raises(DeadlockError) as e:
        launch.run()
    assert "stuck in a loop" in str(e.value) and "simt_cases.ptx:" in str(e.value)


def test_bad_launch_arguments(dev, mod):
    k = mod.get_function("diverge")
    a = dev.zeros(4, np.int32)
    with pytest.raises(LaunchError, match="takes 3 argument"):
        k(1, 32, (a, a))
    with pytest.raises(LaunchError, match="argument 2 .*int64"):
        k(1, 32, (a, a, np.int64(4)))
    with pytest.raises(LaunchError, match="expected an integer"):
        k(1, 32, (a, a, 4.0))
    with pytest.raises(LaunchError, match="argument 1 .*got int32"):
        k(1, 32, (a, np.int32(3), np.int32(4)))
    with pytest.raises(LaunchError, match="does not fit"):
        k(1, 32, (a, a, 1 << 40))
    with pytest.raises(LaunchError, match="no kernel named 'nope'.*diverge"):
        mod.get_function("nope")
    with pytest.raises(LaunchError, match="block"):
        k(1, (2048,), (a, a, np.int32(4)))


def test_deterministic_statistics(mod, dev):
    v = np.random.default_rng(6).integers(0, 200, 900).astype(np.int32)
    runs = []
    for _ in range(2):
        out = dev.zeros(900, np.int32)
        runs.append(mod.get_function("diverge")(4, 256, (dev.to_device(v), out, np.int32(900))).to_dict())
    for r in runs:
        r.pop("wall_seconds")
    assert runs[0] == runs[1]


def test_carry_flag_chain(dev, mod):
    r = np.random.default_rng(7)
    a = r.integers(0, 2**64 - 1, 64, dtype=np.uint64)
    b = r.integers(0, 2**64 - 1, 64, dtype=np.uint64)
    c = dev.zeros(64, np.uint64)
    mod.get_function("add64_carry")(1, 64, (dev.to_device(a), dev.to_device(b), c))
    np.testing.assert_array_equal(c.get(), a + b)  # numpy uint64 addition wraps like the kernel


class _Recorder:
    def __init__(self):
        self.events = []

    def on_exec(self, ev):
        self.events.append(ev)


def test_observer_sees_every_warp_instruction_with_values(dev, mod):
    v = np.arange(64, dtype=np.int32)
    out = dev.zeros(64, np.int32)
    rec = _Recorder()
    st = mod.get_function("const_lookup")(2, 32, (dev.to_device(v), out, np.int32(64)), observers=[rec])
    assert sum(e.warps.size for e in rec.events) == st.warp_instructions
    assert sum(int(e.active.sum()) for e in rec.events) == st.thread_instructions
    # the global index i = ctaid.x * ntid.x + tid.x is computed by a mad.lo: its destination values
    mads = [e for e in rec.events if e.inst.opcode == "mad"]
    assert mads, "kernel computes its index with mad.lo"
    e = mads[0]
    assert e.dsts[0][1].shape == (e.warps.size, 32)
    for row, tb in zip(e.dsts[0][1], e.tbs):
        np.testing.assert_array_equal(row.view(np.int32), tb * 32 + np.arange(32))
    # sources include the special registers with their lane values
    srcs = [e.srcs for e in rec.events if e.inst.opcode == "mov" and "%tid.x" in e.inst.text]
    assert srcs and any(np.array_equal(vals[0], np.arange(32)) for o, vals in srcs[0])


def test_device_printf(mod):
    dev = mod.device
    dev.echo_printf = False
    mod.get_function("hello")(2, 32, (np.int32(100),))
    want = [f"tb {b} thread {t}: {100 + t} {0.5 * t:5.2f} ok {chr(65 + t % 26)} 1234567890\n"
            for b in range(2) for t in (3, 19)]
    assert dev.printf_output == want


def test_pointer_table_initialiser(dev, mod):
    out = dev.zeros(4, np.int32)
    mod.get_function("pointer_table")(1, 4, (out,))
    np.testing.assert_array_equal(out.get(), [7, 9, 7, 9])


def test_step_warp_api_matches_batched_run(dev, mod):
    """Stepping warps one at a time in any interleaving gives the batched result."""
    from golden.simt.engine import FunctionalLaunch, LaunchGeometry
    rng = np.random.default_rng(8)
    v = rng.integers(0, 200, 256).astype(np.int32)
    out = dev.zeros(256, np.int32)
    k = mod.get_function("diverge")
    launch = FunctionalLaunch(dev, k.program, LaunchGeometry((2, 1, 1), (128, 1, 1)),
                              k.pack_args((dev.to_device(v), out, np.int32(256))))
    w = launch.make_wave([0, 1])
    live = list(range(w.nwarps))
    n_mem = 0
    while live:
        warp = int(rng.choice(live))
        rec = launch.step_warp(w, warp)
        if rec is None or rec.finished:
            live.remove(warp)
            continue
        if rec.slot.inst.opcode in ("ld", "st"):
            assert rec.mem is not None and rec.mem.addrs.shape == (32,)
            n_mem += 1
    np.testing.assert_array_equal(out.get(), _diverge_ref(v))
    assert n_mem > 0 and launch.next_pc(w, 0) is None


@pytest.mark.parametrize("seed", [8, 9, 10])
def test_deferred_register_work_matches_eager_stepping(dev, mod, seed):
    """FunctionalLaunch.defer_registers: in a random interleaving of warps (divergent
    loops that rewrite their registers, predicated code, loads and stores), deferring
    register-only instructions and running them in warp groups leaves every register of
    every thread as eager stepping does, and the same statistics."""
    from golden.simt.engine import FunctionalLaunch, LaunchGeometry
    v = np.random.default_rng(seed).integers(0, 200, 256).astype(np.int32)
    a, out = dev.to_device(v), dev.zeros(256, np.int32)   # same addresses in both runs
    k = mod.get_function("diverge")
    got = []
    for defer in (False, True):
        out.set(np.zeros(256, np.int32))
        launch = FunctionalLaunch(dev, k.program, LaunchGeometry((2, 1, 1), (128, 1, 1)),
                                  k.pack_args((a, out, np.int32(256))))
        launch.defer_registers = defer
        w = launch.make_wave([0, 1])
        rng = np.random.default_rng(seed)
        live = list(range(w.nwarps))
        records = []
        while live:
            warp = int(rng.choice(live))
            rec = launch.step_warp(w, warp)
            if rec is None or rec.finished:
                live.remove(warp)
            if rec is not None:
                records.append((warp, rec.pc, rec.active_mask, rec.next_pc))
        launch.flush_wave(w)
        assert not w.deferred and not w.deferred_heads
        np.testing.assert_array_equal(out.get(), _diverge_ref(v))
        got.append((records, launch.stats.by_opcode, {k: a.copy() for k, a in w.regs.items()}))
    (rec0, ops0, regs0), (rec1, ops1, regs1) = got
    assert rec0 == rec1 and ops0 == ops1
    for key in regs0:
        np.testing.assert_array_equal(regs0[key], regs1[key], err_msg=key)


_RECURSIVE_PTX = """
.version 7.0
.target sm_75
.address_size 64

.func  (.param .b32 func_retval0) sum_to(
	.param .b32 sum_to_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<5>;
	ld.param.u32 	%r1, [sum_to_param_0];
	setp.eq.s32 	%p1, %r1, 0;
	mov.u32 	%r4, 0;
	@%p1 bra 	$L_done;
	add.s32 	%r2, %r1, -1;
	{
	.param .b32 param0;
	st.param.b32 	[param0+0], %r2;
	.param .b32 retval0;
	call.uni (retval0), sum_to, (param0);
	ld.param.b32 	%r3, [retval0+0];
	}
	add.s32 	%r4, %r3, %r1;
$L_done:
	st.param.b32 	[func_retval0+0], %r4;
	ret;
}

.func  (.param .b32 func_retval0) is_odd(.param .b32 is_odd_param_0);

.func  (.param .b32 func_retval0) is_even(
	.param .b32 is_even_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<5>;
	ld.param.u32 	%r1, [is_even_param_0];
	setp.eq.s32 	%p1, %r1, 0;
	mov.u32 	%r4, 1;
	@%p1 bra 	$L_even_done;
	add.s32 	%r2, %r1, -1;
	{
	.param .b32 param0;
	st.param.b32 	[param0+0], %r2;
	.param .b32 retval0;
	call.uni (retval0), is_odd, (param0);
	ld.param.b32 	%r4, [retval0+0];
	}
$L_even_done:
	st.param.b32 	[func_retval0+0], %r4;
	ret;
}

.func  (.param .b32 func_retval0) is_odd(
	.param .b32 is_odd_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<5>;
	ld.param.u32 	%r1, [is_odd_param_0];
	setp.eq.s32 	%p1, %r1, 0;
	mov.u32 	%r4, 0;
	@%p1 bra 	$L_odd_done;
	add.s32 	%r2, %r1, -1;
	{
	.param .b32 param0;
	st.param.b32 	[param0+0], %r2;
	.param .b32 retval0;
	call.uni (retval0), is_even, (param0);
	ld.param.b32 	%r4, [retval0+0];
	}
$L_odd_done:
	st.param.b32 	[func_retval0+0], %r4;
	ret;
}

.visible .entry {kernel}(
	.param .u64 out_param
)
{
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [out_param];
	mov.u32 	%r1, %tid.x;
	{
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), {callee}, (param0);
	ld.param.b32 	%r2, [retval0+0];
	}
	cvta.to.global.u64 	%rd2, %rd1;
	st.global.u32 	[%rd2], %r2;
	ret;
}
"""


@pytest.mark.parametrize("callee,fragment", [
    ("sum_to", r"'sum_to' calls itself \(sum_to calls sum_to at [^ ]*:2\d:"),
    ("is_even", r"mutual recursion is_even -> is_odd -> is_even \(is_even calls is_odd at "
                r"[^ ]*:\d+:\d+; is_odd calls is_even at [^ ]*:\d+:\d+\)"),
])
def test_recursion_is_refused_at_link_time(dev, callee, fragment):
    """Issue 19 item 1: functions have one register set per thread, not per call, so a
    recursive call overwrote its caller's registers and computed wrong values silently."""
    from golden.errors import PTXError
    code = _RECURSIVE_PTX.replace("{kernel}", "k_" + callee).replace("{callee}", callee)
    k = dev.load_module(code=code).get_function("k_" + callee)
    with pytest.raises(PTXError, match="recursive device function call in kernel k_" + callee
                       + ": " + fragment) as ei:
        k(1, 4, (dev.zeros(4, np.int32),))
    assert "supported: non-recursive" in str(ei.value)


_BIG_SHARED_PTX = """
.version 7.0
.target sm_75
.address_size 64
.shared .align 4 .b8 big[{n}];

.visible .entry uses_shared(
	.param .u64 out_param
)
{
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<3>;
	mov.u32 	%r1, %tid.x;
	st.shared.u32 	[big], %r1;
	ret;
}
"""


@pytest.mark.parametrize("grid,block,shared,msg", [
    (1, (32, 1, 65), 0, r"blockDim\.z = 65 exceeds CUDA's limit of 64"),
    (1, (1025, 1, 1), 0, r"blockDim\.x = 1025 exceeds CUDA's limit of 1024"),
    (1, (1, 1100, 1), 0, r"blockDim\.y = 1100 exceeds CUDA's limit of 1024"),
    (1, (32, 32, 2), 0, r"block \(32, 32, 2\) has 2048 threads; the limit is 1024"),
    ((1, 70_000, 1), 32, 0, r"gridDim\.y = 70000 exceeds CUDA's limit of 65535"),
    ((1, 1, 65_536), 32, 0, r"gridDim\.z = 65536 exceeds CUDA's limit of 65535"),
    (1 << 31, 32, 0, r"gridDim\.x = 2147483648 exceeds CUDA's limit of 2147483647"),
    ((1, 0), 32, 0, r"grid \(launch argument 0\) must be a positive int"),
    (1, (32, 0, 1), 0, r"block \(launch argument 1\) must be a positive int"),
    (1, 32, 48 * 1024 - 3, r"needs 49153 bytes of shared memory \(4 static \+ 49149 dynamic\); "
                           r"the limit per block is 49152 bytes"),
])
def test_cuda_launch_limits_in_functional_mode(dev, grid, block, shared, msg):
    """Issue 19 item 4: functional mode ran blockDim.z = 65, gridDim.y = 70,000 and more
    shared memory than CUDA allows; every limit is now checked at launch (both modes)."""
    k = dev.load_module(code=_BIG_SHARED_PTX.replace("{n}", "4")).get_function("uses_shared")
    with pytest.raises(LaunchError, match=msg):
        k(grid, block, (dev.zeros(1, np.int32),), shared_mem=shared)


def test_static_shared_memory_limit_in_functional_mode(dev):
    """Issue 19 item 4: 256 KB of static shared memory ran in functional mode."""
    big = _BIG_SHARED_PTX.replace("{n}", str(256 * 1024))
    k = dev.load_module(code=big).get_function("uses_shared")
    with pytest.raises(LaunchError, match=r"kernel uses_shared: a thread block needs 262144 bytes "
                                          r"of shared memory \(262144 static \+ 0 dynamic\); the "
                                          r"limit per block is 49152 bytes \(CUDA's 48 KB"):
        k(1, 32, (dev.zeros(1, np.int32),))
    at_limit = _BIG_SHARED_PTX.replace("{n}", str(48 * 1024))
    ok = dev.load_module(code=at_limit).get_function("uses_shared")
    ok(1, 32, (dev.zeros(1, np.int32),))  # exactly at the limit: runs


def test_shared_memory_limit_in_timing_mode_is_the_configs():
    from golden.configs import load_config
    from golden.timing.timing_device import TimingDevice
    dev = TimingDevice(load_config("gtx285"), echo_printf=False)
    k = dev.load_module(code=_BIG_SHARED_PTX.replace("{n}", "4")).get_function("uses_shared")
    with pytest.raises(LaunchError, match=r"20004 bytes of shared memory \(4 static \+ 20000 "
                                          r"dynamic\); the limit per block is 16384 bytes "
                                          r"\(core\.shared_mem_per_sm of gtx285\)"):
        k(1, 32, (dev.zeros(1, np.int32),), shared_mem=20000)


@pytest.mark.parametrize("grid,shared,msg", [
    (2.0, 0, r"kernel uses_shared: grid \(launch argument 0\) must be a positive int or a tuple "
             r"of 1-3 positive ints, got 2\.0 \(float\)"),
    ("4", 0, r"grid \(launch argument 0\) must be .* got '4' \(str\)"),
    (1, -100, r"kernel uses_shared: shared_mem = -100 bytes of dynamic shared memory; it must "
              r"be >= 0"),
    (1, 1.5, r"shared_mem must be an int .* got 1\.5 \(float\)"),
])
def test_bad_grid_and_shared_mem_are_launch_errors(dev, grid, shared, msg):
    """Issue 19 item 10: k(2.0, ...) raised TypeError, shared_mem=-100 numpy's ValueError."""
    k = dev.load_module(code=_BIG_SHARED_PTX.replace("{n}", "4")).get_function("uses_shared")
    with pytest.raises(LaunchError, match=msg):
        k(grid, 32, (dev.zeros(1, np.int32),), shared_mem=shared)


_NULL_PTX = """
.version 7.0
.target sm_75
.address_size 64

.visible .entry load_null(
	.param .u64 in_param,
	.param .u64 out_param
)
{
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<5>;
	ld.param.u64 	%rd1, [in_param];
	ld.param.u64 	%rd2, [out_param];
	cvta.to.global.u64 	%rd3, %rd1;
	ld.global.u32 	%r1, [%rd3+8];
	cvta.to.global.u64 	%rd4, %rd2;
	st.global.u32 	[%rd4], %r1;
	ret;
}
"""


def test_null_pointer_fault_says_null_pointer(dev):
    """Issue 19 item 18: a load through a NULL pointer was reported as a plain out-of-bounds
    access; it now says "null pointer dereference", still with kernel, PC, warp, lane, address."""
    k = dev.load_module(code=_NULL_PTX).get_function("load_null")
    out = dev.zeros(1, np.int32)
    with pytest.raises(KernelFault) as e:
        k(1, 32, (np.uint64(0), out))
    msg = str(e.value)
    assert msg.startswith("null pointer dereference: out-of-bounds global memory access"), msg
    for part in ("kernel load_null", "pc 0x", "<string>:16:", "warp 0", "lane 0", "address 0x8"):
        assert part in msg, msg
    assert "nearest allocation" not in msg
    # an address far from 0 is still an ordinary out-of-bounds access
    with pytest.raises(KernelFault) as e:
        k(1, 32, (np.uint64(out.ptr + (1 << 20)), out))
    assert "null pointer" not in str(e.value) and "out-of-bounds global" in str(e.value)
