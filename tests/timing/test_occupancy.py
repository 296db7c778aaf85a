"""Occupancy (golden/timing/occupancy.py): TBs per SM, limiters, the register clamp, waves,
and agreement with the timing model's TB dispatcher (GPU.run uses the same function)."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from golden.errors import LaunchError
from golden.timing.occupancy import RESOURCES, tb_occupancy
from golden.workloads.occupancy import main_waves


def core(**kw):
    """A Pascal-like SM: 32 TB slots, 2048 threads, 64 warps, 64K registers, 96 KB shared."""
    base = dict(warp_size=32, max_tbs_per_sm=32, max_threads_per_sm=2048, max_warps_per_sm=64,
                registers_per_sm=65536, shared_mem_per_sm=98304)
    base.update(kw)
    return SimpleNamespace(**base)


def occ(c, threads, regs, shared=0, clamp=True):
    return tb_occupancy(c, threads, -(-threads // 32), regs, shared, clamp=clamp)


def test_tb_slot_limited():
    o = occ(core(), 64, 16)                      # 2 warps, 2048 regs: slots allow 32
    assert o.tbs_per_sm == 32 and o.limiters == ("TB slots", "threads", "warps")
    o = occ(core(), 32, 16)                      # 1-warp TBs: only the 32 slots bind
    assert o.tbs_per_sm == 32 and o.limiters == ("TB slots",)


def test_thread_limited():
    o = occ(core(max_warps_per_sm=128), 256, 16)
    assert o.tbs_per_sm == 8 and o.limiters == ("threads",)
    assert dict(o.limits)["warps"] == 16


def test_warp_limited():
    # 100-thread TBs take 4 warps (whole warps), threads would allow 20
    o = occ(core(), 100, 16)
    assert o.warps_per_tb == 4 and o.tbs_per_sm == 16 and o.limiters == ("warps",)
    assert dict(o.limits)["threads"] == 20


def test_register_limited():
    o = occ(core(), 256, 44)                     # 11264 registers per TB
    assert o.regs_per_tb == 44 * 256 and o.tbs_per_sm == 5 and o.limiters == ("registers",)
    assert o.regs_clamped_from == 0


def test_shared_memory_limited():
    o = occ(core(), 64, 16, shared=16384)
    assert o.tbs_per_sm == 6 and o.limiters == ("shared memory",)
    assert dict(o.limits)["shared memory"] == 6


def test_no_shared_memory_is_no_limit():
    o = occ(core(shared_mem_per_sm=0), 256, 16)
    assert dict(o.limits)["shared memory"] is None and o.fits and o.tbs_per_sm == 8


def test_several_limiters_tie():
    o = occ(core(), 1024, 32, shared=49152)      # threads 2, warps 2, regs 2, shared 2
    assert o.tbs_per_sm == 2
    assert o.limiters == ("threads", "warps", "registers", "shared memory")
    assert [r for r, _ in o.limits] == list(RESOURCES)


def test_register_estimate_clamped_to_one_tb():
    # 1024 threads x 25 registers > 16K registers (GTX 285): lowered to 16 as with
    # __launch_bounds__, the original estimate kept
    c = core(registers_per_sm=16384, max_threads_per_sm=1024, max_warps_per_sm=32, max_tbs_per_sm=8)
    o = occ(c, 1024, 25)
    assert (o.regs_per_thread, o.regs_clamped_from, o.regs_per_tb) == (16, 25, 16384)
    assert o.tbs_per_sm == 1 and o.fits
    # an override (clamp=False) is taken as given: then the TB does not fit
    o = occ(c, 1024, 25, clamp=False)
    assert o.regs_clamped_from == 0 and not o.fits and o.tbs_per_sm == 0


def test_misfit_error_message():
    c = core(shared_mem_per_sm=16384)
    o = occ(c, 64, 16, shared=20000)
    assert not o.fits
    with pytest.raises(LaunchError) as e:
        o.check("k", "tiny", c)
    assert str(e.value) == (
        "kernel k: one thread block needs {'threads': 64, 'warps': 2, 'regs': 1024, "
        "'shared': 20000} but an SM of tiny has threads 2048, warps 64, registers 65536 "
        "(16 per thread), shared memory 16384 bytes")
    occ(c, 64, 16, shared=16384).check("k", "tiny", c)   # fits: no error


def test_waves():
    o = occ(core(), 1024, 25)                    # 2 TBs/SM
    assert o.tbs_per_wave(28) == 56
    assert o.waves(112, 28) == 2.0 and o.waves(4, 28) == pytest.approx(4 / 56)
    assert occ(core(), 1024, 25, shared=10 ** 6).waves(10, 28) == 0.0


def test_main_waves_is_the_level_80_percent_of_the_work_reaches():
    assert main_waves([3.0], [10]) == 3.0
    assert main_waves([], []) == 0.0
    # a tiny set-up launch does not count; the launches doing the work do
    assert main_waves([0.01, 2.5, 2.0], [1, 50, 49]) == 2.0
    # BFS-like levels: 2.4 and 5.4 waves do 70%, the 2.1-wave level takes it past 80%
    assert main_waves([0.1, 2.1, 5.4, 2.4, 0.2], [2, 20, 45, 25, 8]) == 2.1
    assert main_waves([1.0, 4.0], [0, 0]) == 1.0


# --- the timing model uses the same computation ---------------------------------------------

def _mm_launch(device, config):
    """A FunctionalLaunch of MM's kernel (not run) as the timing model would get it."""
    import numpy as np

    from golden.simt.engine import FunctionalLaunch, LaunchGeometry
    from golden.workloads import registry
    w = registry.get("MM")
    k = device.load_module(w.ptx_path).get_function("matrix_mul")
    d = device.zeros((64, 64), np.float32)
    args = k.pack_args((d, d, d, np.int32(64), np.int32(64)))
    return FunctionalLaunch(device, k.program, LaunchGeometry((2, 2, 1), (32, 32, 1)), args)


