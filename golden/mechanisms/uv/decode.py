"""Static, per-instruction facts the uniform-vector (UV) mechanism reads at ID (seed 002
ch. 2, §2.3; paper-facts §2.3): which instructions may be scalarised, how each source
operand counts for uniformity, and the IRB's tag, opcode code and source list.

Source kinds (the inputs of the detection logic, golden/structures/uv/detect.py):

* ``IMM`` -- an immediate or a symbol used as a value (one value for the whole kernel), or
  a *thread-independent* special register: ``%ctaid``, ``%ntid``, ``%nctaid``, ``%smid``,
  ``%nsmid``, ``%gridid``, ``%warpid``, ``%nwarpid`` (one value per warp). Clocks and
  ``%globaltimer`` are excluded (a reuse buffer would return a stale time);
* ``THREAD`` -- a thread-dependent special register (``%tid``, ``%laneid``,
  ``%lanemask_*``): never uniform, whatever the TB shape (the decoder cannot know);
* ``REG`` -- a register: uniform when its token is set (token design) or it is mapped in
  the SRF (SRF design).

Scalarisable ("eligible") instructions: arithmetic, logic, compare, convert and move
instructions with a register destination, on the ALU or SFU pipeline. Memory
instructions, control flow, barriers and cross-lane operations (vote, shfl, match,
activemask) never are; the chapter does not scalarise memory operations (coalescing and
MSHRs already merge them) and counts neither branches nor memory in its redundancy.

IRB fields (§2.4.3): ``tag`` = the low ``tag_bits`` of the instruction index (pc / 8),
the *partial PC*; ``opcode`` = an 8-bit code of the instruction's full operation
(opcode, types and modifiers), a CRC-32 of its text truncated to 8 bits (the PTX has no
binary encoding; two operations may share a code, and only the partial PC then guards
against aliasing, exactly as in the chapter); at most ``sources`` (3) source operands,
the guard not included.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from golden.ptx.ir import Addr, Imm, Reg, SpecialReg, Sym, Vec
from golden.timing.stats import PIPE_MEM

IMM, THREAD, REG = 1, 2, 3

#: opcodes never scalarised (memory, atomics, sync, control, cross-lane, time)
NEVER = frozenset({"ld", "ldu", "st", "atom", "red", "bar", "barrier", "membar", "fence", "bra",
                   "call", "ret", "exit", "trap", "prefetch", "nanosleep", "vote",
                   "activemask", "match", "shfl", "tex", "tld4", "suld", "sust", "cp",
                   "redux"})
#: one value per warp
UNIFORM_SPECIALS = frozenset({"ctaid", "ntid", "nctaid", "smid", "nsmid", "gridid",
                              "warpid", "nwarpid"})


@dataclass(frozen=True)
class UVInst:
    """What the UV decoder knows about one instruction slot.

    ``leaves`` are the source operands in order as ``(kind, operand)`` (the guard is not
    one; ``guard`` is the guard predicate's register index or None); ``src_regs`` the
    register indices of the REG leaves (program's sorted register table, as
    :class:`~golden.timing.sm.DecodedInst`); ``dsts`` the destination indices.
    """

    eligible: bool
    leaves: tuple
    src_regs: tuple
    guard: int | None
    dsts: tuple
    dst_keys: tuple
    thread_special: bool
    irb_ok: bool
    tag: int
    opcode: int
    is_load: bool
    param_load: bool


def _leaves(op) -> list:
    if isinstance(op, Vec):
        return [e for e in op.elems if e is not None]
    if isinstance(op, Addr):
        return [op.base] if op.base is not None else []
    r = getattr(op, "reg", None)  # predicate source (!%p)
    if r is not None and isinstance(r, Reg):
        return [r]
    return [op]


def opcode_code(inst) -> int:
    """8-bit code of the full operation of ``inst`` (see module docstring)."""
    text = ".".join([inst.opcode, *inst.mods, *inst.types])
    return zlib.crc32(text.encode()) & 0xFF


def decode_uv(program, decoded, *, tag_bits: int = 10, sources: int = 3) -> list[UVInst]:
    """:class:`UVInst` for every slot of ``program``; ``decoded`` is the timing model's
    :func:`~golden.timing.sm.decode_program` of it."""
    keys = sorted(program.reg_types)
    index = {k: i for i, k in enumerate(keys)}
    out = []
    for s, d in zip(program.slots, decoded):
        inst = s.inst
        if inst is None:
            out.append(UVInst(False, (), (), None, (), (), False, False, 0, 0, False, False))
            continue
        ops = inst.operands
        srcs = ops[1:] if d.dsts else ops
        leaves = []
        thread = False
        for op in srcs:
            for leaf in _leaves(op):
                if isinstance(leaf, Reg):
                    key = s.regs.get(leaf.name)
                    if key is None:
                        continue
                    leaves.append((REG, leaf))
                elif isinstance(leaf, SpecialReg):
                    if leaf.name in UNIFORM_SPECIALS:
                        leaves.append((IMM, leaf))
                    else:
                        thread = True
                        leaves.append((THREAD, leaf))
                elif isinstance(leaf, (Imm, Sym)):
                    leaves.append((IMM, leaf))
        src_regs = tuple(dict.fromkeys(index[s.regs[leaf.name]] for k, leaf in leaves
                                       if k == REG))
        guard = index.get(s.regs.get(inst.guard.reg.name)) if inst.guard is not None else None
        eligible = (inst.opcode not in NEVER and bool(d.dsts) and d.pipe != PIPE_MEM
                    and not d.is_control)
        dst_keys = tuple(keys[i] for i in d.dsts)
        is_load = inst.opcode in ("ld", "ldu") and bool(d.dsts)
        out.append(UVInst(
            eligible=eligible, leaves=tuple(leaves), src_regs=src_regs, guard=guard,
            dsts=tuple(d.dsts), dst_keys=dst_keys, thread_special=thread,
            irb_ok=eligible and len(leaves) <= sources and len(d.dsts) == 1,
            tag=(s.pc >> 3) & ((1 << tag_bits) - 1), opcode=opcode_code(inst),
            is_load=is_load, param_load=is_load and "param" in inst.mods))
    return out
