"""Reference model of the G-Scalar compressor (seed 003 §3.1, §4.2 Fig. 7a/7c; paper-facts §6.2, §6.4 B).

The compressor sits at the end of each SIMT pipeline (4 per SM) and, in one cycle,
turns the lanes of a result register into

* ``enc``: the whole-register thermometer code (over active lanes only),
* ``base``: the value of the first active lane (the BVR content of a non-divergent write),
* ``enc_groups`` / ``base_groups``: the same per compression group (``groups = 2``:
  ``encL`` in bits 3..0 and ``encH`` in bits 7..4; ``baseL`` in bits 31..0, ``baseH``
  in bits 63..32; with ``groups = 1`` they equal ``enc`` / ``base``),
* ``fs`` (full scalar): every active lane holds the same value (``enc == 1111``); for
  the half-register variant this is the FS bit of §4.3 (one lane can serve the warp).

Inactive lanes are ignored: in hardware the first active lane (leading-one detector on
the active mask, lowest index first) drives a shared bus whose value replaces every
inactive lane at the comparator inputs. With no active lane everything is 0 (see
:mod:`golden.structures.gscalar.encoding`).

The unit is combinational: :meth:`Compressor.step` has no state, it exists so the
cosimulation drives it like every other structure (DESIGN.md, "one structure, three views").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.errors import ConfigError, SimtlabError
from golden.structures.gscalar.encoding import ENC_CODES, byte_enc, group_enc
from golden.structures.gscalar.params import GScalarParams, pack_fields, pack_lanes, unpack_lanes
from golden.structures.ports import OutputPorts

__all__ = ["CompressorOps", "CompressorOutputs", "Compression", "Compressor"]


@dataclass(frozen=True)
class CompressorOps:
    """Inputs of one cycle: ``values`` (lanes x 32 bits, lane 0 low) and the ``active`` mask."""

    values: int = 0
    active: int = 0


@dataclass(frozen=True)
class CompressorOutputs(OutputPorts):
    """Outputs of one cycle (names are the RTL ports; see the module docstring)."""

    enc: int
    base: int
    enc_groups: int
    base_groups: int
    fs: int


@dataclass(frozen=True)
class Compression:
    """Result of :meth:`Compressor.compress` in unpacked form."""

    enc: int
    base: int
    enc_groups: tuple[int, ...]
    base_groups: tuple[int, ...]
    fs: bool


class Compressor:
    """Byte-wise comparison with leading-one broadcast (see module docstring)."""

    def __init__(self, params: GScalarParams):
        if not isinstance(params, GScalarParams):
            raise ConfigError(f"gscalar compressor: expected GScalarParams, not {type(params).__name__}")
        self._params = params

    @property
    def params(self) -> GScalarParams:
        return self._params

    def compress(self, values, active: int | None = None) -> Compression:
        """Compress one register write: *values* (``lanes`` ints), *active* mask (None = all)."""
        p = self._params
        vals = np.asarray(values)
        if vals.shape != (p.lanes,):
            raise SimtlabError(f"gscalar compressor: expected {p.lanes} lane values, got shape {vals.shape}")
        mask = p.full_mask if active is None else active
        if not isinstance(mask, int) or isinstance(mask, bool) or not 0 <= mask <= p.full_mask:
            raise SimtlabError(f"gscalar compressor: active mask {mask!r} does not fit in {p.lanes} bits")
        act = np.array([(mask >> i) & 1 for i in range(p.lanes)], dtype=bool)[None, :]
        enc, base = byte_enc(vals[None, :], act)
        genc, gbase = group_enc(vals[None, :], act, groups=p.groups)
        return Compression(int(enc[0]), int(base[0]),
                           tuple(int(x) for x in genc[0]), tuple(int(x) for x in gbase[0]),
                           int(enc[0]) == ENC_CODES[4])

    def step(self, ops: CompressorOps) -> CompressorOutputs:
        """One cycle: compress ``ops.values`` over ``ops.active``."""
        c = self.compress(unpack_lanes(ops.values, self._params.lanes), ops.active)
        return CompressorOutputs(enc=c.enc, base=c.base,
                                 enc_groups=pack_fields(c.enc_groups, 4),
                                 base_groups=pack_fields(c.base_groups, 32),
                                 fs=int(c.fs))


def compressor_ops(values, active: int) -> CompressorOps:
    """Build :class:`CompressorOps` from lane values and a mask."""
    return CompressorOps(values=pack_lanes(values), active=int(active))
