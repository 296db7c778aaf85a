"""Register liveness of a linked kernel: which registers die at each instruction.

PTX registers are virtual: the compiler never reuses them, so a structure that holds a
register's value until the register is *redefined* (the uniform-vector design's SRF
mapping, DARSIE's rename table) keeps dead values for the rest of the warp's life. A
register allocator would have reused those physical registers; :func:`dying_registers`
gives what it would know -- for every instruction, the registers it reads or writes that
are not live after it (no path from the instruction reads them before a redefinition).

Standard backward data flow over the instruction-level CFG of the linked
:class:`~golden.simt.program.Program`: ``live_in = use | (live_out - kill)``, with
``live_out`` the union of the successors' ``live_in``. Successors: the next instruction;
a ``bra`` goes to its target (and falls through when guarded); an unguarded
``exit``/``ret``/``trap`` has none. A guarded instruction's destination is not killed
(the guard may be false). Registers are storage keys (``Slot.regs`` values).

Liveness is per *thread*. Under SIMT divergence a warp runs one path while the rest of its
threads wait at another PC where the register may still be live, so a user may act on a
death only when the instruction executed with the warp's full active mask (every thread
of the warp is at this instruction).

Kernels that call device functions are not analysed (:func:`dying_registers` returns
None): each callee has its own register namespace and return edges would need a call
graph; callers then keep registers until redefinition.
"""

from __future__ import annotations

from golden.ptx.ir import Addr, Reg, Vec

__all__ = ["dying_registers", "live_registers", "operand_regs"]

#: opcodes without a destination operand (the first operand is a source)
_NO_DST = frozenset({"st", "red", "bra", "bar", "barrier", "call", "exit", "ret", "trap",
                     "membar", "fence", "prefetch", "nanosleep"})
_STOP = frozenset({"exit", "ret", "trap"})


def operand_regs(op) -> list:
    """The registers an operand names (a register, vector elements, an address base or a
    predicate source); [] for anything else."""
    if isinstance(op, Reg):
        return [op]
    if isinstance(op, Vec):
        return [e for e in op.elems if isinstance(e, Reg)]
    if isinstance(op, Addr):
        return [op.base] if isinstance(op.base, Reg) else []
    r = getattr(op, "reg", None)  # a predicate source operand (!%p)
    return [r] if isinstance(r, Reg) else []


def _use_def(slot, bit) -> tuple[int, int]:
    inst = slot.inst
    ops = inst.operands
    has_dst = inst.opcode not in _NO_DST and len(ops) > 0
    use = dfn = 0
    for op in (ops[1:] if has_dst else ops):
        for r in operand_regs(op):
            use |= bit(slot, r)
    if inst.guard is not None:
        use |= bit(slot, inst.guard.reg)
    if has_dst:
        for r in operand_regs(ops[0]):
            dfn |= bit(slot, r)
    return use, dfn


def dying_registers(program) -> list[frozenset] | None:
    """Per instruction slot (index = pc >> 3), the storage keys of the registers it reads or
    writes that are dead after it; None when the kernel calls device functions."""
    a = _analyse(program)
    if a is None:
        return None
    keys, live_in, live_out, touched = a
    return [_keys(keys, touched[i] & ~live_out[i]) for i in range(len(touched))]


def live_registers(program) -> list[frozenset] | None:
    """Per instruction slot, the storage keys of the registers live on entry to it (read
    on some path before being redefined); None when the kernel calls device functions."""
    a = _analyse(program)
    return None if a is None else [_keys(a[0], x) for x in a[1]]


def _keys(keys, bits: int) -> frozenset:
    return frozenset(keys[b] for b in range(bits.bit_length()) if bits >> b & 1)


def _analyse(program):
    """(keys, live_in, live_out, touched) bit sets per slot, or None (calls)."""
    slots = program.slots
    if any(s.inst is not None and s.inst.opcode == "call" for s in slots):
        return None
    keys = sorted(program.reg_types)
    index = {k: i for i, k in enumerate(keys)}

    def bit(slot, r) -> int:
        key = slot.regs.get(r.name)
        return 1 << index[key] if key in index else 0

    n = len(slots)
    use = [0] * n
    kill = [0] * n
    touched = [0] * n
    succs: list[tuple] = []
    for i, s in enumerate(slots):
        inst = s.inst
        if inst is None:
            succs.append(())
            continue
        u, d = _use_def(s, bit)
        use[i] = u
        kill[i] = 0 if inst.guard is not None else d
        touched[i] = u | d
        guarded = inst.guard is not None
        nxt = (i + 1,) if i + 1 < n else ()
        if inst.opcode == "bra" and s.target is not None:
            succs.append(((s.target >> 3),) + (nxt if guarded else ()))
        elif inst.opcode in _STOP:
            succs.append(nxt if guarded else ())
        else:
            succs.append(nxt)
    preds: list[list[int]] = [[] for _ in range(n)]
    for i, ss in enumerate(succs):
        for j in ss:
            preds[j].append(i)
    live_in = [0] * n
    live_out = [0] * n
    work = list(range(n))
    queued = [True] * n
    while work:
        i = work.pop()
        queued[i] = False
        out = 0
        for j in succs[i]:
            out |= live_in[j]
        live_out[i] = out
        new_in = use[i] | (out & ~kill[i])
        if new_in != live_in[i]:
            live_in[i] = new_in
            for p in preds[i]:
                if not queued[p]:
                    queued[p] = True
                    work.append(p)
    return keys, live_in, live_out, touched
