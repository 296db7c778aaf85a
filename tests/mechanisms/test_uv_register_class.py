"""Static register classes of the UV SRF design (golden/mechanisms/uv/register_class.py)."""

from golden.mechanisms.uv.decode import decode_uv
from golden.mechanisms.uv.register_class import COMPUTED, OTHER, PARAM, register_classes
from golden.ptx.parser import parse_ptx as parse
from golden.simt.program import link
from golden.timing.sm import decode_program

_KERNEL = """
.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 a, .param .u32 n)
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [a];
    ld.param.u32 %r1, [n];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r2, %ntid.x;
    mul.lo.s32 %r3, %r1, %r2;
    setp.gt.s32 %p1, %r1, 4;
    @%p1 mov.u32 %r4, 9;
    mov.u32 %r5, %ctaid.x;
    mad.lo.s32 %r6, %r5, %r2, %r1;
    ld.global.u32 %r7, [%rd2];
    add.s32 %r8, %r7, %r1;
    mov.u32 %r9, 0;
LOOP:
    add.s32 %r9, %r9, %r3;
    setp.lt.s32 %p2, %r9, 100;
    @%p2 bra LOOP;
    mov.u32 %r10, %tid.x;
    setp.eq.s32 %p3, %r10, 0;
    @%p3 bra SKIP;
    mov.u32 %r11, %r1;
    bra.uni JOIN;
SKIP:
    mov.u32 %r11, %r3;
JOIN:
    add.s32 %r12, %r11, %r8;
    add.s32 %r13, %r12, %r6;
    add.s32 %r14, %r13, %r4;
    st.global.u32 [%rd2], %r14;
    exit;
}
"""


def _classes(src):
    prog = link(parse(src), "k")
    dec = decode_uv(prog, decode_program(prog))
    keys = sorted(prog.reg_types)
    cls = register_classes(prog, dec)
    return {k.rsplit("%", 1)[-1]: c for k, c in zip(keys, cls)}  # "r3", "rd1", "p1"


def test_param_loads_and_pure_functions_of_params_and_launch_constants_are_param():
    get = _classes(_KERNEL)
    # ld.param, cvta of it, %ntid, n * ntid, a compare of a param, a move guarded by it
    for r in ("rd1", "r1", "rd2", "r2", "r3", "p1", "r4"):
        assert get[r] == PARAM, r


def test_ctaid_loop_counters_and_control_chosen_values_are_computed():
    get = _classes(_KERNEL)
    assert get["r5"] == COMPUTED and get["r6"] == COMPUTED       # %ctaid is per TB
    assert get["r9"] == COMPUTED and get["p2"] == COMPUTED       # loop counter: two defs
    assert get["r11"] == COMPUTED                                # chosen by a tid branch
    assert get["r10"] == COMPUTED                                # %tid: never uniform


def test_values_from_memory_and_their_uses_are_other():
    get = _classes(_KERNEL)
    assert get["r7"] == OTHER and get["r8"] == OTHER
    assert get["r12"] == OTHER and get["r13"] == OTHER and get["r14"] == OTHER
