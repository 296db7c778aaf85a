"""Reference model of a G-Scalar byte-reordered compressed register-file bank (seed 003 §3, §3.3).

What the bank stores (paper-facts §6.2, §6.3)
---------------------------------------------
* **Byte arrays.** Bytes are stored reordered: array ``(b, a)`` is a 128-bit wide SRAM
  array of ``registers`` rows holding byte ``b`` (0 = LSB) of the 16 lanes
  ``16 a .. 16 a + 15``. A 32-lane bank has 4 x 2 = 8 arrays, as in the paper. Each array
  has one write enable per byte (16 physical byte write-enables instead of 4), so
  partial (divergent) and compressed writes touch only the bytes they must.
* **Metadata per register** (the small BVR/EBR array): ``bvr`` (one 32-bit base per
  compression group), ``ebr`` (one 4-bit code per group), ``d`` (written by a divergent
  instruction) and ``fs`` (full scalar). 38 bits per register for ``groups = 1``.

Ports, one cycle (:meth:`CompressedBank.step`)
----------------------------------------------
Read (``rd_en``, ``rd_reg``): outputs the start-of-cycle contents. Array ``(b, a)`` is
activated when ``d`` is set or when some group with lanes in array ``a`` does not have
byte ``b`` covered by its base (bit ``b`` of its code clear); bytes of arrays that are
not activated come out as 0 on ``rd_data`` (they are not read and not sent over the
crossbar). ``rd_arrays`` has bit ``b * arrays_per_byte + a`` set for
every activated array; ``rd_meta`` says the BVR/EBR array was read (every read: the
encoding decides which arrays to activate, §5.1). ``rd_enc``/``rd_bvr``/``rd_d``/
``rd_fs`` are the metadata; a :class:`~golden.structures.gscalar.decompressor.Decompressor`
rebuilds the register from them. All read outputs are 0 without ``rd_en``.

Write (``wr_en``, ``wr_reg``, ``wr_data``, ``wr_mask``, ``wr_enc``/``wr_base``/``wr_fs``
from a :class:`~golden.structures.gscalar.compressor.Compressor`, ``wr_raw``), applied at
the end of the cycle. Three kinds:

1. *non-divergent* (``wr_mask`` all ones, ``wr_raw`` = 0): compressed. Byte ``b`` of a
   lane of group ``g`` is written only when bit ``b`` of ``enc_g`` is clear (bytes
   covered by the base are not stored). Metadata <- ``bvr = wr_base``, ``ebr = wr_enc``,
   ``d = 0``, ``fs = wr_fs``.
2. *divergent* (``wr_mask`` not all ones, ``wr_raw`` = 0): never compressed (§3.3 rule
   1). Every byte of every active lane is written. Metadata <- ``bvr = wr_mask`` (the
   writer's active mask), ``ebr = wr_enc`` (computed over active lanes), ``d = 1``,
   ``fs = wr_fs``.
3. *raw* (``wr_raw`` = 1): the write of the **special move** (§3.3 rule 3): every byte
   of the lanes in ``wr_mask`` is written and the register becomes uncompressed:
   ``bvr = 0``, ``ebr = 0000``, ``d = 0``, ``fs = 0``.

``wr_arrays`` marks the arrays with at least one byte write enable set. (The paper
counts all four byte positions as activated by a divergent write; an array none of
whose lanes is active needs no activation and is not counted here.) ``wr_meta`` says the
metadata array is written. ``wr_conflict`` flags a divergent, non-raw write to a
register that is compressed (``d = 0`` and some code not ``0000``): the special move
should have been inserted first; the write is still performed as described (so the
inactive lanes' covered bytes are lost), in the model exactly as in the RTL.

Reads see the contents at the start of the cycle, a same-cycle write included.

:meth:`CompressedBank.write_warp` and :meth:`CompressedBank.read_warp` are the
transaction-level API the mechanism uses: they run the compressor, insert the special
move when needed (a read, a decompression and a raw write, counted in
:attr:`CompressedBank.special_moves`) and decompress reads, each through :meth:`step`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from golden.errors import ConfigError, SimtlabError
from golden.structures.gscalar.compressor import Compressor
from golden.structures.gscalar.decompressor import Decompressor
from golden.structures.gscalar.encoding import LANES_PER_ARRAY
from golden.structures.gscalar.params import (
    GScalarParams, pack_fields, pack_lanes, unpack_fields, unpack_lanes,
)
from golden.structures.ports import OutputPorts

__all__ = ["BankOps", "BankOutputs", "RegisterMeta", "BankRead", "CompressedBank"]


@dataclass(frozen=True)
class BankOps:
    """Requests of one cycle (names are the RTL input ports; see module docstring)."""

    rd_en: int = 0
    rd_reg: int = 0
    wr_en: int = 0
    wr_reg: int = 0
    wr_data: int = 0
    wr_mask: int = 0
    wr_enc: int = 0
    wr_base: int = 0
    wr_fs: int = 0
    wr_raw: int = 0


@dataclass(frozen=True)
class BankOutputs(OutputPorts):
    """Every RTL output port of the bank in one cycle (see module docstring)."""

    rd_data: int
    rd_enc: int
    rd_bvr: int
    rd_d: int
    rd_fs: int
    rd_arrays: int
    rd_meta: int
    wr_arrays: int
    wr_meta: int
    wr_conflict: int


class RegisterMeta(NamedTuple):
    """Unpacked metadata of one register: ``bvr``/``ebr`` per group, ``d``, ``fs``."""

    bvr: tuple[int, ...]
    ebr: tuple[int, ...]
    d: bool
    fs: bool


class BankRead(NamedTuple):
    """Result of :meth:`CompressedBank.read_warp`: rebuilt lanes and the cycle's outputs."""

    values: np.ndarray
    ops: BankOps
    outputs: BankOutputs

    @property
    def arrays_activated(self) -> int:
        return bin(self.outputs.rd_arrays).count("1")


