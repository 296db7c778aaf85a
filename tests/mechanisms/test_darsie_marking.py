"""DARSIE compiler pass (§4.2): lattice, roots, propagation to a fixpoint over the CFG,
load rules, never-skipped instructions, calls, launch-time promotion."""

from pathlib import Path

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.host import Device
from golden.mechanisms.darsie import MarkingOptions, Redundancy, analyse_function, mark_kernel, promotion
from golden.mechanisms.darsie.listing import format_marking
from golden.ptx import parse_ptx
from golden.simt.program import link
from golden.workloads import registry

DR, CR, V = Redundancy.DR, Redundancy.CR, Redundancy.V
HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"
REGS = (".reg .pred %p<8>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<8>;\n")
SAMPLES = Path(__file__).resolve().parents[1] / "ptx" / "samples"


def kernel(body: str, params: str = ".param .u64 k_param_0, .param .u32 k_param_1",
           decls: str = "") -> object:
    text = f"{HEADER}{decls}.visible .entry k({params})\n{{\n{REGS}{body}\n}}\n"
    return parse_ptx(text).functions["k"]


def classes(body: str, **kw) -> list[Redundancy]:
    return [m.static for m in analyse_function(kernel(body, **kw))]


def values(body: str, **kw) -> list[Redundancy]:
    return [m.value for m in analyse_function(kernel(body, **kw))]


# ----------------------------------------------------------------------------- lattice

def test_lattice_order_and_meet():
    assert V < CR < DR
    assert DR.meet(CR) is CR and CR.meet(DR) is CR
    assert DR.meet(V) is V and V.meet(CR) is V
    assert DR.meet(DR) is DR


@pytest.mark.parametrize("block, promote", [
    ((16, 16, 1), True), ((32, 32, 1), True), ((8, 8, 1), True), ((16, 8, 1), True),
    ((16, 12, 1), True), ((1, 64, 1), True), ((8, 8, 4), True),
    ((64, 4, 1), False),   # x > warp size
    ((12, 8, 1), False),   # x not a power of two
    ((24, 2, 1), False),
    ((256, 1, 1), False),  # 1D
    ((32, 1, 1), False),   # 1D, even though x <= warp size
])
def test_promotion_rule(block, promote):
    d = promotion(block)
    assert d.promote is promote
    assert d.resolve(CR) is (DR if promote else V)
    assert d.resolve(DR) is DR and d.resolve(V) is V


def test_promotion_with_tid_y_roots_needs_x_times_y_within_a_warp():
    assert promotion((8, 4, 2), cr_tid_y=True).promote          # x*y = 32
    assert not promotion((8, 8, 4), cr_tid_y=True).promote      # x*y = 64: tid.y differs per warp
    assert promotion((8, 8, 4)).promote                         # tid.x only (the paper's analysis)
    assert promotion((4, 4, 1), warp_size=16).promote
    assert not promotion((32, 2, 1), warp_size=16).promote


@pytest.mark.parametrize("bad", [(0, 4, 1), (4, -1, 1)])
def test_promotion_rejects_bad_shapes(bad):
    with pytest.raises(ConfigError):
        promotion(bad)


def test_promotion_rejects_bad_warp_size():
    with pytest.raises(ConfigError):
        promotion((8, 8, 1), warp_size=24)


# ----------------------------------------------------------------------------- roots

def test_roots():
    body = """
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.y;
	mov.u32 %r3, %nctaid.x;
	ld.param.u32 %r4, [k_param_1];
	mov.u32 %r5, 7;
	mov.u32 %r6, smem;
	mov.u32 %r7, %tid.x;
	mov.u32 %r8, %tid.y;
	mov.u32 %r9, %tid.z;
	mov.u32 %r10, %laneid;
	mov.u32 %r11, %warpid;
	mov.u32 %r12, %clock;
	ret;
"""
    got = classes(body, decls=".shared .align 4 .b8 smem[64];\n")
    assert got == [DR, DR, DR, DR, DR, DR, CR, V, V, V, V, V, V]


def test_tid_y_is_cr_only_with_the_option():
    f = kernel("mov.u32 %r1, %tid.y;\nadd.s32 %r2, %r1, %tid.x;\nret;")
    assert [m.static for m in analyse_function(f, MarkingOptions(cr_tid_y=True))][:2] == [CR, CR]
    assert [m.static for m in analyse_function(f)][:2] == [V, V]


def test_fig3_chain_is_cr_and_resolves_by_tb_shape():
    # DARSIE Fig. 3: MUL R1, tid.x, 4; ADD R2, R1, base; LD R3, [R2]; a use of R3
    body = """
	ld.param.u64 %rd1, [k_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r3, [%rd4];
	add.s32 %r4, %r3, 1;
	st.global.u32 [%rd4], %r4;
	ret;
"""
    f = kernel(body)
    assert [m.static for m in analyse_function(f)] == [DR, DR, CR, CR, CR, CR, CR, V, V]
    two_d = mark_kernel(f, (4, 2, 1))
    one_d = mark_kernel(f, (8, 1, 1))
    assert [two_d.final(m.pc) for m in two_d.marks] == [DR] * 7 + [V, V]
    assert [one_d.final(m.pc) for m in one_d.marks] == [DR, DR, V, V, V, V, V, V, V]
    assert two_d.skippable_pcs == frozenset(range(0, 56, 8))


