"""DARSIE limit study (Figs. 1-3): value-based grid/TB/warp redundancy, the uniform/affine/
unstructured taxonomy, divergence handling and the soundness check of the marking."""

import dataclasses

import numpy as np
import pytest

from golden.host import Device
from golden.mechanisms.darsie import Redundancy, mark_kernel
from golden.mechanisms.darsie.limit_study import RedundancyObserver
from golden.workloads.observed import ObservedDevice, run_observed

SEED = 7  # input data seed (numpy Generator)

FIG3 = """
.version 9.0
.target sm_75
.address_size 64
.visible .entry fig3(.param .u64 fig3_in, .param .u64 fig3_out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [fig3_in];
	ld.param.u64 %rd5, [fig3_out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r3, [%rd4];
	mov.u32 %r4, %tid.y;
	mov.u32 %r5, %ntid.x;
	mad.lo.s32 %r6, %r4, %r5, %r1;
	cvta.to.global.u64 %rd6, %rd5;
	mul.wide.u32 %rd7, %r6, 4;
	add.s64 %rd8, %rd6, %rd7;
	st.global.u32 [%rd8], %r3;
	ret;
}
"""
# index of each instruction in FIG3
LDP0, LDP1, CVTA_IN, TIDX, MUL, ADD, LD, TIDY, NTID, MAD, CVTA_OUT, MULW, ADDO, ST, RET = range(15)


def run_fig3(block, observer):
    rng = np.random.default_rng(SEED)
    dev = Device(echo_printf=False)
    mod = dev.load_module(code=FIG3)
    n = block[0] * block[1]
    src = dev.to_device(rng.integers(0, 1000, size=max(block[0], n), dtype=np.uint32))
    out = dev.zeros(n, np.uint32)
    mod.get_function("fig3")((1, 1), block, (src, out), observers=[observer])
    got = out.get()
    want = src.get()[np.arange(n) % block[0]]
    assert np.array_equal(got, want)
    return observer.launches[-1]


def test_fig3_2d_tb_is_affine_and_unstructured_redundant():
    obs = RedundancyObserver()
    lr = run_fig3((32, 2), obs)
    c = lr.counts
    assert c.warp_instructions == 2 * 15
    # TB-redundant (2 warps each): ld.param x2, cvta x2, ntid, ret (uniform: ret has no
    # operands); tid.x, mul, add (affine); the load (unstructured: it yields input data)
    assert c.tb == 2 * 10
    assert c.tb_uniform == 2 * 6
    assert c.tb_affine == 2 * 3
    assert c.tb_unstructured == 2 * 1
    # a single TB: grid level equals TB level
    assert c.grid == c.tb
    # warp level: every source uniform (ld.param x2, cvta x2, mov tid.y, mov ntid.x, ret)
    assert c.warp == 2 * 7
    assert c.diverged == 0
    assert c.tb_removable == 10
    # the pass marks every TB-redundant computation DR (ret is never skipped)
    assert c.marked_dr == c.marked_dr_tb_redundant == 2 * 9
    assert c.skippable == 9 and c.violations == 0 and c.lockstep_groups == 9


def test_fig3_1d_tb_only_uniform_redundancy():
    obs = RedundancyObserver()
    lr = run_fig3((64, 1), obs)
    c = lr.counts
    # ld.param x2, cvta x2, ntid, ret, and tid.y (all zeros in a 1D TB)
    assert c.tb == 2 * 7 and c.tb_uniform == 2 * 7
    assert c.tb_affine == c.tb_unstructured == 0
    assert c.marked_dr == 2 * 5  # CR -> V for a 1D TB
    assert c.violations == 0


