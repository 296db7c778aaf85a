"""Parser on hand-written PTX: declarations, operands, immediates, scopes, calls."""

import struct

import pytest

from golden.ptx import parse_ptx
from golden.ptx.ir import Addr, Imm, PredGuard, Reg, Reloc, SpecialReg, Sym, Vec

HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"


def kernel(body: str, regs: str = "", params: str = "", pre: str = "", name: str = "k"):
    """PTX text of one kernel ``name`` with the given declarations and body."""
    decls = regs or (".reg .pred %p<4>;\n.reg .b32 %r<10>;\n.reg .b64 %rd<10>;\n"
                     ".reg .f32 %f<10>;\n.reg .f64 %fd<4>;\n")
    return f"{HEADER}{pre}\n.visible .entry {name}({params})\n{{\n{decls}{body}\n}}\n"


def one(body: str, **kw):
    """The single kernel's instruction list."""
    m = parse_ptx(kernel(body, **kw), "k.ptx")
    return m.functions[kw.get("name", "k")].instructions


def op(text: str):
    """Operands of a single instruction."""
    return one(text)[0].operands


def test_module_directives():
    m = parse_ptx(".version 9.0\n.target sm_75, debug\n.address_size 64\n", "m.ptx")
    assert (m.version, m.target, m.address_size, m.file) == ("9.0", "sm_75", 64, "m.ptx")
    assert m.functions == {} and m.variables == {}


def test_opcode_mods_and_types():
    insts = one("ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n"
                "cvt.rn.f32.s32 %f1, %r1;\nsetp.ne.s32 %p1, %r1, 0;\nmad.lo.s32 %r1, %r2, %r3, %r4;\n"
                "atom.global.add.u32 %r1, [%rd1], 1;\nshf.l.wrap.b32 %r1, %r2, %r3, %r4;\n"
                "bar.sync 0;\nbarrier.sync 0;\nmembar.gl;\nfence.acq_rel.gpu;\nret;")
    got = [(i.opcode, i.mods, i.types) for i in insts]
    assert got == [
        ("ld", ("global", "nc", "v4", "f32"), ("f32",)),
        ("cvt", ("rn", "f32", "s32"), ("f32", "s32")),
        ("setp", ("ne", "s32"), ("s32",)),
        ("mad", ("lo", "s32"), ("s32",)),
        ("atom", ("global", "add", "u32"), ("u32",)),
        ("shf", ("l", "wrap", "b32"), ("b32",)),
        ("bar", ("sync",), ()),
        ("barrier", ("sync",), ()),
        ("membar", ("gl",), ()),
        ("fence", ("acq_rel", "gpu"), ()),
        ("ret", (), ()),
    ]
    assert [i.pc for i in insts] == [8 * k for k in range(len(insts))]
    assert insts[0].has("nc") and not insts[0].has("volatile")
    assert insts[6].operands == (Imm(0),)


def test_source_locations_and_text():
    insts = one("  add.s32 \t%r1,   %r2, 3;\n@%p1 bra \t$L;\n$L:\n\tret;")
    # kernel(): 3 header lines, an empty line, the .entry line, "{", 5 .reg lines
    assert [(i.loc.line, i.loc.col) for i in insts] == [(12, 3), (13, 1), (15, 2)]
    assert insts[0].loc.file == "k.ptx"
    assert [i.text for i in insts] == ["add.s32 %r1, %r2, 3;", "@%p1 bra $L;", "ret;"]
    assert str(insts[0]) == "add.s32 %r1, %r2, 3;"


def test_guards():
    insts = one("@%p1 bra $A;\n@!%p2 add.s32 %r1, %r1, 1;\n$A:\nret;")
    assert insts[0].guard == PredGuard(Reg("%p1"), False)
    assert insts[1].guard == PredGuard(Reg("%p2"), True)
    assert insts[2].guard is None
    assert insts[0].operands == (Sym("$A"),)


def test_register_declarations():
    m = parse_ptx(kernel("ret;", regs=".reg .pred %p<3>;\n.reg .b32 %r<29>;\n.reg .b64 %SP;\n"
                         ".reg .f32 %f1, %f7;\n.reg .b32 temp;\n"))
    regs = m.functions["k"].regs
    assert [r for r in regs if r.startswith("%r")] == [f"%r{k}" for k in range(29)]
    assert regs["%p0"] == regs["%p2"] == "pred" and "%p3" not in regs
    assert regs["%r28"] == "b32" and "%r29" not in regs
    assert (regs["%SP"], regs["%f1"], regs["%f7"], regs["temp"]) == ("b64", "f32", "f32", "b32")
    assert "%f0" not in regs


