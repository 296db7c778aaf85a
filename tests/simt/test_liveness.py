"""Register liveness of linked kernels (golden.simt.liveness)."""

from golden.ptx.parser import parse_ptx as parse
from golden.simt.liveness import dying_registers, live_registers
from golden.simt.program import link

_LOOP = """
.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, 0;
    mov.u32 %r2, 7;
LOOP:
    add.s32 %r1, %r1, %r2;
    setp.lt.s32 %p1, %r1, 100;
    @%p1 bra LOOP;
    mov.u32 %r3, %tid.x;
    add.s32 %r4, %r1, %r3;
    st.global.u32 [%rd1], %r4;
    exit;
}
"""


def test_loop_keeps_loop_carried_registers_live():
    prog = link(parse(_LOOP), "k")
    dead = dying_registers(prog)
    by_text = {i: d for i, d in enumerate(dead)}
    # %r2 (the loop step) stays live through the loop: it dies nowhere inside it
    assert "%r2" not in by_text[3] and "%r2" not in by_text[4] and "%r2" not in by_text[5]
    # %p1 dies at the branch that reads it
    assert "%p1" in by_text[5]
    # %r1 and %r3 die at their last read, %r4 and %rd1 at the store
    assert {"%r1", "%r3"} <= by_text[7]
    assert {"%r4", "%rd1"} <= by_text[8]
    # %r1 is redefined inside the loop and read again: live out of the add
    assert "%r1" not in by_text[3]


def test_unused_definition_dies_at_once():
    src = _LOOP.replace("mov.u32 %r3, %tid.x;", "mov.u32 %r3, %tid.x;\n    mov.u32 %r5, 3;")
    dead = dying_registers(link(parse(src), "k"))
    assert any("%r5" in d for d in dead)


def test_live_in_sets():
    live = live_registers(link(parse(_LOOP), "k"))
    # at the loop head: the accumulator, the step and the store pointer are live
    assert {"%r1", "%r2", "%rd1"} <= live[3]
    # at the store: only its operands
    assert live[8] == {"%rd1", "%r4"}
    assert live[0] == frozenset()   # nothing is live before the first definition
