"""Parameters shared by the G-Scalar structures, and lane packing for RTL-shaped ports.

Ports that carry a whole register (``lanes`` x 32 bits) are plain integers in the
transaction dataclasses, with lane ``i`` in bits ``[32 i, 32 i + 32)``, exactly as the
Amaranth components lay out their ``lanes * 32``-bit ports. Group fields (``enc`` of
``groups`` 4-bit codes, ``base`` of ``groups`` 32-bit values) are packed the same way,
group 0 in the low bits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.errors import ConfigError, SimtlabError
from golden.structures.gscalar.encoding import LANES_PER_ARRAY

__all__ = ["GScalarParams", "pack_lanes", "unpack_lanes", "pack_fields", "unpack_fields"]


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class GScalarParams:
    """Size of a G-Scalar register-file bank and of its compressor/decompressor.

    Attributes
    ----------
    lanes : int
        Lanes (threads) per vector register: 32 in the paper, 16 for a half-width
        variant. 1..32 (a divergent write stores the active mask in the 32-bit BVR).
    registers : int
        Vector registers per bank (64 in the paper, §2.1).
    groups : int
        1 = whole-register compression; 2 = half-register compression (§3.2: ``encL``,
        ``encH``, one BVR/EBR per half). Must divide ``lanes``.
    """

    lanes: int = 32
    registers: int = 64
    groups: int = 1

    def __post_init__(self) -> None:
        if not _is_int(self.lanes) or not 1 <= self.lanes <= 32:
            raise ConfigError(f"gscalar.lanes: must be an integer in 1..32, not {self.lanes!r}")
        if not _is_int(self.registers) or self.registers < 1:
            raise ConfigError(f"gscalar.registers: must be a positive integer, not {self.registers!r}")
        if not _is_int(self.groups) or self.groups not in (1, 2) or self.lanes % self.groups:
            raise ConfigError(f"gscalar.groups: must be 1 or 2 and divide lanes={self.lanes}, "
                              f"not {self.groups!r}")

    @property
    def group_lanes(self) -> int:
        """Lanes per compression group."""
        return self.lanes // self.groups

    @property
    def arrays_per_byte(self) -> int:
        """128-bit arrays holding one byte position of every lane (2 for 32 lanes)."""
        return -(-self.lanes // LANES_PER_ARRAY)

    @property
    def arrays(self) -> int:
        """Byte arrays of the bank (8 for 32 lanes, as in the paper)."""
        return 4 * self.arrays_per_byte

    @property
    def full_mask(self) -> int:
        return (1 << self.lanes) - 1

    def array_of_lane(self, lane: int) -> int:
        """Index (within a byte position) of the array holding ``lane``."""
        return lane // LANES_PER_ARRAY

    def group_of_lane(self, lane: int) -> int:
        return lane // self.group_lanes


def pack_fields(values, width: int) -> int:
    """Pack a sequence of unsigned fields of *width* bits, element 0 in the low bits."""
    out = 0
    for i, v in enumerate(values):
        v = int(v)
        if not 0 <= v < (1 << width):
            raise SimtlabError(f"gscalar: field {i} = {v!r} does not fit in {width} bits")
        out |= v << (width * i)
    return out


def unpack_fields(packed: int, width: int, count: int) -> list[int]:
    """Inverse of :func:`pack_fields`."""
    if not _is_int(packed) or not 0 <= packed < (1 << (width * count)):
        raise SimtlabError(f"gscalar: {packed!r} does not fit in {count} x {width} bits")
    mask = (1 << width) - 1
    return [(packed >> (width * i)) & mask for i in range(count)]


def pack_lanes(values) -> int:
    """Pack 32-bit lane values (lane 0 in the low bits) into one integer."""
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise SimtlabError("gscalar.pack_lanes: expected a 1-D integer array of lane values")
    return int.from_bytes(arr.astype("<u4").tobytes(), "little")


def unpack_lanes(packed: int, lanes: int) -> np.ndarray:
    """Unpack ``lanes`` 32-bit values from one integer (inverse of :func:`pack_lanes`)."""
    if not _is_int(packed) or not 0 <= packed < (1 << (32 * lanes)):
        raise SimtlabError(f"gscalar.unpack_lanes: value does not fit in {lanes} x 32 bits")
    return np.frombuffer(packed.to_bytes(4 * lanes, "little"), dtype="<u4").astype(np.uint32)