def test_setp_two_destinations_and_negated_predicate_source():
    ops = op("setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3;")
    assert ops == (Vec((Reg("%p1"), Reg("%p2"))), Reg("%r1"), Reg("%r2"), PredGuard(Reg("%p3"), True))
    ops = op("shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1;")
    assert ops[0] == Vec((Reg("%r1"), Reg("%p1")))
    assert ops[-1] == Imm(-1)


def test_vector_operands_with_sinks():
    assert op("ld.global.v4.f32 {%f1, _, %f3, _}, [%rd1];")[0] == \
        Vec((Reg("%f1"), None, Reg("%f3"), None))
    ops = op("mov.b64 %rd1, {%r1, %r2};")
    assert ops == (Reg("%rd1"), Vec((Reg("%r1"), Reg("%r2"))))


def test_address_expressions():
    body = ("ld.global.u32 %r1, [%rd1+16];\nld.global.u32 %r1, [%rd1+-4];\n"
            "ld.global.u32 %r1, [%rd1-8];\nld.shared.u32 %r1, [tile];\n"
            "ld.shared.u32 %r1, [tile+8];\nld.global.u32 %r1, [1234];\n"
            "ld.param.u64 %rd1, [k_p0];\nld.global.u32 %r1, [0x10];\n")
    insts = one(body, pre=".shared .align 4 .b8 tile[64];\n", params=".param .u64 k_p0")
    assert [i.operands[1] for i in insts] == [
        Addr(Reg("%rd1"), 16), Addr(Reg("%rd1"), -4), Addr(Reg("%rd1"), -8), Addr(Sym("tile"), 0),
        Addr(Sym("tile"), 8), Addr(None, 1234), Addr(Sym("k_p0"), 0), Addr(None, 16)]


def test_immediates():
    body = ("mov.u32 %r1, 42;\nmov.u32 %r1, -7;\nmov.u32 %r1, 0xFFFFFFFF;\nmov.u32 %r1, 017;\n"
            "mov.u32 %r1, 4294967295U;\nmov.f32 %f1, 0f3F800000;\nmov.f32 %f1, 0fBFC00000;\n"
            "mov.f64 %fd1, 0d4008000000000000;\nmov.f64 %fd1, 0dFFF0000000000000;\n"
            "mov.u32 %r1, 0b1010;\nmov.f32 %f1, 2.5;\nmov.b64 %rd1, -9223372036854775808;\n")
    imms = [i.operands[1] for i in one(body)]
    assert imms[:5] == [Imm(42), Imm(-7), Imm(0xFFFFFFFF), Imm(15), Imm(4294967295)]
    assert imms[5] == Imm(1.0, "f32", 0x3F800000)
    assert imms[6] == Imm(-1.5, "f32", 0xBFC00000)
    assert imms[7] == Imm(3.0, "f64", 0x4008000000000000)
    assert imms[8].kind == "f64" and imms[8].value == float("-inf")
    assert imms[9] == Imm(10) and imms[10] == Imm(2.5, "float")
    assert imms[11] == Imm(-(1 << 63))


def test_nan_bit_patterns_are_kept():
    imm = op("mov.f32 %f1, 0f7FC00001;")[1]
    assert imm.bits == 0x7FC00001 and imm.value != imm.value


def test_special_registers():
    body = "\n".join(f"mov.u32 %r1, {s};" for s in (
        "%tid.x", "%tid.y", "%ntid.z", "%ctaid.y", "%nctaid.x", "%laneid", "%warpid",
        "%nwarpid", "%smid", "%clock", "%lanemask_lt", "%lanemask_ge"))
    got = [i.operands[1] for i in one(body + "\nmov.u64 %rd1, %clock64;")]
    assert got == [SpecialReg("tid", "x"), SpecialReg("tid", "y"), SpecialReg("ntid", "z"),
                   SpecialReg("ctaid", "y"), SpecialReg("nctaid", "x"), SpecialReg("laneid"),
                   SpecialReg("warpid"), SpecialReg("nwarpid"), SpecialReg("smid"),
                   SpecialReg("clock"), SpecialReg("lanemask_lt"), SpecialReg("lanemask_ge"),
                   SpecialReg("clock64")]


