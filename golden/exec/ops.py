"""``compile_op``: decode one PTX ALU/SFU/conversion/compare instruction into a
:class:`~golden.exec.compiled.CompiledOp`.

Opcodes shared by integer and floating-point families (``add sub mul mad div abs neg
min max``) are dispatched on the instruction type. Memory (``ld st atom red``), control
(``bra ret exit call bar barrier membar fence``), warp-level (``vote activemask shfl``),
``cvta`` and ``mov`` of special registers or symbols are executed by the SIMT core
(:mod:`golden.simt`); asking for them here is an error that says so.
"""

from __future__ import annotations

from golden.errors import PTXError
from golden.exec import bit_ops, carry_ops, compare_ops, convert_ops, float_ops, int_ops
from golden.exec.compiled import CompiledOp
from golden.exec.types import FLOATS
from golden.ptx.ir import Instruction

_SHARED = frozenset({"add", "sub", "mul", "mad", "div", "abs", "neg", "min", "max"})

_BUILDERS = {}
for _family in (int_ops, carry_ops, bit_ops, compare_ops, convert_ops, float_ops):
    for _name, _builder in _family.BUILDERS.items():
        if _name not in _SHARED:
            _BUILDERS[_name] = _builder

#: opcodes the SIMT executor implements itself (not compiled here)
EXECUTOR_OPCODES = frozenset({
    "ld", "ldu", "st", "atom", "red", "bra", "brx", "ret", "exit", "call", "bar", "barrier",
    "membar", "fence", "cvta", "vote", "activemask", "shfl", "match", "redux", "nanosleep",
    "trap", "prefetch", "isspacep",
})

#: every opcode compile_op accepts
SUPPORTED_OPCODES = tuple(sorted(set(_BUILDERS) | _SHARED))


def compile_op(inst: Instruction) -> CompiledOp:
    """Decode ``inst`` once into a :class:`CompiledOp` (operands, operand types and a
    vectorised ``fn``). Raises :class:`PTXError` naming the instruction's location, its
    text and what is supported when the opcode or a modifier is not modelled."""
    op = inst.opcode
    if op in _SHARED:
        is_f = bool(inst.types) and inst.types[-1] in FLOATS
        family = float_ops if is_f else int_ops
        return family.BUILDERS[op](inst)
    builder = _BUILDERS.get(op)
    if builder is not None:
        return builder(inst)
    if op in EXECUTOR_OPCODES:
        raise PTXError(f"'{op}' is executed by the SIMT core, not compiled by golden.exec",
                       loc=inst.loc, text=inst.text)
    raise PTXError(f"unsupported opcode '{op}'", loc=inst.loc, text=inst.text,
                   supported="ALU opcodes " + " ".join(SUPPORTED_OPCODES)
                   + "; memory/control/warp opcodes " + " ".join(sorted(EXECUTOR_OPCODES)))
