"""The compiled form of one PTX ALU instruction, and the operand plumbing every family uses.

:func:`golden.exec.ops.compile_op` decodes an instruction's opcode and modifiers once
and returns a :class:`CompiledOp`; the SIMT executor caches it per instruction and, for
every warp (or group of warps) that executes it, reads the source lanes, calls ``fn``
and writes the results back:

.. code-block:: python

    op = compile_op(inst)
    srcs = [read_as(regs[r.name], reg_type[r.name], t) if isinstance(r, Reg) else imm_as(r, t)
            for r, t in zip(op.src_operands, op.src_types)]
    for d, t, v in zip(op.dst_operands, op.dst_types, op.fn(*srcs)):
        if d is not None:
            regs[d.name][mask] = write_as(v, t, reg_type[d.name])[mask]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from golden.errors import PTXError
from golden.ptx.ir import Imm, Instruction, PredGuard, Reg, SpecialReg, Vec


@dataclass(frozen=True)
class CompiledOp:
    """One decoded ALU instruction.

    Attributes
    ----------
    dst_operands:
        destination registers in text order, vectors flattened; ``None`` for a ``_`` sink.
    src_operands:
        source operands in text order (``Reg``, ``Imm`` or ``SpecialReg``), vectors
        flattened.
    src_types:
        the PTX type each source is read as (``read_as`` / ``imm_as``).
    dst_types:
        the PTX type of each result (``write_as`` converts it to the register's dtype).
    fn:
        ``fn(*srcs) -> tuple`` of result arrays, one per destination, with
        ``DTYPE[dst_type]``. ``srcs`` are equal-length 1-D arrays (registers) or numpy
        scalars (immediates); when every source is an immediate the results have shape
        ``(1,)`` and broadcast. numpy floating-point warnings are silenced inside.
    fn_raw:
        the same computation without the ``np.errstate`` guard (about 2 us cheaper per
        call), for callers that already run under ``np.errstate(all="ignore")``.
    opcode:
        the instruction's base mnemonic.
    """

    dst_operands: tuple
    src_operands: tuple
    src_types: tuple
    dst_types: tuple
    fn: Callable
    fn_raw: Callable
    opcode: str = ""


# ----------------------------------------------------------------------------- errors / mods

def unsupported(inst: Instruction, what: str, supported: str) -> PTXError:
    """A :class:`PTXError` for an opcode/modifier combination the functional model lacks."""
    return PTXError(f"unsupported {what} in '{inst.opcode}'", loc=inst.loc, text=inst.text,
                    supported=supported)


def plain_mods(inst: Instruction) -> tuple[str, ...]:
    """The instruction's modifiers without its type suffixes."""
    types = set(inst.types)
    return tuple(m for m in inst.mods if m not in types)


def check_mods(inst: Instruction, allowed, supported: str) -> tuple[str, ...]:
    """Reject any modifier (other than type suffixes) outside ``allowed``; return the rest."""
    mods = plain_mods(inst)
    for m in mods:
        if m not in allowed:
            raise unsupported(inst, f"modifier .{m}", supported)
    return mods


def one_of(inst: Instruction, mods, choices, default, supported: str):
    """The single modifier of ``mods`` that is in ``choices`` (``default`` if none)."""
    found = [m for m in mods if m in choices]
    if len(found) > 1:
        raise unsupported(inst, "combination " + " ".join("." + m for m in found), supported)
    return found[0] if found else default


def the_type(inst: Instruction, allowed, supported: str, index: int = -1) -> str:
    """The instruction's type suffix at ``index``; it must be in ``allowed``."""
    if not inst.types:
        raise unsupported(inst, "missing type suffix", supported)
    t = inst.types[index]
    if t not in allowed:
        raise unsupported(inst, f"type .{t}", supported)
    return t


# ----------------------------------------------------------------------------- operands

def _sink(inst: Instruction, e):
    if e is None or (isinstance(e, Reg) and e.name == "_"):
        return None
    if not isinstance(e, Reg):
        raise unsupported(inst, f"destination operand {e!r}", "registers")
    return e


def dest_regs(inst: Instruction, operand) -> tuple:
    """Destination registers of one operand (a ``Vec`` gives several); sinks -> ``None``."""
    if isinstance(operand, Vec):
        return tuple(_sink(inst, e) for e in operand.elems)
    return (_sink(inst, operand),)


def split_operands(inst: Instruction, n_dst: int = 1, n_src: int | None = None):
    """``(dst operands, src operands)`` of an instruction whose first ``n_dst`` operands
    are destinations; checks the source count when ``n_src`` is given."""
    ops = inst.operands
    if len(ops) < n_dst or (n_src is not None and len(ops) != n_dst + n_src):
        want = "?" if n_src is None else n_dst + n_src
        raise PTXError(f"'{inst.opcode}' expects {want} operands, got {len(ops)}",
                       loc=inst.loc, text=inst.text)
    return ops[:n_dst], ops[n_dst:]


def _check_src(inst: Instruction, s):
    if isinstance(s, (Reg, Imm, SpecialReg, PredGuard)):
        return s
    raise unsupported(inst, f"source operand {s!r}",
                      "registers, special registers and immediates (symbols only in mov)")


# ----------------------------------------------------------------------------- wrapping

def _negating(core, idx):
    idx = frozenset(idx)

    def f(*srcs):
        return core(*[~s if i in idx else s for i, s in enumerate(srcs)])
    return f


def _arrayify(core):
    def f(*srcs):
        return core(*[np.atleast_1d(s) for s in srcs])
    return f


def _silenced(core):
    def f(*srcs):
        with np.errstate(all="ignore"):
            return core(*srcs)
    return f


def make_op(inst: Instruction, dsts, dst_types, srcs, src_types, core, *,
            warns: bool = True) -> CompiledOp:
    """Assemble a :class:`CompiledOp`.

    ``srcs`` may contain ``PredGuard`` operands (a negated predicate source ``!%p``); they
    become plain registers and the value is inverted before ``core`` sees it. ``warns``
    says whether ``core`` can raise numpy floating-point warnings (then ``fn`` silences
    them; integer array arithmetic never warns).
    """
    srcs = tuple(_check_src(inst, s) for s in srcs)
    neg = [i for i, s in enumerate(srcs) if isinstance(s, PredGuard) and s.negated]
    srcs = tuple(s.reg if isinstance(s, PredGuard) else s for s in srcs)
    f = core
    if neg:
        f = _negating(f, neg)
    if all(isinstance(s, Imm) for s in srcs):
        f = _arrayify(f)
        warns = True  # scalar arithmetic reports integer overflow too
    if len(dsts) != len(dst_types) or len(srcs) != len(src_types):
        raise PTXError("internal: operand/type count mismatch", loc=inst.loc, text=inst.text)
    return CompiledOp(dst_operands=tuple(dsts), src_operands=srcs, src_types=tuple(src_types),
                      dst_types=tuple(dst_types), fn=_silenced(f) if warns else f, fn_raw=f,
                      opcode=inst.opcode)