def test_gpu_occupancy_matches_dispatcher_and_error():
    from golden.configs import load_config
    from golden.host import Device
    from golden.timing.gpu import GPU, ptx_registers_per_thread
    from golden.timing.timing_device import TimingDevice

    cfg = load_config("gtx285")
    launch = _mm_launch(Device(), cfg)
    gpu = GPU(cfg)
    o = gpu.occupancy(launch)
    # MM's register count: ptxas's committed figure when mm.ptxas.yaml exists, else the
    # PTX estimate; either is clamped to what a 1024-thread TB may use on a 16K-register SM
    committed = gpu.ptxas.registers(launch.program)
    est = gpu.registers_per_thread(launch.program)
    assert est == (committed if committed is not None else ptx_registers_per_thread(launch.program))
    assert o.regs_clamped_from == est > o.regs_per_thread == 16384 // 1024
    assert o.shared_per_tb == launch.shared_bytes and o.tbs_per_sm == 1
    # the clamp GPU.run reports is the one the occupancy function computed
    from golden.workloads import registry
    run = registry.run_workload("MM", "small", device=TimingDevice(cfg))
    assert run.stats[0].timing.mechanism["baseline.registers_clamped_from"] == est
    # a TB no SM can hold: GPU.run raises the occupancy function's error, unchanged
    small = replace(cfg, core=replace(cfg.core, shared_mem_per_sm=1024))
    o = GPU(small).occupancy(launch)
    with pytest.raises(LaunchError) as want:
        o.check(launch.name, small.name, small.core)
    with pytest.raises(LaunchError) as got:
        GPU(small).run(launch)
    assert str(got.value) == str(want.value)
    assert "one thread block needs" in str(got.value) and "shared memory 1024 bytes" in str(got.value)
