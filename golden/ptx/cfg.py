"""Control-flow graph and immediate post-dominators of a PTX function.

:func:`build_cfg` fills ``Function.blocks``, ``Function.block_of`` and
``Function.ipdom`` (see :mod:`golden.ptx.ir`):

* **Basic blocks.** Leaders are the first instruction, every branch target and every
  instruction following a control transfer (``bra``, ``ret``, ``exit``, ``trap``).
* **Edges.** A guarded ``bra`` goes to its target and falls through; an unguarded
  ``bra`` (incl. ``bra.uni``) only to its target. ``ret``/``exit``/``trap`` go to the
  virtual exit (plus the fall-through when guarded); a block that falls off the end of
  the function also reaches the virtual exit. Exit edges are recorded as
  ``BasicBlock.to_exit``; ``succs``/``preds`` list real blocks only.
* **Post-dominators.** The iterative dominator algorithm of Cooper, Harvey and Kennedy
  ("A Simple, Fast Dominance Algorithm", 2001) run on the reverse CFG rooted at the
  virtual exit. Blocks that cannot reach the exit (infinite loops such as
  ``for(;;)`` or a spin-wait) are given a virtual edge to the exit: repeatedly, the
  highest-numbered block that still cannot reach the exit (normally the loop's latch)
  is connected, as LLVM does for its post-dominator tree. ``ipdom[pc]`` of every branch
  instruction (``bra``, and guarded ``ret``/``exit``) is the PC of the first instruction
  of its block's immediate post-dominator, or ``None`` when that is the virtual exit
  (the paths meet only when the threads leave the function). This is the
  reconvergence point of the PDOM SIMT stack.
"""

from __future__ import annotations

from golden.ptx.ir import BasicBlock, Function, Sym

#: opcodes after which control does not fall through (unless guarded)
TERMINATORS = frozenset({"bra", "ret", "exit", "trap"})
#: opcodes that leave the function
EXITS = frozenset({"ret", "exit", "trap"})


def branch_target(func: Function, index: int) -> int | None:
    """Instruction index a ``bra`` at ``index`` jumps to (``None`` if not a bra)."""
    inst = func.instructions[index]
    if inst.opcode != "bra":
        return None
    tgt = inst.operands[-1]
    if not isinstance(tgt, Sym):
        return None
    return func.labels[tgt.name]


def _find_blocks(func: Function) -> list[BasicBlock]:
    insts = func.instructions
    n = len(insts)
    if n == 0:
        return []
    leaders = {0}
    for idx, inst in enumerate(insts):
        if inst.opcode in TERMINATORS:
            leaders.add(idx + 1)
            t = branch_target(func, idx)
            if t is not None:
                leaders.add(t)
    starts = sorted(x for x in leaders if x < n)
    # the label naming each block: a branch-target label if there is one
    targets = {insts[i].operands[-1].name for i in range(n)
               if insts[i].opcode == "bra" and isinstance(insts[i].operands[-1], Sym)}
    label_at: dict[int, str] = {}
    for name, idx in func.labels.items():
        cur = label_at.get(idx)
        if cur is None or (name in targets and cur not in targets):
            label_at[idx] = name
    blocks = []
    for b, s in enumerate(starts):
        e = starts[b + 1] if b + 1 < len(starts) else n
        blocks.append(BasicBlock(id=b, start=s, end=e, label=label_at.get(s)))
    return blocks


def _connect(func: Function, blocks: list[BasicBlock]) -> None:
    insts = func.instructions
    n = len(insts)
    block_of = func.block_of
    for blk in blocks:
        last = insts[blk.end - 1]
        succs: list[int] = []
        falls = True
        if last.opcode == "bra":
            t = branch_target(func, blk.end - 1)
            if t is not None and t < n:
                succs.append(block_of[t])
            else:
                blk.to_exit = True
            falls = last.guard is not None
        elif last.opcode in EXITS:
            blk.to_exit = True
            falls = last.guard is not None
        if falls:
            if blk.end < n:
                if block_of[blk.end] not in succs:
                    succs.append(block_of[blk.end])
            else:
                blk.to_exit = True
        blk.succs = succs
    for blk in blocks:
        for s in blk.succs:
            blocks[s].preds.append(blk.id)


def _postdominators(blocks: list[BasicBlock]) -> list[int]:
    """Immediate post-dominator of every block; ``len(blocks)`` stands for the virtual exit."""
    nb = len(blocks)
    exit_node = nb
    # CFG successors including the virtual exit (these are the reverse graph's preds)
    fsucc = [list(b.succs) + ([exit_node] if b.to_exit else []) for b in blocks]
    fsucc.append([])
    # reverse-graph successors: CFG predecessors
    rsucc: list[list[int]] = [list(b.preds) for b in blocks]
    rsucc.append([b.id for b in blocks if b.to_exit])

    # give blocks that cannot reach the exit a virtual exit edge (infinite loops)
    reach = [False] * (nb + 1)

    def mark(start: int) -> None:
        stack = [start]
        reach[start] = True
        while stack:
            x = stack.pop()
            for y in rsucc[x]:
                if not reach[y]:
                    reach[y] = True
                    stack.append(y)

    mark(exit_node)
    for b in range(nb - 1, -1, -1):
        if not reach[b]:
            fsucc[b].append(exit_node)
            rsucc[exit_node].append(b)
            mark(b)

    # post-order of the reverse graph from the exit (iterative DFS)
    order: list[int] = []
    seen = [False] * (nb + 1)
    seen[exit_node] = True
    stack = [(exit_node, iter(rsucc[exit_node]))]
    while stack:
        node, it = stack[-1]
        for y in it:
            if not seen[y]:
                seen[y] = True
                stack.append((y, iter(rsucc[y])))
                break
        else:
            stack.pop()
            order.append(node)
    po_num = [0] * (nb + 1)
    for k, x in enumerate(order):
        po_num[x] = k
    rpo = order[::-1]

    undef = -1
    idom = [undef] * (nb + 1)
    idom[exit_node] = exit_node

    def intersect(a: int, b: int) -> int:
        while a != b:
            while po_num[a] < po_num[b]:
                a = idom[a]
            while po_num[b] < po_num[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for x in rpo:
            if x == exit_node:
                continue
            new = undef
            for p in fsucc[x]:  # predecessors in the reverse graph
                if idom[p] == undef:
                    continue
                new = p if new == undef else intersect(p, new)
            if new != undef and idom[x] != new:
                idom[x] = new
                changed = True
    return idom


def build_cfg(func: Function) -> None:
    """Fill ``func.blocks``, ``func.block_of`` and ``func.ipdom`` (see module docstring)."""
    blocks = _find_blocks(func)
    func.block_of = [0] * len(func.instructions)
    for blk in blocks:
        for i in range(blk.start, blk.end):
            func.block_of[i] = blk.id
    _connect(func, blocks)
    idom = _postdominators(blocks)
    nb = len(blocks)
    for blk in blocks:
        blk.ipdom = None if idom[blk.id] in (nb, -1) else idom[blk.id]
    func.blocks = blocks
    func.ipdom = {}
    for blk in blocks:
        last = func.instructions[blk.end - 1]
        if last.opcode == "bra" or (last.opcode in EXITS and last.guard is not None):
            func.ipdom[last.pc] = None if blk.ipdom is None else 8 * blocks[blk.ipdom].start
