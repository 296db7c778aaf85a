"""The front end on real nvcc output: tests/ptx/samples/*.cu compiled with
``nvcc -ptx -arch=sm_75`` (CUDA 13.0; regenerate with tests/ptx/regen_samples.py).

Expected values come from the CUDA sources (initialisers packed with ``struct``) and
from an independent line-based count of the PTX text, not from the parser itself.
"""

import re
import struct
from pathlib import Path

import pytest

from golden.bench import replicated_module
from golden.ptx import load_ptx, parse_ptx
from golden.ptx.ir import Addr, Imm, Reg, SpecialReg, Sym, Vec

SAMPLES = Path(__file__).resolve().parent / "samples"
REPO = Path(__file__).resolve().parents[2]

_INSTR_LINE = re.compile(r"^\s*(@!?%\w+\s+)?[a-z][a-z0-9_.]*[\s;]")


def count_instruction_lines(text: str) -> int:
    """Instructions counted from the text: one per line that starts with an opcode."""
    n = 0
    for line in text.split("\n"):
        s = line.split("//")[0]
        if _INSTR_LINE.match(s) and ".callprototype" not in s:
            n += 1
    return n


@pytest.fixture(scope="module")
def mods():
    return {p.stem: load_ptx(p) for p in sorted(SAMPLES.glob("*.ptx"))}


def sample_files():
    return sorted(SAMPLES.glob("*.ptx")) + sorted((SAMPLES / "debug").glob("*.ptx"))


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_instruction_count_and_pcs(path):
    m = load_ptx(path)
    total = 0
    for f in m.functions.values():
        assert [i.pc for i in f.instructions] == list(range(0, 8 * len(f.instructions), 8))
        assert all(i.loc.file == str(path) for i in f.instructions)
        assert len(f.block_of) == len(f.instructions)
        total += len(f.instructions)
    assert total == count_instruction_lines(path.read_text())
    assert (m.version, m.target, m.address_size) == ("9.0", "sm_75", 64)


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_locations_point_at_the_instruction_text(path):
    lines = path.read_text().split("\n")
    for f in load_ptx(path).functions.values():
        for i in f.instructions:
            src = lines[i.loc.line - 1][i.loc.col - 1:]
            first = i.text.split(" ")[0]
            assert src.startswith(first), (i.loc, i.text)


def test_vecadd(mods):
    m = mods["vecadd"]
    assert list(m.kernels) == ["vecadd"]
    f = m.functions["vecadd"]
    assert f.is_entry and f.visible
    assert [(p.name, p.type, p.offset) for p in f.params] == [
        ("vecadd_param_0", "u64", 0), ("vecadd_param_1", "u64", 8),
        ("vecadd_param_2", "u64", 16), ("vecadd_param_3", "u32", 24)]
    assert f.param_size == 28
    assert len(f.instructions) == 22
    assert f.regs["%p1"] == "pred" and f.regs["%f3"] == "f32" and f.regs["%r5"] == "b32"
    assert f.regs["%rd10"] == "b64" and "%rd11" not in f.regs and "%p2" not in f.regs
    assert f.labels == {"$L__BB0_2": 21}
    bra = f.instructions[9]
    assert bra.text == "@%p1 bra $L__BB0_2;" and bra.loc.line == 37 and bra.loc.col == 2
    assert [(b.start, b.end, b.succs, b.to_exit) for b in f.blocks] == [
        (0, 10, [2, 1], False), (10, 21, [2], False), (21, 22, [], True)]
    assert f.ipdom == {72: 168}
    assert f.instructions[4].operands == (Reg("%r3"), SpecialReg("ctaid", "x"))


def test_tiled_matmul_2d_shared_and_loop(mods):
    f = mods["tiled_matmul"].functions["tiled_matmul"]
    for name in ("_ZZ12tiled_matmulE2As", "_ZZ12tiled_matmulE2Bs"):
        v = f.variables[name]
        assert (v.space, v.size, v.align, v.init) == ("shared", 16 * 16 * 4, 4, None)
    specials = {o for i in f.instructions for o in i.operands if isinstance(o, SpecialReg)}
    assert specials == {SpecialReg("tid", "x"), SpecialReg("tid", "y"),
                        SpecialReg("ctaid", "x"), SpecialReg("ctaid", "y")}
    bars = [i for i in f.instructions if i.opcode == "bar"]
    assert len(bars) == 2 and all(b.mods == ("sync",) and b.operands == (Imm(0),) for b in bars)
    loads = [i.operands[1] for i in f.instructions if i.opcode == "ld" and i.has("shared")]
    assert Addr(Reg("%r8"), 960) in loads and Addr(Reg("%r7"), 60) in loads
    # loop back edge and loop skip both reconverge at $L__BB0_3
    bras = [i for i in f.instructions if i.opcode == "bra"]
    assert [b.operands[0].name for b in bras] == ["$L__BB0_3", "$L__BB0_2"]
    for b in bras:
        assert f.ipdom[b.pc] == f.pc_of("$L__BB0_3")
    loop = f.blocks[f.block_of[f.labels["$L__BB0_2"]]]
    assert loop.id in loop.succs  # self loop