def test_params_offsets_natural_alignment():
    params = (".param .u32 k_a,\n.param .u64 k_b,\n.param .align 8 .b8 k_s[16],\n"
              ".param .u8 k_c,\n.param .u16 k_h,\n.param .f64 k_d,\n.param .align 4 .b8 k_t[3],\n"
              ".param .u32 k_e")
    f = parse_ptx(kernel("ret;", params=params)).functions["k"]
    got = [(p.name, p.type, p.size, p.align, p.offset) for p in f.params]
    assert got == [("k_a", "u32", 4, 4, 0), ("k_b", "u64", 8, 8, 8), ("k_s", "b8", 16, 8, 16),
                   ("k_c", "u8", 1, 1, 32), ("k_h", "u16", 2, 2, 34), ("k_d", "f64", 8, 8, 40),
                   ("k_t", "b8", 3, 4, 48), ("k_e", "u32", 4, 4, 52)]
    assert f.param_size == 56


def test_variables_and_initialisers():
    pre = (".global .align 4 .u32 m2[2][3] = {{1, 2, 3}, {4}};\n"
           ".global .f32 fl[3] = {0f3F800000, 1.5, 2};\n"
           ".const .align 8 .f64 dd = 0d4000000000000000;\n"
           ".global .b8 str[] = {104, 105};\n"
           ".global .s16 neg[2] = {-2, 0x7fff};\n"
           ".const .align 1 .b8 sbox[8] = {243, 4, 17};\n"
           ".global .v2 .u32 vv[2] = {{1, 2}, {3, 4}};\n"
           ".global .align 4 .b8 zero[256];\n"
           ".extern .shared .align 16 .b8 sdata[];\n"
           ".visible .global .align 8 .u64 counter = 42;\n")
    m = parse_ptx(kernel("ret;", pre=pre))
    v = m.variables
    assert v["m2"].init == struct.pack("<6I", 1, 2, 3, 4, 0, 0) and v["m2"].size == 24
    assert v["fl"].init == struct.pack("<3f", 1.0, 1.5, 2.0) and v["fl"].align == 4
    assert (v["dd"].space, v["dd"].size, v["dd"].init) == ("const", 8, struct.pack("<d", 2.0))
    assert (v["str"].size, v["str"].init) == (2, b"hi")
    assert v["neg"].init == struct.pack("<2h", -2, 0x7FFF)
    assert v["sbox"].init == bytes([243, 4, 17, 0, 0, 0, 0, 0]) and v["sbox"].align == 1
    assert (v["vv"].size, v["vv"].align, v["vv"].init) == (16, 8, struct.pack("<4I", 1, 2, 3, 4))
    assert (v["zero"].size, v["zero"].init, v["zero"].extern) == (256, None, False)
    sd = v["sdata"]
    assert (sd.space, sd.size, sd.extern, sd.align, sd.init) == ("shared", 0, True, 16, None)
    assert v["counter"].visible and v["counter"].init == (42).to_bytes(8, "little")


def test_address_initialisers_become_relocations():
    pre = (".global .align 4 .u32 a = 3;\n.global .align 4 .b8 b[16];\n"
           ".global .align 8 .u64 ptrs[3] = {generic(a), generic(b)+8, a};\n")
    v = parse_ptx(kernel("ret;", pre=pre)).variables["ptrs"]
    assert v.init == bytes(24)
    assert v.relocs == (Reloc(0, 8, "a", True, 0), Reloc(8, 8, "b", True, 8),
                        Reloc(16, 8, "a", False, 0))


def test_pointer_param_attributes_and_managed_variables():
    params = ".param .u64 .ptr .global .align 16 k_p,\n.param .u32 k_n"
    pre = ".global .attribute(.managed) .align 4 .u32 man = 7;\n"
    m = parse_ptx(kernel("ret;", params=params, pre=pre))
    f = m.functions["k"]
    assert [(p.name, p.type, p.size, p.offset) for p in f.params] == [
        ("k_p", "u64", 8, 0), ("k_n", "u32", 4, 8)]
    assert m.variables["man"].init == (7).to_bytes(4, "little")


def test_function_scope_variables():
    body = ".shared .align 4 .b8 _ZZ1kE4tile[1024];\n.local .align 16 .b8 __local_depot0[32];\nret;"
    f = parse_ptx(kernel(body)).functions["k"]
    t, d = f.variables["_ZZ1kE4tile"], f.variables["__local_depot0"]
    assert (t.space, t.size, t.align) == ("shared", 1024, 4)
    assert (d.space, d.size, d.align) == ("local", 32, 16)


