"""Dynamic warps (golden/timing/dynamic_warps.py) and thread block compaction, TBC / TBC+
(golden/mechanisms/capri/tbc.py; seed 004 §2.2)."""

import numpy as np
import pytest

from golden.configs import load_config
from golden.errors import PTXError, SimtlabError
from golden.mechanisms.capri.tbc import CtaStack, Tbc
from golden.report.runner import TimingJob, run_job
from golden.simt.program import NO_RECONVERGENCE
from golden.timing.timing_device import TimingDevice

# Lane l of warp w takes the loop when (w + l) is odd: warps 0 and 1 of a 64-thread TB
# are complementary, so compaction runs the loop in one warp instead of two.
COMPLEMENTARY = r"""
.version 7.0
.target sm_75
.address_size 64
.visible .entry comp(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r9, [n];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r7, %ctaid.x;
  mov.u32 %r8, %ntid.x;
  mad.lo.s32 %r6, %r7, %r8, %r1;
  shr.u32 %r2, %r1, 5;
  add.s32 %r3, %r2, %r1;
  and.b32 %r3, %r3, 1;
  mov.u32 %r4, 7;
  setp.eq.s32 %p1, %r3, 0;
  @%p1 bra $L_done;
  mov.u32 %r5, 0;
$L_loop:
  add.s32 %r4, %r4, %r5;
  mul.lo.s32 %r4, %r4, 3;
  add.s32 %r5, %r5, 1;
  setp.lt.u32 %p2, %r5, %r9;
  @%p2 bra $L_loop;
  bra.uni $L_done;
$L_done:
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;
}
"""

# odd threads execute bar.sync inside the branch: a barrier in divergent code
DIVERGENT_BARRIER = r"""
.version 7.0
.target sm_75
.address_size 64
.visible .entry divbar(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.s32 %p1, %r2, 0;
  @%p1 bra $L_even;
  bar.sync 0;
$L_even:
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd3, %rd2, %rd3;
  st.global.u32 [%rd3], %r1;
  ret;
}
"""


def _expected(n_threads: int, iters: int) -> np.ndarray:
    out = np.full(n_threads, 7, dtype=np.uint32)
    t = np.arange(n_threads) % 64
    for i in np.flatnonzero(((t >> 5) + t) & 1):
        v = np.uint32(7)
        for k in range(iters):
            v = np.uint32((int(v) + k) * 3 & 0xFFFFFFFF)
        out[i] = v
    return out


def _run_comp(tmp_path, mechanisms, tbs=6, iters=20):
    p = tmp_path / "comp.ptx"
    p.write_text(COMPLEMENTARY)
    dev = TimingDevice(load_config("fx5800", {"core.num_sms": 2}), mechanisms=mechanisms)
    out = dev.zeros(tbs * 64, np.uint32)
    k = dev.load_module(p).get_function("comp")
    stats = k(tbs, 64, [out, np.uint32(iters)])
    return dev.from_device(out), stats.timing


def _fill(st, x, taken, nottaken, target, fall, rpc):
    n, t = st.open_branch(x, target, fall, rpc)
    n.mask |= nottaken
    t.mask |= taken
    return st.resolve_branch(x, rpc)


def test_cta_stack_pushes_not_taken_then_taken_and_pops_at_the_rpc():
    st = CtaStack(0b1111)
    assert not _fill(st, st.tos, 0b1111, 0, target=40, fall=16, rpc=64)
    assert st.tos.pc == 40 and len(st.entries) == 1      # non-divergent: TOS moves on
    assert _fill(st, st.tos, 0b0101, 0b1010, target=80, fall=48, rpc=96)
    assert [(e.pc, e.rpc, e.mask) for e in st.entries] == [
        (96, NO_RECONVERGENCE, 0b1111), (48, 96, 0b1010), (80, 96, 0b0101)]
    st.tos.pc = 96                      # the taken path reached the RPC
    assert len(st.pop_finished()) == 1
    assert st.tos.pc == 48 and st.tos.mask == 0b1010
    st.exit_threads(0b1010)             # the not-taken threads exit
    st.pop_finished()
    assert len(st.entries) == 1 and st.tos.mask == 0b0101