def test_constant_tables_and_initialisers(mods):
    m = mods["const_tables"]
    v = m.variables
    assert v["sbox"].init == bytes([243, 4, 17, 0, 255, 128, 7, 9]) and v["sbox"].space == "const"
    assert v["coeffs"].init == struct.pack("<4f", 1.5, -2.25, 0.0, 3.0e10)
    assert v["grid2d"].init == struct.pack("<6i", 1, 2, 3, -4, -5, -6)
    assert v["dcoef"].init == struct.pack("<2d", 0.1, -7.0) and v["dcoef"].align == 8
    assert v["halfwords"].init == struct.pack("<3h", 1, -2, 30000)
    assert v["partial"].init == struct.pack("<6i", 11, 22, 0, 0, 0, 0)
    assert v["big"].init == struct.pack("<2q", 0x123456789ABCDEF, -1)
    c = v["counter"]
    assert (c.space, c.type, c.size, c.init) == ("global", "u32", 4, struct.pack("<I", 42))
    s = v["scratch"]
    assert (s.space, s.size, s.align, s.init) == ("global", 256, 4, None)
    for name, size in [("sbox", 8), ("coeffs", 16), ("grid2d", 24), ("dcoef", 16),
                       ("halfwords", 6), ("partial", 24), ("big", 16)]:
        assert v[name].size == size == len(v[name].init)
    f = m.functions["const_tables"]
    assert Sym("coeffs") in f.instructions[12].operands
    atom = [i for i in f.instructions if i.opcode == "atom"]
    assert atom[0].mods == ("global", "add", "u32")


def test_device_functions_struct_params_and_mangled_kernel(mods):
    m = mods["device_func"]
    assert list(m.kernels) == ["_Z5applyPiPf6Paramsi"]
    k = m.functions["_Z5applyPiPf6Paramsi"]
    assert [(p.name[-7:], p.type, p.size, p.align, p.offset) for p in k.params] == [
        ("param_0", "u64", 8, 8, 0), ("param_1", "u64", 8, 8, 8), ("param_2", "b8", 16, 8, 16),
        ("param_3", "u32", 4, 4, 32)]
    assert k.param_size == 36
    loads = [i.operands[1] for i in k.instructions[:6]]
    assert Addr(Sym("_Z5applyPiPf6Paramsi_param_2"), 8) in loads
    fs = m.functions["_Z6fscalef6Params"]
    assert not fs.is_entry and not fs.visible
    assert [(p.offset, p.size, p.align) for p in fs.params] == [(0, 4, 4), (8, 16, 8)]
    assert [(p.name, p.size) for p in fs.ret_params] == [("func_retval0", 4)]
    calls = [i for i in k.instructions if i.opcode == "call"]
    assert [c.operands[1] for c in calls] == [Sym("_Z9clamp_addiiii"), Sym("_Z6fscalef6Params")]
    assert calls[0].operands[0] == Vec((Sym("retval0"),))
    assert calls[0].operands[2] == Vec((Sym("param0"), Sym("param1")))
    # param1 is a .b32 in the first call sequence and a 16-byte struct in the second
    p1 = calls[1].operands[2].elems[1].name
    assert p1 != "param1" and p1.startswith("param1@")
    assert k.call_params["param1"].size == 4 and k.call_params[p1].size == 16
    assert k.call_params[p1].align == 8
    st = [i for i in k.instructions if i.opcode == "st" and i.has("param")]
    assert Addr(Sym(p1), 8) in [i.operands[0] for i in st]
    ca = m.functions["_Z9clamp_addiiii"]
    assert [i.opcode for i in ca.instructions] == ["ld", "ld", "add", "min", "max", "st", "ret"]
    assert ca.instructions[4].operands[2] == Imm(-100)


def test_atomics_and_shared_histogram(mods):
    f = mods["atomics"].functions["histogram"]
    atoms = [(i.mods, len(i.operands)) for i in f.instructions if i.opcode == "atom"]
    assert atoms == [
        (("shared", "add", "u32"), 3), (("global", "max", "s32"), 3), (("global", "min", "s32"), 3),
        (("global", "or", "b32"), 3), (("global", "cas", "b32"), 4), (("global", "exch", "b32"), 3),
        (("global", "inc", "u32"), 3), (("global", "add", "u32"), 3)]
    assert f.variables["_ZZ9histogramE10local_hist"].size == 256
    assert f.ipdom[f.instructions[[i.opcode for i in f.instructions].index("bra")].pc] == \
        f.pc_of("$L__BB0_2")


