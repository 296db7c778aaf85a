"""CFG construction and immediate post-dominators (reconvergence points)."""

import random

import pytest

from golden.ptx import parse_ptx

HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"
REGS = ".reg .pred %p<8>;\n.reg .b32 %r<8>;\n"


def func(body: str):
    return parse_ptx(f"{HEADER}.visible .entry k()\n{{\n{REGS}{body}\n}}\n").functions["k"]


def shape(f):
    """(start, end, succs, to_exit) of every block."""
    return [(b.start, b.end, b.succs, b.to_exit) for b in f.blocks]


IF_ELSE = """
	setp.lt.s32 %p1, %r1, 0;
	@%p1 bra $ELSE;
	add.s32 %r2, %r1, 1;
	bra.uni $JOIN;
$ELSE:
	sub.s32 %r2, %r1, 1;
$JOIN:
	add.s32 %r3, %r2, 2;
	ret;
"""


def test_if_else_diamond():
    f = func(IF_ELSE)
    assert shape(f) == [(0, 2, [2, 1], False), (2, 4, [3], False), (4, 5, [3], False),
                        (5, 7, [], True)]
    assert [b.preds for b in f.blocks] == [[], [0], [0], [1, 2]]
    assert [b.label for b in f.blocks] == [None, None, "$ELSE", "$JOIN"]
    assert f.block_of == [0, 0, 1, 1, 2, 3, 3]
    assert f.ipdom == {8: 40, 24: 40}
    assert [b.ipdom for b in f.blocks] == [3, 3, 3, None]
    assert f.blocks[3].pc == 40


def test_loop_with_break():
    f = func("""
	mov.u32 %r1, 0;
$HEAD:
	setp.ge.s32 %p1, %r1, 10;
	@%p1 bra $OUT;
	setp.eq.s32 %p2, %r1, 5;
	@%p2 bra $OUT;
	add.s32 %r1, %r1, 1;
	bra.uni $HEAD;
$OUT:
	ret;
""")
    # blocks: [0,1) [1,3) [3,5) [5,7) [7,8)
    assert shape(f) == [(0, 1, [1], False), (1, 3, [4, 2], False), (3, 5, [4, 3], False),
                        (5, 7, [1], False), (7, 8, [], True)]
    assert f.ipdom == {16: 56, 32: 56, 48: 8}


def test_if_inside_loop_reconverges_inside_the_loop():
    f = func("""
$HEAD:
	and.b32 %r2, %r1, 1;
	setp.eq.s32 %p1, %r2, 0;
	@%p1 bra $EVEN;
	add.s32 %r3, %r3, 3;
$EVEN:
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p2, %r1, 100;
	@%p2 bra $HEAD;
	ret;
""")
    assert f.ipdom == {16: 32, 48: 56}


def test_guarded_ret_and_exit():
    f = func("@%p1 ret;\nadd.s32 %r1, %r1, 1;\n@!%p2 exit;\nret;")
    assert shape(f) == [(0, 1, [1], True), (1, 3, [2], True), (3, 4, [], True)]
    assert f.ipdom == {0: None, 16: None}


def test_unguarded_branch_has_no_fallthrough_and_dead_code_is_a_block():
    f = func("bra.uni $X;\nadd.s32 %r1, %r1, 1;\n$X:\nret;")
    assert shape(f) == [(0, 1, [2], False), (1, 2, [2], False), (2, 3, [], True)]
    assert f.blocks[1].preds == []
    assert f.ipdom == {0: 16}


def test_branch_to_next_instruction_gives_one_edge():
    f = func("@%p1 bra $N;\n$N:\nret;")
    assert shape(f) == [(0, 1, [1], False), (1, 2, [], True)]
    assert f.ipdom == {0: 8}


def test_falling_off_the_end_reaches_exit_and_trap_leaves():
    f = func("@%p1 bra $T;\nadd.s32 %r1, %r1, 1;\n$T:\ntrap;\nadd.s32 %r1, %r1, 2;")
    assert shape(f) == [(0, 1, [2, 1], False), (1, 2, [2], False), (2, 3, [], True),
                        (3, 4, [], True)]
    assert f.ipdom == {0: 16}


def test_empty_function():
    f = func("")
    assert f.blocks == [] and f.block_of == [] and f.ipdom == {}


def test_infinite_loop_does_not_crash():
    f = func("$L:\nadd.s32 %r1, %r1, 1;\nbra.uni $L;")
    assert shape(f) == [(0, 2, [0], False)]
    assert f.ipdom == {8: None}


def test_loop_that_never_exits_after_a_divergent_branch():
    f = func("""
	@%p1 bra $SPIN;
	ret;
$SPIN:
	@%p2 bra $A;
	add.s32 %r1, %r1, 1;
$A:
	add.s32 %r2, %r2, 1;
	bra.uni $SPIN;
""")
    # blocks: [0,1) [1,2) [2,3) [3,4) [4,6); the spin region {2,3,4} gets a virtual exit
    assert shape(f)[2:] == [(2, 3, [4, 3], False), (3, 4, [4], False), (4, 6, [2], False)]
    assert f.ipdom[0] is None
    assert f.ipdom[16] == 32  # the if inside the spin loop still reconverges at $A
    assert f.ipdom[40] is None


def _naive_ipdom(blocks):
    """Post-dominators by the textbook set equations (every block must reach the exit)."""
    n = len(blocks)
    exit_node = n
    succ = [list(b.succs) + ([exit_node] if b.to_exit else []) for b in blocks]
    allnodes = set(range(n + 1))
    pdom = [set(allnodes) for _ in range(n)] + [{exit_node}]
    changed = True
    while changed:
        changed = False
        for b in range(n):
            new = set(allnodes)
            for s in succ[b]:
                new &= pdom[s]
            new |= {b}
            if new != pdom[b]:
                pdom[b] = new
                changed = True
    ip = []
    for b in range(n):
        strict = pdom[b] - {b}
        # the immediate one is post-dominated by all other strict post-dominators
        cand = [c for c in strict if all(o in pdom[c] for o in strict)]
        assert len(cand) == 1
        ip.append(None if cand[0] == exit_node else cand[0])
    return ip


def _random_body(rng: random.Random, n: int) -> str:
    lines = []
    for k in range(n):
        lines.append(f"$L{k}:")
        r = rng.random()
        if r < 0.35:
            lines.append(f"@%p{rng.randrange(8)} bra $L{rng.randrange(n)};")
        elif r < 0.45 and k + 1 < n:
            # strictly forward unconditional jumps keep every block able to reach the exit
            lines.append(f"bra.uni $L{rng.randrange(k + 1, n)};")
        elif r < 0.5:
            lines.append("@%p1 ret;")
        else:
            lines.append("add.s32 %r1, %r1, 1;")
    lines.append("ret;")
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(40))
def test_ipdom_matches_textbook_post_dominators_on_random_cfgs(seed):
    rng = random.Random(1000 + seed)
    f = func(_random_body(rng, rng.randrange(3, 30)))
    # every block reaches the exit here, so no virtual exit edges are involved
    expected = _naive_ipdom(f.blocks)
    assert [b.ipdom for b in f.blocks] == expected
    for b in f.blocks:
        last = f.instructions[b.end - 1]
        if last.opcode == "bra":
            want = None if b.ipdom is None else 8 * f.blocks[b.ipdom].start
            assert f.ipdom[last.pc] == want
        for s in b.succs:
            assert b.id in f.blocks[s].preds