def test_cta_stack_keeps_a_path_that_starts_at_the_rpc_in_the_tos():
    st = CtaStack(0b11)
    assert _fill(st, st.tos, 0b01, 0b10, target=64, fall=16, rpc=64)
    assert [(e.pc, e.mask) for e in st.entries] == [(64, 0b11), (16, 0b10)]


def test_cta_stack_refuses_to_pop_a_path_with_running_warps():
    st = CtaStack(0b11)
    st.tos.pc, st.tos.rpc, st.tos.wcnt = 8, 8, 1
    with pytest.raises(SimtlabError, match="still running"):
        st.pop_finished()


@pytest.mark.parametrize("variant", [True, False], ids=["tbc", "tbc-plus"])
def test_complementary_divergence_is_compacted_and_results_are_identical(tmp_path, variant):
    base, tb = _run_comp(tmp_path, [])
    out, t = _run_comp(tmp_path, [Tbc(pass_unconditional=not variant)])
    assert np.array_equal(base, _expected(base.size, 20))
    assert np.array_equal(out, base)
    m = t.mechanism
    # the loop runs in 1 compacted warp per TB instead of 2 static ones
    assert m["tbc.warps_formed"] < m["tbc.warps_before"]
    assert t.instructions_issued < tb.instructions_issued
    assert t.thread_instructions == tb.thread_instructions


def test_tbc_plus_does_not_synchronise_on_unconditional_branches(tmp_path):
    _, t = _run_comp(tmp_path, [Tbc(pass_unconditional=False)])
    _, tp = _run_comp(tmp_path, [Tbc(pass_unconditional=True)])
    # each TB passes the kernel's one bra.uni once: TBC synchronises there, TBC+ does not
    assert t.mechanism["tbc.branch_syncs"] - tp.mechanism["tbc.branch_syncs"] == 6


def test_a_barrier_in_divergent_code_is_refused(tmp_path):
    p = tmp_path / "divbar.ptx"
    p.write_text(DIVERGENT_BARRIER)
    dev = TimingDevice(load_config("fx5800", {"core.num_sms": 1}), mechanisms=[Tbc()])
    out = dev.zeros(64, np.uint32)
    with pytest.raises(PTXError, match="bar.sync inside divergent code"):
        dev.load_module(p).get_function("divbar")(1, 64, [out])


def test_warp_synchronous_instructions_are_refused():
    with pytest.raises(PTXError, match="dynamic warps cannot execute"):
        run_job(TimingJob("RS", "fx5800", mechanisms=("tbc",)))


# BFS runs in make test; MUM and LPS (minutes each) with make test-sweep
@pytest.mark.parametrize("workload", ["BFS", *(pytest.param(w, marks=pytest.mark.sweep)
                                              for w in ("MUM", "LPS"))])
def test_divergent_workloads_keep_outputs_and_are_deterministic(workload, shrink_small):
    if workload == "BFS":
        shrink_small.tiny("BFS")
    base = run_job(TimingJob(workload, "fx5800"))
    a = run_job(TimingJob(workload, "fx5800", mechanisms=("tbc",)))
    b = run_job(TimingJob(workload, "fx5800", mechanisms=("tbc",)))
    assert a["outputs_match"] and a["output_digest"] == base["output_digest"]
    assert a["cycles"] == b["cycles"] and a["timing"] == b["timing"]
    m = a["timing"]["mechanism"]
    assert m["tbc.compactions"] > 0 and m["tbc.warps_formed"] <= m["tbc.warps_before"]
    # compaction never issues more warp instructions than static warps
    assert a["timing"]["instructions_issued"] <= base["timing"]["instructions_issued"]


# Lanes 16..31 of every warp skip the add in each of 8 iterations: the same lane pattern in
# every warp, so compaction can never save a warp (inadequate)
SAME_PATTERN = r"""
.version 7.0
.target sm_75
.address_size 64
.visible .entry same(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  mov.u32 %r4, 0;
  mov.u32 %r5, 0;
$L_outer:
  setp.lt.u32 %p1, %r2, 16;
  @%p1 bra $L_skip;
  add.s32 %r4, %r4, %r5;
$L_skip:
  add.s32 %r5, %r5, 1;
  setp.lt.u32 %p2, %r5, 8;
  @%p2 bra $L_outer;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;
}
"""