def test_divergence_if_else_loop_and_switch(mods):
    f = mods["divergence"].functions["divergence"]
    by_target = {}
    for i in f.instructions:
        if i.opcode == "bra":
            by_target.setdefault(i.operands[0].name, []).append(i)
    # the if/else: "@%p5 bra $L__BB0_3; bra.uni $L__BB0_2;" both meet at $L__BB0_4
    (cond,) = [i for i in by_target["$L__BB0_3"]]
    assert cond.guard is not None and cond.guard.reg == Reg("%p5")
    assert f.ipdom[cond.pc] == f.pc_of("$L__BB0_4")
    uni = f.instructions[cond.index + 1]
    assert uni.mods == ("uni",) and uni.guard is None
    assert f.blocks[f.block_of[uni.index]].succs == [f.block_of[f.labels["$L__BB0_2"]]]
    # the while loop with a break: exit test and back edge reconverge after the loop
    (brk,) = by_target["$L__BB0_7"]
    (back,) = by_target["$L__BB0_5"]
    assert f.ipdom[brk.pc] == f.ipdom[back.pc] == f.pc_of("$L__BB0_7")
    # the switch's compare chain reconverges at $L__BB0_14
    for t in ("$L__BB0_12", "$L__BB0_11", "$L__BB0_13"):
        assert f.ipdom[by_target[t][0].pc] == f.pc_of("$L__BB0_14")
    # early return: paths meet at the final ret
    (early,) = by_target["$L__BB0_15"]
    assert f.ipdom[early.pc] == f.pc_of("$L__BB0_15")
    # every block's successors and predecessors agree
    for b in f.blocks:
        for s in b.succs:
            assert b.id in f.blocks[s].preds


def test_math_and_vector_loads(mods):
    f = mods["math_vec"].functions["math_vec"]
    ldv = [i for i in f.instructions if i.opcode == "ld" and i.has("v4")]
    assert len(ldv) == 1 and ldv[0].mods == ("global", "nc", "v4", "f32")
    assert ldv[0].operands[0] == Vec((Reg("%f1"), Reg("%f2"), Reg("%f3"), Reg("%f4")))
    stv = [i for i in f.instructions if i.opcode == "st" and i.has("v4")]
    assert stv[0].operands[1] == Vec((Reg("%f26"), Reg("%f28"), Reg("%f25"), Reg("%f27")))
    imms = {o for i in f.instructions for o in i.operands if isinstance(o, Imm)}
    assert Imm(1.0, "f32", 0x3F800000) in imms
    assert Imm(3.0, "f64", 0x4008000000000000) in imms
    ops = {(i.opcode, i.mods) for i in f.instructions}
    for want in [("sqrt", ("rn", "f32")), ("rsqrt", ("approx", "f32")), ("ex2", ("approx", "f32")),
                 ("lg2", ("approx", "f32")), ("sin", ("approx", "f32")), ("cos", ("approx", "f32")),
                 ("div", ("rn", "f32")), ("cvt", ("rzi", "s32", "f32")), ("sqrt", ("rn", "f64")),
                 ("div", ("rn", "f64")), ("cvt", ("rmi", "f32", "f32"))]:
        assert want in ops
    assert f.regs["%fd7"] == "f64"


def test_block3d_extern_shared_local_depot_and_warp_ops(mods):
    m = mods["block3d"]
    sd = m.variables["sdata"]
    assert (sd.space, sd.size, sd.extern, sd.align) == ("shared", 0, True, 16)
    f = m.functions["block3d"]
    d = f.variables["__local_depot0"]
    assert (d.space, d.size, d.align) == ("local", 32, 16)
    assert f.regs["%SP"] == f.regs["%SPL"] == "b64"
    specials = {o for i in f.instructions for o in i.operands if isinstance(o, SpecialReg)}
    assert {SpecialReg(n, c) for n in ("tid", "ntid") for c in "xyz"} <= specials
    assert {SpecialReg("ctaid", "z"), SpecialReg("nctaid", "y"), SpecialReg("clock64"),
            SpecialReg("laneid")} <= specials
    shfl = [i for i in f.instructions if i.opcode == "shfl"][0]
    assert shfl.mods == ("sync", "down", "b32")
    assert shfl.operands[0] == Vec((Reg("%r40"), Reg("%p3")))
    st = [i for i in f.instructions if i.opcode == "st" and i.has("local")]
    assert st[1].operands == (Addr(Reg("%rd5"), 16),
                              Vec((Reg("%r20"), Reg("%r21"), Reg("%r22"), Reg("%r23"))))
    assert [i.mods for i in f.instructions if i.opcode == "vote"] == [("sync", "ballot", "b32")]