class CompressedBank:
    """Byte-reordered compressed register-file bank with BVR/EBR/D/FS (module docstring)."""

    def __init__(self, params: GScalarParams):
        if not isinstance(params, GScalarParams):
            raise ConfigError(f"gscalar bank: expected GScalarParams, not {type(params).__name__}")
        p = params
        self._params = p
        self._data = np.zeros((p.registers, 4, p.lanes), dtype=np.uint8)
        self._bvr = [0] * p.registers
        self._ebr = [0] * p.registers
        self._d = [0] * p.registers
        self._fs = [0] * p.registers
        self._compressor = Compressor(p)
        self._decompressor = Decompressor(p)
        #: Special moves inserted by :meth:`write_warp` (extra instructions, §3.3).
        self.special_moves = 0
        # _owners[a]: the compression groups with lanes in array a (of each byte position).
        self._owners = [sorted({p.group_of_lane(l) for l in self._array_lanes(a)})
                        for a in range(p.arrays_per_byte)]

    # ------------------------------------------------------------------ inspection
    @property
    def params(self) -> GScalarParams:
        return self._params

    def meta(self, reg: int) -> RegisterMeta:
        """Metadata of register *reg*."""
        self._check_reg(reg, "meta")
        g = self._params.groups
        return RegisterMeta(tuple(unpack_fields(self._bvr[reg], 32, g)),
                            tuple(unpack_fields(self._ebr[reg], 4, g)),
                            bool(self._d[reg]), bool(self._fs[reg]))

    def stored(self, reg: int) -> np.ndarray:
        """Raw array contents of *reg* as lane values (covered bytes hold stale data)."""
        self._check_reg(reg, "stored")
        return self._lanes_of(self._data[reg])

    # ------------------------------------------------------------------ one cycle
    def step(self, ops: BankOps) -> BankOutputs:
        """Apply one cycle: read on the start-of-cycle contents, then the write."""
        rd = self._read(ops) if ops.rd_en else (0, 0, 0, 0, 0, 0, 0)
        wr_arrays = wr_conflict = 0
        if ops.wr_en:
            wr_arrays, wr_conflict = self._write(ops)
        rd_data, rd_enc, rd_bvr, rd_d, rd_fs, rd_arrays, rd_meta = rd
        return BankOutputs(rd_data=rd_data, rd_enc=rd_enc, rd_bvr=rd_bvr, rd_d=rd_d, rd_fs=rd_fs,
                           rd_arrays=rd_arrays, rd_meta=rd_meta, wr_arrays=wr_arrays,
                           wr_meta=int(bool(ops.wr_en)), wr_conflict=wr_conflict)

    def read_enables(self, reg: int) -> np.ndarray:
        """Bool ``(4, arrays_per_byte)``: arrays a read of *reg* activates now."""
        self._check_reg(reg, "read_enables")
        p = self._params
        encs = unpack_fields(self._ebr[reg], 4, p.groups)
        act = np.zeros((4, p.arrays_per_byte), dtype=bool)
        for b in range(4):
            for a, owners in enumerate(self._owners):
                act[b, a] = bool(self._d[reg]) or any(not (encs[g] >> b) & 1 for g in owners)
        return act

    def _read(self, ops: BankOps):
        p = self._params
        reg = ops.rd_reg
        self._check_reg(reg, "rd_reg")
        act = self.read_enables(reg)
        data = np.zeros((4, p.lanes), dtype=np.uint8)
        arrays = 0
        for b in range(4):
            for a in range(p.arrays_per_byte):
                if act[b, a]:
                    lanes = self._array_lanes(a)
                    data[b, lanes] = self._data[reg, b, lanes]
                    arrays |= 1 << (b * p.arrays_per_byte + a)
        return (pack_lanes(self._lanes_of(data)), self._ebr[reg], self._bvr[reg],
                self._d[reg], self._fs[reg], arrays, 1)

    def _write(self, ops: BankOps) -> tuple[int, int]:
        p = self._params
        reg = ops.wr_reg
        self._check_reg(reg, "wr_reg")
        for name, value, width in (("wr_mask", ops.wr_mask, p.lanes),
                                   ("wr_enc", ops.wr_enc, 4 * p.groups),
                                   ("wr_base", ops.wr_base, 32 * p.groups)):
            if not 0 <= int(value) < (1 << width):
                raise SimtlabError(f"gscalar bank: {name} {value!r} does not fit in {width} bits")
        mask = [(int(ops.wr_mask) >> l) & 1 for l in range(p.lanes)]
        divergent = int(ops.wr_mask) != p.full_mask
        encs = unpack_fields(int(ops.wr_enc), 4, p.groups)
        we = np.zeros((4, p.lanes), dtype=bool)
        for b in range(4):
            for l in range(p.lanes):
                if ops.wr_raw or divergent:
                    we[b, l] = bool(mask[l])
                else:
                    we[b, l] = not (encs[p.group_of_lane(l)] >> b) & 1
        conflict = int(bool(not ops.wr_raw and divergent and not self._d[reg] and self._ebr[reg] != 0))
        arrays = 0
        for b in range(4):
            for a in range(p.arrays_per_byte):
                if we[b, self._array_lanes(a)].any():
                    arrays |= 1 << (b * p.arrays_per_byte + a)
        new = self._bytes_of(unpack_lanes(int(ops.wr_data), p.lanes))
        self._data[reg][we] = new[we]
        if ops.wr_raw:
            self._bvr[reg], self._ebr[reg], self._d[reg], self._fs[reg] = 0, 0, 0, 0
        elif divergent:
            self._bvr[reg], self._ebr[reg] = int(ops.wr_mask), int(ops.wr_enc)
            self._d[reg], self._fs[reg] = 1, int(bool(ops.wr_fs))
        else:
            self._bvr[reg], self._ebr[reg] = int(ops.wr_base), int(ops.wr_enc)
            self._d[reg], self._fs[reg] = 0, int(bool(ops.wr_fs))
        return arrays, conflict

    # ------------------------------------------------------------------ transactions
    def needs_special_move(self, reg: int, mask: int) -> bool:
        """A divergent write with *mask* to *reg* must be preceded by the special move."""
        self._check_reg(reg, "needs_special_move")
        return mask != self._params.full_mask and not self._d[reg] and self._ebr[reg] != 0

    def write_warp(self, reg: int, values, mask: int | None = None) -> list[tuple[BankOps, BankOutputs]]:
        """Write a warp's result (compress, special move if needed); return the cycles run."""
        p = self._params
        mask = p.full_mask if mask is None else int(mask)
        vals = np.asarray(values).astype(np.uint32)
        cycles: list[tuple[BankOps, BankOutputs]] = []
        if self.needs_special_move(reg, mask):
            old = self.read_warp(reg)
            cycles.append((old.ops, old.outputs))
            move = BankOps(wr_en=1, wr_reg=reg, wr_data=pack_lanes(old.values),
                           wr_mask=p.full_mask, wr_raw=1)
            cycles.append((move, self.step(move)))
            self.special_moves += 1
        c = self._compressor.compress(vals, mask)
        ops = BankOps(wr_en=1, wr_reg=reg, wr_data=pack_lanes(vals), wr_mask=mask,
                      wr_enc=pack_fields(c.enc_groups, 4), wr_base=pack_fields(c.base_groups, 32),
                      wr_fs=int(c.fs))
        cycles.append((ops, self.step(ops)))
        return cycles

    def read_warp(self, reg: int) -> BankRead:
        """Read and decompress register *reg* in one cycle."""
        p = self._params
        ops = BankOps(rd_en=1, rd_reg=reg)
        out = self.step(ops)
        values = self._decompressor.decompress(
            unpack_lanes(out.rd_data, p.lanes), unpack_fields(out.rd_enc, 4, p.groups),
            unpack_fields(out.rd_bvr, 32, p.groups), bool(out.rd_d))
        return BankRead(values, ops, out)

    # ------------------------------------------------------------------ helpers
    def _array_lanes(self, a: int) -> list[int]:
        return list(range(a * LANES_PER_ARRAY, min(self._params.lanes, (a + 1) * LANES_PER_ARRAY)))

    @staticmethod
    def _bytes_of(values: np.ndarray) -> np.ndarray:
        v = values.astype(np.uint32)
        return np.stack([((v >> (8 * b)) & 0xFF).astype(np.uint8) for b in range(4)])

    @staticmethod
    def _lanes_of(data: np.ndarray) -> np.ndarray:
        d = data.astype(np.uint32)
        return (d[0] | (d[1] << 8) | (d[2] << 16) | (d[3] << 24)).astype(np.uint32)

    def _check_reg(self, reg, what: str) -> None:
        if not isinstance(reg, (int, np.integer)) or isinstance(reg, bool) \
                or not 0 <= int(reg) < self._params.registers:
            raise SimtlabError(f"gscalar bank.{what}: register {reg!r} out of range "
                               f"0..{self._params.registers - 1}")