def _run_same(tmp_path, mechanisms):
    p = tmp_path / "same.ptx"
    p.write_text(SAME_PATTERN)
    dev = TimingDevice(load_config("fx5800", {"core.num_sms": 1}), mechanisms=mechanisms)
    out = dev.zeros(64, np.uint32)
    stats = dev.load_module(p).get_function("same")(1, 64, [out])
    return dev.from_device(out), stats.timing


def test_capri_learns_that_compaction_is_inadequate_and_bypasses(tmp_path):
    from golden.mechanisms.capri.mechanism import Capri
    base, _ = _run_same(tmp_path, [])
    out, t = _run_same(tmp_path, [Capri(check=True)])
    assert np.array_equal(base, np.where(np.arange(64) % 32 >= 16, 28, 0))
    assert np.array_equal(out, base)
    m = t.mechanism
    # first instance: warp 0 misses (allocates "adequate"), warp 1 hits; both stall. The
    # evaluator finds 2 threads per lane for 2 warps (inadequate) and clears the 1bL bit,
    # so both warps bypass the other 7 instances. The loop branch never diverges.
    assert m["capri.capt_misses"] == 1 and m["capri.capt_hits"] == 15
    assert m["capri.stall_divergent"] == 2 and m["capri.bypass_divergent"] == 14
    assert m["capri.updates_inadequate"] >= 1 and "capri.updates_adequate" not in m
    assert m["capri.bypass_nondivergent"] == 2 * 8
    _, tbc = _run_same(tmp_path, [Tbc(check=True)])
    # every instance resolves in both; TBC re-forms the warps each time, CAPRI only once
    assert tbc.mechanism["tbc.branch_syncs"] == m["tbc.branch_syncs"]
    assert tbc.mechanism["tbc.compactions"] > m["tbc.compactions"]


def test_capri_keeps_compacting_where_it_is_adequate(tmp_path):
    from golden.mechanisms.capri.mechanism import Capri
    base, tb = _run_comp(tmp_path, [])
    out, t = _run_comp(tmp_path, [Capri(check=True)])
    assert np.array_equal(out, base)
    m = t.mechanism
    assert m["capri.updates_adequate"] >= 1 and m.get("capri.bypass_divergent", 0) == 0
    assert m["tbc.warps_formed"] < m["tbc.warps_before"]
    assert t.instructions_issued < tb.instructions_issued


# Every thread of the CTA takes the same (not-taken) side of the branch: warp 0 bypasses,
# runs the body and reaches the branch's RPC ($L_join) before the other warps reach the
# branch. The RPC is no reconvergence point then (the CTA did not diverge).
SINGLE_PATH = r"""
.version 7.0
.target sm_75
.address_size 64
.visible .entry single(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r2, [n];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, %r1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra $L_join;
  mul.lo.s32 %r3, %r3, 3;
  add.s32 %r3, %r3, %r2;
  mul.lo.s32 %r3, %r3, 5;
  add.s32 %r3, %r3, 1;
$L_join:
  add.s32 %r3, %r3, 7;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r3;
  ret;
}
"""


def _run_single(tmp_path, mechanisms):
    p = tmp_path / "single.ptx"
    p.write_text(SINGLE_PATH)
    dev = TimingDevice(load_config("fx5800", {"core.num_sms": 1}), mechanisms=mechanisms)
    out = dev.zeros(128, np.uint32)     # (both CTAs write the same values: out[tid])
    stats = dev.load_module(p).get_function("single")(2, 128, [out, np.uint32(2)])
    return dev.from_device(out), stats.timing


def test_capri_bypassed_warps_go_on_past_the_rpc_of_a_branch_the_whole_cta_took(tmp_path):
    """join_single_path: a bypassed warp holds at its path's RPC with its slot until the
    branch resolves; the CTA took one path, so it goes on and no warp is re-formed there.
    With ``join=False`` (the earlier model) the CTA is re-formed at that RPC."""
    from golden.mechanisms.capri.mechanism import Capri
    t = np.arange(128)
    expected = ((t * 3 + 2) * 5 + 1 + 7).astype(np.uint32)
    out, joined = _run_single(tmp_path, [Capri(check=True)])
    out_old, old = _run_single(tmp_path, [Capri(check=True, join_single_path=False)])
    assert np.array_equal(out, expected) and np.array_equal(out_old, expected)
    m, m_old = joined.mechanism, old.mechanism
    assert m["capri.bypass_nondivergent"] == m_old["capri.bypass_nondivergent"] == 8
    assert m["tbc.rpc_holds"] > 0 and "tbc.rpc_holds" not in m_old
    assert m.get("tbc.rpc_holds_parked", 0) == 0          # the RPC was not a reconvergence
    # the CTAs' first formation (2 x 4 warps) only; the old model re-forms them at the RPC
    assert m["tbc.warps_formed"] == 8 < m_old["tbc.warps_formed"]
    assert joined.cycles <= old.cycles
    # TBC+ never lets a warp run ahead, so the switch changes nothing there
    _, plus = _run_single(tmp_path, [Tbc(pass_unconditional=True, check=True)])
    _, plus_j = _run_single(tmp_path, [Tbc(pass_unconditional=True, check=True,
                                          join_single_path=True)])
    assert plus.to_dict() == plus_j.to_dict()