def test_loops_spin_and_forever(mods):
    m = mods["loops"]
    f = m.functions["loops"]
    for i in f.instructions:
        if i.opcode == "bra":
            assert f.ipdom[i.pc] == f.pc_of("$L__BB0_4")
    s = m.functions["spin_wait"]
    (spin,) = [i for i in s.instructions if i.opcode == "bra"]
    assert s.ipdom[spin.pc] == spin.pc + 8
    fv = m.functions["forever"]
    (back,) = [i for i in fv.instructions if i.opcode == "bra"]
    assert fv.ipdom[back.pc] is None
    assert not any(b.to_exit for b in fv.blocks)


def test_double_sin_scoped_register_shadowing(mods):
    m = mods["dsin"]
    f = m.functions["__internal_trig_reduction_slowpathd"]
    at = {i.loc.line: i for i in f.instructions}
    # line 150: "{ .reg .b32 %temp; mov.b64 {%temp, %r1}, %fd4; }" writes the outer %r1
    assert at[150].operands[0] == Vec((Reg("%temp"), Reg("%r1")))
    # line 192: inside a block that re-declares %r0..%r3 as .u32: a different register
    inner = at[192].operands[0]
    assert inner.name.startswith("%r1@") and f.regs[inner.name] == "u32"
    # line 242, after the block: the outer %r1 again
    assert at[242].operands[1] == Reg("%r1") and f.regs["%r1"] == "b32"
    # the four inline-asm blocks each get their own copies
    assert len({r for r in f.regs if r.startswith("%r1@")}) == 4
    assert {i.opcode for i in f.instructions} >= {"madc", "addc", "subc"}
    k = m.functions["dsin"]
    (call,) = [i for i in k.instructions if i.opcode == "call"]
    ret = call.operands[0].elems[0].name
    assert k.call_params[ret].size == 16 and k.call_params[ret].align == 8
    assert [(p.size, p.align) for p in f.ret_params] == [(16, 8)]


def test_printf_function_pointers_and_relocations(mods):
    m = mods["indirect"]
    assert list(m.externs) == ["vprintf"]
    assert set(m.functions) == {"_Z5twicei", "_Z6squarei", "indirect"}
    ops = m.variables["ops"]
    assert [(r.offset, r.symbol, r.generic) for r in ops.relocs] == [
        (0, "_Z5twicei", False), (8, "_Z6squarei", False)]
    ptrs = m.variables["ptrs"]
    assert [(r.offset, r.symbol, r.generic, r.addend) for r in ptrs.relocs] == [
        (0, "a_val", True, 0), (8, "b_arr", True, 8)]
    assert ptrs.init == bytes(16)
    assert m.variables["$str"].init == b"sel=%d\n\x00"
    k = m.functions["indirect"]
    calls = [i for i in k.instructions if i.opcode == "call"]
    assert isinstance(calls[0].operands[1], Reg) and calls[0].operands[3] == Sym("prototype_0")
    assert calls[1].operands[1] == Sym("vprintf")
    (trap,) = [i for i in k.instructions if i.opcode == "trap"]
    assert f_block_exits(k, trap.index)


def f_block_exits(f, index):
    return f.blocks[f.block_of[index]].to_exit


def test_debug_variants_skip_loc_file_and_sections():
    g = load_ptx(SAMPLES / "debug" / "divergence_G.ptx")
    plain = load_ptx(SAMPLES / "divergence.ptx")
    assert set(g.functions) == set(plain.functions)
    f = g.functions["divergence"]
    assert f.labels["$L__func_begin0"] == 0
    # labels after the last instruction point past the end
    assert f.labels["$L__func_end0"] == len(f.instructions)
    r = load_ptx(SAMPLES / "debug" / "device_func_lineinfo_rdc.ptx")
    assert r.functions["_Z9clamp_addiiii"].visible


def test_every_committed_ptx_in_the_repository_parses():
    paths = [p for p in REPO.rglob("*.ptx")
             if not any(part in (".venv", "build", ".git", "bad_inputs")
                     for part in p.relative_to(REPO).parts)]
    assert len(paths) >= len(sample_files())
    for p in paths:
        m = load_ptx(p)
        for f in m.functions.values():
            for pc in f.ipdom:
                assert f.instructions[pc // 8].opcode in ("bra", "ret", "exit", "trap")


def test_a_module_of_thousands_of_lines_parses_every_kernel():
    text = (SAMPLES / "tiled_matmul.ptx").read_text()
    big = replicated_module(text, "tiled_matmul", 25)
    assert big.count("\n") > 3000
    m = parse_ptx(big, "big.ptx")       # its speed is a `make bench` figure
    assert len(m.functions) == 25
    assert {len(f.instructions) for f in m.functions.values()} == {
        len(parse_ptx(text, "one.ptx").functions["tiled_matmul"].instructions)}