# ----------------------------------------------------------------------------- propagation

IF_ELSE = """
	mov.u32 %r1, %tid.{cond};
	setp.lt.u32 %p1, %r1, 3;
	@%p1 bra $ELSE;
	mov.u32 %r2, {a};
	bra.uni $JOIN;
$ELSE:
	mov.u32 %r2, {b};
$JOIN:
	add.s32 %r3, %r2, 1;
	ret;
"""


@pytest.mark.parametrize("a, b, want", [
    ("%ctaid.x", "%ntid.x", DR), ("%ctaid.x", "%tid.x", CR), ("%tid.x", "%ctaid.x", CR),
    ("%tid.y", "%ctaid.x", V), ("%ctaid.x", "%laneid", V), ("5", "7", DR),
])
def test_weakest_reaching_definition_wins(a, b, want):
    got = classes(IF_ELSE.format(cond="x", a=a, b=b))
    assert got[6] is want  # add after the join reads %r2 from both paths
    assert got[2] is V and got[4] is V  # branches are never skipped


def test_branch_value_class_reports_condition_uniformity():
    vx = values(IF_ELSE.format(cond="x", a="1", b="2"))
    vy = values(IF_ELSE.format(cond="y", a="1", b="2"))
    assert vx[2] is CR and vy[2] is V


def test_loop_carried_dr_counter_stays_dr():
    body = """
	ld.param.u32 %r5, [k_param_1];
	mov.u32 %r1, 0;
$LOOP:
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p1, %r1, %r5;
	@%p1 bra $LOOP;
	mul.lo.s32 %r2, %r1, 3;
	ret;
"""
    assert classes(body) == [DR, DR, DR, DR, V, DR, V]


def test_vector_value_flows_around_the_back_edge():
    body = """
	mov.u32 %r1, 0;
	mov.u32 %r4, %tid.y;
$LOOP:
	add.s32 %r2, %r1, 1;
	add.s32 %r1, %r1, %r4;
	setp.lt.s32 %p1, %r2, 100;
	@%p1 bra $LOOP;
	ret;
"""
    # %r1 becomes V in the loop body and reaches the loop head's add through the back edge
    assert classes(body) == [DR, V, V, V, V, V, V]


def test_guarded_instruction_depends_on_guard_and_keeps_old_value():
    body = """
	mov.u32 %r1, %tid.y;
	setp.lt.u32 %p1, %r1, 4;
	@%p1 mov.u32 %r2, 5;
	mov.u32 %r3, %ctaid.x;
	setp.eq.u32 %p2, %r3, 0;
	mov.u32 %r4, %ctaid.y;
	@%p2 mov.u32 %r4, %tid.x;
	add.s32 %r5, %r4, 1;
	ret;
"""
    got = classes(body)
    assert got[2] is V          # guard V
    assert got[6] is CR         # guard DR, value CR
    assert got[7] is CR         # meet of DR (unguarded def) and CR (guarded def)


def test_unguarded_redefinition_kills_the_old_class():
    body = """
	mov.u32 %r1, %tid.y;
	mov.u32 %r1, %ctaid.x;
	add.s32 %r2, %r1, 1;
	ret;
"""
    assert classes(body) == [V, DR, DR, V]


def test_predicates_propagate():
    body = """
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 4;
	selp.b32 %r2, 1, 2, %p1;
	ret;
"""
    assert classes(body) == [CR, CR, CR, V]


def test_carry_flag_is_a_dependence():
    body = """
	mov.u32 %r1, %tid.y;
	add.cc.u32 %r2, %r1, 1;
	addc.u32 %r3, 0, 0;
	mov.u32 %r4, %ctaid.x;
	add.cc.u32 %r5, %r4, 1;
	addc.u32 %r6, 0, 0;
	ret;
"""
    assert classes(body) == [V, V, V, DR, DR, DR, V]


# ----------------------------------------------------------------------------- loads, stores, never-skipped

def test_load_takes_address_class():
    body = """
	mov.u32 %r1, smem;
	ld.shared.u32 %r2, [%r1+4];
	mov.u32 %r3, %tid.x;
	shl.b32 %r4, %r3, 2;
	add.s32 %r5, %r1, %r4;
	ld.shared.u32 %r6, [%r5];
	mov.u32 %r7, %tid.y;
	add.s32 %r8, %r1, %r7;
	ld.shared.u32 %r9, [%r8];
	ld.const.u32 %r10, [ctab+8];
	ret;
"""
    got = classes(body, decls=".shared .align 4 .b8 smem[256];\n.const .align 4 .b8 ctab[64];\n")
    assert got == [DR, DR, CR, CR, CR, CR, V, V, V, DR, V]


