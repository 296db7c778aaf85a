"""Reference model of the G-Scalar decompressor (seed 003 §3.1, §3.3 rule 4; paper-facts §6.2, §6.3).

One decompressor per operand collector (16 per SM) rebuilds a register from what the
bank's byte arrays delivered after the crossbar reordering (``stored``; bytes of arrays
that were not activated arrive as 0) and from the BVR, selected per byte by the EBR:
byte ``b`` of every lane of group ``g`` comes from the BVR of that group when bit ``b``
of ``enc_g`` is set (the thermometer code marks exactly the common MSB bytes), else from
the arrays. With ``d`` set (register written by a divergent instruction, stored
uncompressed, BVR holding a mask) the arrays are used as they are.

Combinational (the paper: 1 cycle, 0.35 ns); :meth:`Decompressor.step` has no state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.errors import ConfigError
from golden.structures.gscalar.params import GScalarParams, pack_lanes, unpack_fields, unpack_lanes
from golden.structures.ports import OutputPorts

__all__ = ["DecompressorOps", "DecompressorOutputs", "Decompressor"]


@dataclass(frozen=True)
class DecompressorOps:
    """Inputs of one cycle (names are the RTL ports).

    ``stored``: lanes x 32 bits from the arrays; ``enc_groups``: ``groups`` 4-bit EBR
    codes; ``base_groups``: ``groups`` 32-bit BVR values; ``d``: the register's D bit.
    """

    stored: int = 0
    enc_groups: int = 0
    base_groups: int = 0
    d: int = 0


@dataclass(frozen=True)
class DecompressorOutputs(OutputPorts):
    """``values``: the rebuilt register, lanes x 32 bits."""

    values: int


class Decompressor:
    """Per-byte select between stored bytes and the BVR, by the EBR (see module docstring)."""

    def __init__(self, params: GScalarParams):
        if not isinstance(params, GScalarParams):
            raise ConfigError(f"gscalar decompressor: expected GScalarParams, not {type(params).__name__}")
        self._params = params

    @property
    def params(self) -> GScalarParams:
        return self._params

    def decompress(self, stored, enc_groups, base_groups, d: bool) -> np.ndarray:
        """Rebuild lane values (uint32 array) from unpacked inputs.

        Defined for every 4-bit ``enc`` value, as the hardware is: bit ``b`` set selects
        BVR byte ``b``. For the five legal codes this is
        :func:`golden.structures.gscalar.encoding.decompress`.
        """
        p = self._params
        vals = np.asarray(stored, dtype=np.uint32).copy()
        if d:
            return vals
        for g, (enc, base) in enumerate(zip(enc_groups, base_groups)):
            cover = 0
            for b in range(4):
                if (int(enc) >> b) & 1:
                    cover |= 0xFF << (8 * b)
            sl = slice(g * p.group_lanes, (g + 1) * p.group_lanes)
            vals[sl] = (vals[sl] & np.uint32(~cover & 0xFFFFFFFF)) | np.uint32(int(base) & cover)
        return vals

    def step(self, ops: DecompressorOps) -> DecompressorOutputs:
        p = self._params
        vals = self.decompress(unpack_lanes(ops.stored, p.lanes),
                               unpack_fields(ops.enc_groups, 4, p.groups),
                               unpack_fields(ops.base_groups, 32, p.groups), bool(ops.d))
        return DecompressorOutputs(values=pack_lanes(vals))
