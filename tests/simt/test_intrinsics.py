"""Issue 19 items 11 and 12: ``__trap()``, ``assert()``, ``__match_{any,all}_sync``,
``__reduce_*_sync`` (``redux.sync``) and the refusal of ``brx.idx``.

Kernels: tests/simt/kernels/robust_intrinsics.cu (``nvcc -ptx -arch=sm_75``) and
tests/simt/kernels/sm80/robust_redux.cu (``-arch=sm_80``: sm_75 has no redux); the PTX is
committed beside them (``make ptx``). Results are checked against numpy references, in
functional mode and (for a subset) in timing mode.
"""

from pathlib import Path

import numpy as np
import pytest

from golden.configs import load_config
from golden.errors import KernelFault, PTXError
from golden.host import Device
from golden.timing.timing_device import TimingDevice

KDIR = Path(__file__).parent / "kernels"
SEED = 19011


def _devices():
    return [pytest.param(lambda: Device(echo_printf=False), id="functional"),
            pytest.param(lambda: TimingDevice(load_config("gtx480"), echo_printf=False),
                         id="timing")]


@pytest.fixture(params=_devices())
def dev(request):
    return request.param()


def _mod(dev, name):
    return dev.load_module(KDIR / f"{name}.ptx")


def _warps(a, n):
    """Split the first n entries into warps of 32 (the last one partial)."""
    return [a[k:min(k + 32, n)] for k in range(0, n, 32)]


# ----------------------------------------------------------------------------- trap

def test_trap_is_a_kernel_fault_naming_kernel_line_warp_and_lanes(dev):
    m = _mod(dev, "robust_intrinsics")
    v = np.arange(100, dtype=np.int32)
    v[[37, 38, 41]] = -1  # warp 1 of block 0 (block 64), lanes 5, 6, 9
    o = dev.zeros(100, np.int32)
    with pytest.raises(KernelFault) as e:
        m.get_function("trap_if_negative")(2, 64, (dev.to_device(v), o, np.int32(100)))
    msg = str(e.value)
    assert "trap" in msg and "kernel trap_if_negative" in msg
    assert "robust_intrinsics.ptx:" in msg and "pc 0x" in msg
    assert "warp 1 of thread block 0" in msg and "lanes 5-6, 9" in msg
    assert "thread [37,0,0]" in msg
    assert e.value.loc.line > 0


def test_trap_not_taken_runs_normally(dev):
    m = _mod(dev, "robust_intrinsics")
    v = np.arange(100, dtype=np.int32)
    o = dev.zeros(100, np.int32)
    m.get_function("trap_if_negative")(2, 64, (dev.to_device(v), o, np.int32(100)))
    np.testing.assert_array_equal(o.get(), v * 2)


# ----------------------------------------------------------------------------- assert

def test_assert_reports_message_file_line_function_and_thread(dev):
    m = _mod(dev, "robust_intrinsics")
    v = np.arange(70, dtype=np.int32)
    v[66] = -5  # block 1, thread 2: warp 0 of thread block 1, lane 2
    o = dev.zeros(70, np.int32)
    with pytest.raises(KernelFault) as e:
        m.get_function("assert_non_negative")(2, 64, (dev.to_device(v), o, np.int32(70)))
    msg = str(e.value)
    src = (KDIR / "robust_intrinsics.cu").read_text().splitlines()
    line = next(i for i, t in enumerate(src, 1) if "assert(v[i] >= 0)" in t)
    assert f"assertion `v[i] >= 0` failed at robust_intrinsics.cu:{line}" in msg
    assert "assert_non_negative(const int *, int *, int)" in msg
    assert "kernel assert_non_negative" in msg and "warp 0 of thread block 1" in msg
    assert "lane 2" in msg and "block [1,0,0], thread [2,0,0]" in msg


def test_assert_that_holds_runs_normally(dev):
    m = _mod(dev, "robust_intrinsics")
    v = np.arange(70, dtype=np.int32)
    o = dev.zeros(70, np.int32)
    m.get_function("assert_non_negative")(2, 64, (dev.to_device(v), o, np.int32(70)))
    np.testing.assert_array_equal(o.get(), v + 1)


# ----------------------------------------------------------------------------- match

def _match_any_ref(vals, members):
    out = np.zeros(len(vals), dtype=np.uint32)
    for j in range(len(vals)):
        if members[j]:
            out[j] = sum(1 << k for k in range(len(vals)) if members[k] and vals[k] == vals[j])
    return out


def test_match_any_32_64_and_divergent(dev):
    rng = np.random.default_rng(SEED)
    n = 77
    v = rng.integers(0, 4, n).astype(np.int32)
    w = (rng.integers(0, 3, n).astype(np.int64) << 40) | 5  # differ only in the high word
    o = dev.zeros(3 * n, np.uint32)
    m = _mod(dev, "robust_intrinsics")
    m.get_function("match_any")(2, 64, (dev.to_device(v), dev.to_device(w), o, np.int32(n)))
    got = o.get().reshape(n, 3)
    tid = np.arange(n) % 64
    for k in range(0, n, 32):
        sl = slice(k, min(k + 32, n))
        cnt = sl.stop - sl.start
        lanes = np.arange(cnt)
        np.testing.assert_array_equal(got[sl, 0], _match_any_ref(v[sl], np.ones(cnt, bool)))
        np.testing.assert_array_equal(got[sl, 1], _match_any_ref(w[sl], np.ones(cnt, bool)))
        part = (tid[sl] & 31) % 3 != 0
        ref = np.where(part, _match_any_ref(v[sl], part), 0xDEADBEEF)
        np.testing.assert_array_equal(got[sl, 2], ref, err_msg=f"warp at {k} lanes {lanes}")