@pytest.mark.parametrize("inst", [
    "st.shared.u32 [smem], %r1;", "atom.shared.add.u32 %r2, [smem], %r1;",
    "red.shared.add.u32 [smem], %r1;", "bar.sync 0;", "membar.cta;", "ret;",
])
def test_side_effects_are_never_skipped(inst):
    body = f"mov.u32 %r1, %ctaid.x;\n{inst}\nret;"
    marks = analyse_function(kernel(body, decls=".shared .align 4 .b8 smem[64];\n"))
    assert marks[0].static is DR
    assert marks[1].static is V
    assert "never skipped" in marks[1].reason or "no register" in marks[1].reason


def test_atomic_result_is_vector():
    body = """
	atom.shared.add.u32 %r2, [smem], 1;
	add.s32 %r3, %r2, 1;
	ret;
"""
    assert classes(body, decls=".shared .align 4 .b8 smem[64];\n")[:2] == [V, V]


LOCAL = """
	mov.u64 %rd1, __local_depot0;
	mov.u32 %r1, {stored};
	st.local.u32 [%rd1+4], %r1;
	ld.local.u32 %r2, [%rd1+4];
	ret;
"""


@pytest.mark.parametrize("stored, want", [("%ctaid.x", DR), ("%tid.x", CR), ("%tid.y", V)])
def test_local_memory_load_meets_what_is_stored_there(stored, want):
    body = ".local .align 4 .b8 __local_depot0[16];\n" + LOCAL.format(stored=stored)
    got = classes(body)
    assert got[0] is DR      # the frame offset is the same number in every thread
    assert got[3] is want


def test_generic_load_in_a_kernel_with_local_storage_meets_local_content():
    body = """
	mov.u64 %rd1, __local_depot0;
	cvta.local.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.y;
	st.u32 [%rd2], %r1;
	ld.u32 %r2, [%rd2];
	ret;
"""
    text = (f"{HEADER}.visible .entry k()\n{{\n.local .align 4 .b8 __local_depot0[16];\n{REGS}"
            f"{body}\n}}\n")
    marks = analyse_function(parse_ptx(text).functions["k"])
    assert marks[1].static is DR and marks[4].static is V


def test_calls_callee_code_and_results_are_vector():
    module = parse_ptx((SAMPLES / "device_func.ptx").read_text(), file="device_func.ptx")
    kname = next(iter(module.kernels))
    prog = link(module, kname)
    mk = mark_kernel(prog, (16, 16, 1))
    assert len(mk.marks) == len(prog.slots)
    for slot, m in zip(prog.slots, mk.marks):
        assert m.pc == slot.pc
        if slot.func != kname:
            assert m.static is V
        elif slot.inst.opcode == "call":
            assert m.static is V and "call" in m.reason
        elif slot.inst.opcode == "ld" and "param" in slot.inst.mods and "retval" in slot.inst.text:
            assert m.static is V
    kernel_marks = [m for m in mk.marks if m.func == kname]
    assert any(m.static is DR for m in kernel_marks)  # kernel parameters, TB ids
    listing = format_marking(mk)
    assert "// device function" in listing


def test_mark_kernel_accepts_function_program_and_kernel_handle():
    dev = Device()
    w = registry.get("MM")
    mod = dev.load_module(w.ptx_path)
    k = mod.get_function("matrix_mul")
    a = mark_kernel(k, (32, 32, 1))
    b = mark_kernel(k.program, (32, 32, 1))
    c = mark_kernel(mod.ir.functions["matrix_mul"], (32, 32, 1))
    assert [m.static for m in a.marks] == [m.static for m in b.marks] == [m.static for m in c.marks]
    with pytest.raises(SimtlabError):
        mark_kernel("matrix_mul", (32, 32, 1))


def test_matrix_multiply_matches_fig6_pattern():
    """Fig. 6: in MM's unrolled loop the tid.x-indexed shared loads are CR and the FMAs V."""
    mod = Device().load_module(registry.get("MM").ptx_path)
    mk = mark_kernel(mod.get_function("matrix_mul"), (32, 32, 1))
    by_op: dict[str, list[Redundancy]] = {}
    for m in mk.marks:
        by_op.setdefault(m.text.split()[0], []).append(m.static)
    assert by_op["fma.rn.f32"] == [V] * 32
    assert by_op["ld.shared.f32"].count(CR) == 32 and by_op["ld.shared.f32"].count(V) == 32
    assert all(c is V for c in by_op["ld.global.f32"])
    s = mk.summary()
    assert s.static_dr + s.static_cr + s.static_v == s.instructions == len(mk.marks)
    assert s.skippable == s.static_dr + s.static_cr  # 2D (32,32) promotes every CR


def test_marking_is_total_on_every_workload_kernel():
    """Every instruction of every workload kernel gets a mark (marking speed: ``make bench``)."""
    for w in registry.all_workloads().values():
        mod = Device().load_module(w.ptx_path)
        for name in mod.ir.kernels:
            prog = mod.get_function(name).program
            mk = mark_kernel(prog, w.tb_dims)
            assert len(mk.marks) == len(prog.slots)
            for slot, m in zip(prog.slots, mk.marks):
                if slot.inst is not None and slot.inst.opcode in ("st", "bra", "bar", "atom", "ret"):
                    assert m.static is V