def test_performance_and_ignored_directives():
    text = (HEADER + '.pragma "nounroll";\n.visible .entry k()\n.maxntid 256, 1, 1\n'
            ".minnctapersm 2\n.maxnreg 40\n{\n.reg .b32 %r<2>;\n.loc 1 4 5\n"
            '$L__BB0_1:\n.pragma "nounroll";\nadd.s32 %r1, %r1, 1;\n.loc 1 5 2\nret;\n}\n'
            '.entry k2\n.reqntid 64, 2\n{\nret;\n}\n.file 1 "/tmp/a.cu"\n'
            ".section .debug_abbrev\n{\n.b8 1\n.b8 17\n.b64 $L__BB0_1\n}\n")
    m = parse_ptx(text)
    k, k2 = m.functions["k"], m.functions["k2"]
    assert (k.maxntid, k.minnctapersm, k.maxnreg, k.reqntid) == ((256, 1, 1), 2, 40, None)
    assert k2.reqntid == (64, 2, 1) and not k2.visible and k.visible
    assert [i.opcode for i in k.instructions] == ["add", "ret"]
    assert k.labels == {"$L__BB0_1": 0}


def test_device_function_call_and_return_params():
    text = HEADER + """
.func  (.param .b32 func_retval0) _Z3fooii(
	.param .b32 _Z3fooii_param_0,
	.param .b32 _Z3fooii_param_1
)
;
.visible .entry k(.param .u64 k_p)
{
	.reg .b32 %r<4>;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0+0], %r1;
	.param .b32 param1;
	st.param.b32 	[param1+0], %r2;
	.param .b32 retval0;
	call.uni (retval0),
	_Z3fooii,
	(
	param0,
	param1
	);
	ld.param.b32 	%r3, [retval0+0];
	} // callseq 0
	ret;
}
.func  (.param .b32 func_retval0) _Z3fooii(
	.param .b32 _Z3fooii_param_0,
	.param .b32 _Z3fooii_param_1
)
{
	.reg .b32 %r<4>;
	ld.param.u32 %r1, [_Z3fooii_param_0];
	ld.param.u32 %r2, [_Z3fooii_param_1];
	add.s32 %r3, %r1, %r2;
	st.param.b32 [func_retval0+0], %r3;
	ret;
}
"""
    m = parse_ptx(text)
    assert set(m.functions) == {"k", "_Z3fooii"} and m.externs == {}
    foo = m.functions["_Z3fooii"]
    assert not foo.is_entry and foo.is_entry is False and m.kernels.keys() == {"k"}
    assert [(p.name, p.size, p.offset) for p in foo.ret_params] == [("func_retval0", 4, 0)]
    assert [(p.name, p.offset) for p in foo.params] == [("_Z3fooii_param_0", 0), ("_Z3fooii_param_1", 4)]
    k = m.functions["k"]
    call = k.instructions[2]
    assert call.opcode == "call" and call.mods == ("uni",)
    assert call.operands == (Vec((Sym("retval0"),)), Sym("_Z3fooii"),
                             Vec((Sym("param0"), Sym("param1"))))
    assert call.text == "call.uni (retval0), _Z3fooii, (param0, param1);"
    assert set(k.call_params) == {"param0", "param1", "retval0"}
    assert k.call_params["param0"].space == "param" and k.call_params["retval0"].size == 4
    assert "temp_param_reg" in k.regs


def test_call_without_return_value_or_arguments_and_extern():
    text = HEADER + """
.extern .func  (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.func _Z4nopv()
{
	ret;
}
.visible .entry k()
{
	{
	call.uni _Z4nopv, ();
	}
	{
	.param .b64 param0;
	.param .b64 param1;
	.param .b32 retval0;
	call.uni (retval0), vprintf, (param0, param1);
	}
	ret;
}
"""
    m = parse_ptx(text)
    assert set(m.externs) == {"vprintf"} and m.externs["vprintf"].instructions == []
    ops = [i.operands for i in m.functions["k"].instructions if i.opcode == "call"]
    assert ops[0] == (None, Sym("_Z4nopv"), Vec(()))
    assert ops[1][1] == Sym("vprintf")