def test_grid_level_requires_identical_operands_across_tbs():
    code = FIG3.replace("mov.u32 %r5, %ntid.x;", "mov.u32 %r5, %ctaid.x;")
    rng = np.random.default_rng(SEED)
    dev = Device(echo_printf=False)
    mod = dev.load_module(code=code)
    src = dev.to_device(rng.integers(0, 1000, size=64, dtype=np.uint32))
    out = dev.zeros(256, np.uint32)
    obs = RedundancyObserver()
    mod.get_function("fig3")((2, 1), (32, 2), (src, out), observers=[obs])
    c = obs.launches[-1].counts
    # the ctaid read is uniform in each TB; in TB 0 (ctaid 0) the output index tid.y*0+tid.x
    # also happens to be equal in both warps, so mul.wide, add and the store are too
    assert c.tb == 4 * 10 + 2 * 3
    assert c.grid == 4 * 9  # the ctaid read differs between the two TBs
    assert c.excl_grid + c.excl_tb + c.excl_warp + c.excl_none == c.warp_instructions
    assert c.excl_tb == 4 + 2 * 3


DIVERGE = """
.version 9.0
.target sm_75
.address_size 64
.visible .entry div(.param .u64 div_out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [div_out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, 0;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 bra $SKIP;
	mov.u32 %r2, %ctaid.x;
	add.s32 %r2, %r2, 5;
$SKIP:
	mov.u32 %r3, %tid.y;
	mad.lo.s32 %r4, %r3, 32, %r1;
	mul.wide.u32 %rd3, %r4, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r2;
	ret;
}
"""


def test_diverged_executions_are_never_redundant():
    dev = Device(echo_printf=False)
    mod = dev.load_module(code=DIVERGE)
    out = dev.zeros(64, np.uint32)
    obs = RedundancyObserver()
    mod.get_function("div")((1, 1), (32, 2), (out,), observers=[obs])
    assert np.array_equal(out.get(), np.where(np.arange(64) % 32 < 16, 0, 5).astype(np.uint32))
    c = obs.launches[-1].counts
    # the two instructions on the taken-by-half path run with a partial mask in both warps
    assert c.diverged == 2 * 2
    lr = obs.launches[-1]
    mk = lr.marking
    assert mk.final(6 * 8) is Redundancy.DR  # mov %r2, %ctaid.x is DR by data flow...
    assert c.violations == 0                  # ...and diverged executions are not checked


def test_soundness_check_catches_a_wrong_marking():
    """Audit a deliberately wrong marking (everything DR): the check must report it."""

    def mark_everything_dr(program, block, options):
        mk = mark_kernel(program, block, options)
        marks = [dataclasses.replace(m, static=Redundancy.DR) for m in mk.marks]
        return dataclasses.replace(mk, marks=marks)

    obs = RedundancyObserver(marker=mark_everything_dr)
    lr = run_fig3((32, 2), obs)
    # tid.y (and what derives from it) differ between the two warps on the same path
    assert lr.counts.violations >= 4
    assert lr.violation_notes and "different operands" in lr.violation_notes[0]
    honest = run_fig3((32, 2), RedundancyObserver())
    assert honest.counts.violations == 0


def test_observer_sees_every_launch_of_a_workload_via_observed_device():
    obs = RedundancyObserver()
    run = run_observed("SR1", [obs], size="small")
    assert not run.mismatches()
    assert len(obs.launches) == len(run.launches)
    assert [lr.kernel for lr in obs.launches] == [rec.kernel for rec in run.launches]
    assert obs.total.warp_instructions == sum(s.warp_instructions for s in run.stats)


def test_observed_device_keeps_per_call_observers():
    seen = []

    class Count:
        def on_exec(self, ev):
            seen.append(int(ev.warps.size))

    obs = RedundancyObserver()
    dev = ObservedDevice([obs], echo_printf=False)
    mod = dev.load_module(code=FIG3)
    src = dev.to_device(np.arange(32, dtype=np.uint32))
    out = dev.zeros(64, np.uint32)
    mod.get_function("fig3")((1, 1), (32, 2), (src, out), observers=[Count()])
    assert sum(seen) == obs.total.warp_instructions == 30


@pytest.mark.parametrize("block", [(16, 4), (8, 8)])
def test_affine_detection_uses_thread_coordinates_for_narrow_tbs(block):
    """With x < 32 a warp holds several rows: tid.x repeats, still affine (Fig. 2)."""
    obs = RedundancyObserver()
    lr = run_fig3(block, obs)
    c = lr.counts
    nw = block[0] * block[1] // 32
    assert c.tb_affine == nw * 3
    assert c.tb_unstructured == nw * 1
    assert c.violations == 0