# ---------------------------------------------------------------- traces for the RTL
@pytest.mark.parametrize("structure,workload", [("capri_capt", "BFS"), ("capri_wcu", "TPACF")])
def test_capri_traces_come_from_the_timing_mechanism(tmp_path, structure, workload):
    """record_capri_trace drives the structures with the CAPRI timing mechanism on dynamic
    warps (its per-core CAPT, the WCU of the first CTA formed on core 0); the trace
    replays cycle for cycle on a fresh golden structure."""
    from golden.mechanisms.capri.trace import record_capri_trace
    from golden.structures.capri import STRUCTURES
    from golden.structures.trace import read_trace

    path = record_capri_trace(structure, workload, tmp_path / f"{structure}.jsonl",
                              overrides={"core.num_sms": 2}, max_cycles=400)
    tr = read_trace(path)
    assert "capri mechanism" in tr.meta.get("source", "")
    golden = STRUCTURES[structure].golden_cls(tr.params)
    assert tr.cycles
    for ops, out in tr.cycles:
        assert golden.step(ops) == out
    with pytest.raises(SimtlabError, match="driver"):
        record_capri_trace(structure, workload, tmp_path / "x.jsonl", driver="rtl")


def test_tbc_keeps_warps_at_a_branch_the_whole_cta_takes_one_way(tmp_path):
    """keep_warps (the default, seed 004 §2.2): the TOS changes and the WCU forms new warps
    only where the CTA diverged, so at a branch every thread of the CTA took the same way
    the warps wait with their slots and go on as they are. keep_warps=False (our earlier
    model) re-forms the CTA after that branch too."""
    t = np.arange(128)
    expected = ((t * 3 + 2) * 5 + 1 + 7).astype(np.uint32)
    out, kept = _run_single(tmp_path, [Tbc(pass_unconditional=True, check=True)])
    out_old, old = _run_single(tmp_path, [Tbc(pass_unconditional=True, check=True,
                                              keep_warps=False)])
    assert np.array_equal(out, expected) and np.array_equal(out_old, expected)
    m, m_old = kept.mechanism, old.mechanism
    # 2 CTAs of 4 warps: formed once at launch, kept at the branch
    assert m["tbc.branch_syncs"] == m_old["tbc.branch_syncs"] == 2
    assert m["tbc.warps_kept"] == 8 and m["tbc.warps_formed"] == 8
    assert "tbc.warps_kept" not in m_old and m_old["tbc.warps_formed"] == 16
    assert m["tbc.branch_wait_cycles"] > 0
    assert kept.instructions_issued == old.instructions_issued


@pytest.mark.parametrize("keep", [True, False], ids=["keep", "re-form"])
def test_compacted_loop_keeps_its_warps_between_iterations(tmp_path, keep):
    """In the compacted loop the back edge is taken by every thread of the path until the
    last iteration, so with keep_warps the compacted warp runs every iteration as it is;
    either way the results equal the static warps' and every formed warp is checked."""
    base, _ = _run_comp(tmp_path, [])
    out, t = _run_comp(tmp_path, [Tbc(pass_unconditional=True, check=True, keep_warps=keep)])
    assert np.array_equal(out, base)
    m = t.mechanism
    if keep:
        assert m["tbc.warps_kept"] >= 6 * 19     # 6 TBs, 19 back edges each
        assert m["tbc.warps_formed"] < 6 * 19
    else:
        assert "tbc.warps_kept" not in m and m["tbc.warps_formed"] > 6 * 19