def test_nested_scopes_rename_shadowing_and_conflicting_names():
    text = HEADER + """
.visible .entry k()
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;
	{
	.reg .u32 %r1, %lo;
	mov.b64 {%lo, %r1}, %rd1;
	add.u32 %r1, %r1, %lo;
	}
	{
	.reg .u32 %lo;
	mov.b64 {%lo, %r2}, %rd1;
	}
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r1;
	}
	{
	.param .align 8 .b8 param0[16];
	st.param.b64 [param0+8], %rd1;
	}
	add.s32 %r2, %r1, 1;
	ret;
}
"""
    k = parse_ptx(text).functions["k"]
    i = k.instructions
    # the inner %r1 shadows the outer one: it gets its own storage
    assert i[0].operands == (Vec((Reg("%lo"), Reg("%r1@2"))), Reg("%rd1"))
    assert i[1].operands == (Reg("%r1@2"), Reg("%r1@2"), Reg("%lo"))
    assert k.regs["%r1@2"] == "u32" and k.regs["%r1"] == "b32"
    # a sibling re-declaration of the same shape shares the name
    assert i[2].operands[0] == Vec((Reg("%lo"), Reg("%r2")))
    # a call parameter re-declared with another shape is renamed
    assert i[3].operands[0] == Addr(Sym("param0"), 0)
    assert i[4].operands[0] == Addr(Sym("param0@5"), 8)
    assert k.call_params["param0"].size == 4 and k.call_params["param0@5"].size == 16
    assert i[5].operands == (Reg("%r2"), Reg("%r1"), Imm(1))


def test_redeclaration_after_a_closed_scope():
    text = HEADER + """
.visible .entry k()
{
	{
	.reg .b32 %t;
	mov.u32 %t, 1;
	}
	.reg .b64 %t;
	mov.u64 %t, 2;
	{
	.reg .b64 %t;
	mov.u64 %t, 3;
	}
	ret;
}
"""
    k = parse_ptx(text).functions["k"]
    assert [i.operands[0] for i in k.instructions[:3]] == [Reg("%t"), Reg("%t@1"), Reg("%t@3")]
    assert (k.regs["%t"], k.regs["%t@1"], k.regs["%t@3"]) == ("b32", "b64", "b64")


def test_indirect_call_with_prototype():
    text = HEADER + """
.visible .entry k()
{
	.reg .b64 %rd<2>;
	{
	.param .b32 param0;
	.param .b32 retval0;
	prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
	call (retval0), %rd1, (param0), prototype_0;
	}
	ret;
}
"""
    call = parse_ptx(text).functions["k"].instructions[0]
    assert call.operands == (Vec((Sym("retval0"),)), Reg("%rd1"), Vec((Sym("param0"),)),
                             Sym("prototype_0"))


def test_symbol_operands():
    pre = ".global .align 4 .b8 tab[16];\n"
    body = ".shared .align 4 .b8 smem[64];\nmov.u64 %rd1, tab;\nmov.u32 %r1, smem;\nret;"
    insts = one(body, pre=pre)
    assert insts[0].operands == (Reg("%rd1"), Sym("tab"))
    assert insts[1].operands == (Reg("%r1"), Sym("smem"))


def test_label_at_function_end_and_multiple_labels():
    f = parse_ptx(kernel("$a:\n$b:\nadd.s32 %r1, %r1, 1;\n$c:\n")).functions["k"]
    assert f.labels == {"$a": 0, "$b": 0, "$c": 1}
    assert f.pc_of("$c") == 8


@pytest.mark.parametrize("src", [
    "add.f32 %f1, %f2, 0f3F800000;", "@%p1 exit;", "prefetch.global.L2 [%rd1];",
    "nanosleep.u32 100;", "trap;", "activemask.b32 %r1;", "vote.sync.ballot.b32 %r1, %p1, -1;",
    "match.any.sync.b32 %r1, %r2, -1;", "red.global.add.u32 [%rd1], 1;",
    "isspacep.global %p1, %rd1;", "testp.finite.f32 %p1, %f1;", "copysign.f32 %f1, %f2, %f3;",
    "tanh.approx.f32 %f1, %f2;", "ldu.global.u32 %r1, [%rd1];", "madc.hi.cc.u32 %r1, %r2, %r3, %r4;",
    "bfind.shiftamt.u32 %r1, %r2;", "prmt.b32 %r1, %r2, %r3, 0x3210;", "sad.u32 %r1, %r2, %r3, %r4;",
    "slct.s32.f32 %r1, %r2, %r3, %f1;", "set.lt.u32.s32 %r1, %r2, %r3;", "cnot.b32 %r1, %r2;",
])
def test_more_opcodes_parse(src):
    assert one(src)[0].text == src