def test_match_all(dev):
    n = 80
    v = np.full(n, 7, dtype=np.int32)
    v[40] = 8  # the second warp (lanes 32-63) differs; the third (64-79) is uniform
    o = dev.zeros(n, np.uint32)
    p = dev.zeros(n, np.int32)
    m = _mod(dev, "robust_intrinsics")
    m.get_function("match_all")(3, 32, (dev.to_device(v), o, p, np.int32(n)))
    want_o = np.r_[np.full(32, 0xFFFFFFFF), np.zeros(32), np.full(16, 0xFFFF)].astype(np.uint32)
    np.testing.assert_array_equal(o.get(), want_o)
    np.testing.assert_array_equal(p.get(), np.r_[np.ones(32), np.zeros(32), np.ones(16)])


# ----------------------------------------------------------------------------- redux

def test_redux_all_ops(dev):
    rng = np.random.default_rng(SEED)
    n = 90  # three warps, the last one partial (26 lanes)
    u = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    u[:5] = [0xFFFFFFFF, 0x80000000, 0, 1, 0xFFFFFFFE]  # wrap-around in the sum
    s = rng.integers(-(1 << 31), 1 << 31, n).astype(np.int32)
    o = dev.zeros(8 * n, np.uint32)
    m = dev.load_module(KDIR / "sm80" / "robust_redux.ptx")
    m.get_function("redux_all")(1, 96, (dev.to_device(u), dev.to_device(s), o, np.int32(n)))
    got = o.get().reshape(n, 8)
    for wu, ws, g in zip(_warps(u, n), _warps(s, n), _warps(got, n)):
        ref = [int(wu.astype(np.uint64).sum()) & 0xFFFFFFFF, wu.min(), wu.max(),
               int(ws.min()) & 0xFFFFFFFF, int(ws.max()) & 0xFFFFFFFF,
               np.bitwise_and.reduce(wu), np.bitwise_or.reduce(wu), np.bitwise_xor.reduce(wu)]
        np.testing.assert_array_equal(g, np.tile(np.array(ref, dtype=np.uint32), (len(wu), 1)))


def test_redux_membermask_subset(dev):
    n = 64
    s = np.arange(n, dtype=np.int32) * 3 - 50
    o = dev.zeros(n, np.int32)
    m = dev.load_module(KDIR / "sm80" / "robust_redux.ptx")
    m.get_function("redux_odd")(1, 64, (dev.to_device(s), o, np.int32(n)))
    want = np.full(n, -7, dtype=np.int32)
    for k in (0, 32):
        odd = np.arange(k + 1, k + 32, 2)
        want[odd] = s[odd].sum()
    np.testing.assert_array_equal(o.get(), want)


def _redux_ptx(form: str, target: str = "sm_80") -> str:
    return f""".version 7.0
.target {target}
.address_size 64
.visible .entry k(.param .u64 p)
{{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	mov.u32 %r1, %tid.x;
	{form} %r2, %r1, -1;
	ld.param.u64 %rd1, [p];
	st.global.u32 [%rd1], %r2;
	ret;
}}
"""


def test_redux_needs_sm80_target():
    with pytest.raises(PTXError, match=r"<string>:9:.*redux.sync.add.u32' requires .target "
                                       r"sm_80 or higher"):
        Device().load_module(code=_redux_ptx("redux.sync.add.u32", "sm_75"))


@pytest.mark.parametrize("form", ["redux.sync.add.f32", "redux.sync.and.u64",
                                  "redux.sync.min.b32"])
def test_redux_unsupported_forms_are_ptx_errors(form):
    dev = Device(echo_printf=False)
    m = dev.load_module(code=_redux_ptx(form))
    out = dev.zeros(1, np.uint32)
    with pytest.raises(PTXError, match=r"<string>:9:.*unsupported form of redux"):
        m.get_function("k")(1, 32, (out,))


# ----------------------------------------------------------------------------- brx

BRX = """.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1;
	ts: .branchtargets L0, L1;
	brx.idx %r2, ts;
L0:
	ret;
L1:
	ret;
}
"""


def test_brx_is_refused_with_the_unsupported_message():
    with pytest.raises(PTXError, match=r"<string>:9:\d+: .branchtargets \(indirect branch "
                                       r"tables, brx.idx\) is not supported"):
        Device().load_module(code=BRX)
    with pytest.raises(PTXError, match=r"<string>:9:\d+: unsupported PTX opcode 'brx'"):
        Device().load_module(code=BRX.replace("\tts: .branchtargets L0, L1;\n", "")
                             .replace("brx.idx %r2, ts;", "brx.idx %r2, L0;"))
