"""Functional semantics of PTX instructions over warp lanes (numpy, all lanes at once).

:func:`compile_op` turns one ALU/SFU/conversion/compare instruction into a
:class:`CompiledOp` (operands, the type each is read/written as, and a vectorised
``fn``); :func:`atomic_fn` gives the update function of ``atom``/``red``;
:mod:`golden.exec.types` holds the PTX type <-> numpy dtype rules (``read_as``,
``write_as``, ``imm_as``). The SIMT executor (:mod:`golden.simt`) drives them.

Coverage
--------

================  =====================================================================
family            opcodes (module)
================  =====================================================================
integer           ``add sub`` (``.sat.s32``), ``mul mad`` (``.lo .hi .wide``, ``mad.hi.sat``),
                  ``mul24 mad24``, ``div rem`` (by zero: all ones / dividend), ``abs neg
                  min max sad dp4a dp2a`` on .u16-.u64/.s16-.s64 (:mod:`.int_ops`)
carry flag        ``add.cc addc sub.cc subc mad.cc madc`` (libdevice multi-word code);
                  CC.CF is the pseudo-register :data:`CARRY_REG` (:mod:`.carry_ops`)
bitwise, shifts   ``and or xor not cnot lop3 shl shr shf bfe bfi bfind bmsk szext prmt``
                  (all modes) ``popc clz brev`` (:mod:`.bit_ops`)
predicate logic   ``and or xor not`` on .pred, negated predicate sources (:mod:`.bit_ops`)
compare/select    ``setp`` (all CmpOps, ``.and .or .xor``, ``p|q``), ``set selp slct
                  testp`` (:mod:`.compare_ops`)
conversion, move  ``cvt`` between .u8-.u64 .s8-.s64 .f16 .f32 .f64 with every rounding
                  mode, ``.sat``, ``.ftz``; ``mov`` of registers/immediates and vector
                  pack/unpack (:mod:`.convert_ops`)
float arithmetic  ``add sub mul fma mad`` (.rn .rz .rm .rp, .ftz, .sat; correctly
                  rounded), ``div rcp sqrt`` (.rn .rz .rm .rp .approx .full), ``rsqrt sin
                  cos ex2 lg2 tanh`` (.approx), ``abs neg min max`` (.ftz, .NaN),
                  ``copysign`` on .f32/.f64 (:mod:`.float_ops`, :mod:`.fp`)
atomics           ``add min max exch cas and or xor inc dec`` values (:mod:`.atomics`)
================  =====================================================================

Left out (a clear :class:`~golden.errors.PTXError` when met): half-precision and packed
arithmetic (``add.f16``, ``fma.rn.f16x2``, ``.bf16``, ``min.s16x2``...), ``fns``, the
predicate-output form of ``lop3``, ``cvt`` to/from ``.bf16 .tf32`` and fp8/fp6/fp4 formats, ``.relu`` and
``.satfinite``, ``min/max.xorsign.abs``, ``ex2/tanh`` on f16, video instructions
(``vadd``...), texture/surface instructions, tensor-core instructions. Memory, control,
warp-level instructions, ``cvta`` and ``mov`` of special registers/symbols belong to
the SIMT executor. NaN results use numpy's NaN bit patterns, not the GPU's canonical
0x7fffffff. Accuracy of the approximate functions: see :mod:`.float_ops`.
"""

from golden.exec.atomics import atomic_fn
from golden.exec.carry_ops import CARRY_REG, CARRY_TYPE
from golden.exec.compiled import CompiledOp
from golden.exec.ops import EXECUTOR_OPCODES, SUPPORTED_OPCODES, compile_op
from golden.exec.types import DTYPE, imm_as, read_as, write_as

__all__ = ["CompiledOp", "compile_op", "atomic_fn", "DTYPE", "read_as", "write_as", "imm_as",
           "SUPPORTED_OPCODES", "EXECUTOR_OPCODES", "CARRY_REG", "CARRY_TYPE"]
