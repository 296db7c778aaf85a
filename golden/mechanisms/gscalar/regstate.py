"""Per-warp model of the G-Scalar register-file metadata of a whole RF (seed 003 §3-§4).

:class:`RegisterEncodingTracker` stores, for every (warp, physical 32-bit register), what
the BVR/EBR/D/FS array of the paper would hold after the last write, plus the state the
two comparison designs would keep for the same register:

* ``nc``   – common MSB bytes of the last write (0..4; ``enc`` 0000..1111, §3.1). For a
  write by a divergent instruction it is computed over the active lanes only (§4.2).
* ``d``    – D bit: last written by a divergent instruction, stored uncompressed (§3.3).
* ``mask`` – the BVR content when ``d`` is set: the writer's active mask (§4.2).
* ``ncg``  – half-register compression: common bytes of each 16-lane half (encL, encH,
  §3.2 / §4.3); 0 when ``d`` is set.
* ``base`` – the BVR base (first active lane's value); used to tell whether two warps'
  scalars are equal when two 32-thread warps emulate one 64-thread warp.
* ``bdi``  – Warped-Compression BDI state: delta bytes of the stored encoding, or -1 when
  stored uncompressed.

A register never written holds ``nc = 0``, ``d = False``, ``bdi = -1``: uncompressed,
not scalar. All operations are vectorised over the warps of one executed instruction.
Columns (physical registers) are allocated on first use by :meth:`column`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.structures.gscalar.encoding import byte_enc, common_bytes, group_enc

#: lanes of a warp and of a half-register group
WARP_LANES = 32
HALF_LANES = 16


@dataclass
class WriteResult:
    """What one register write did, per written warp (all arrays shape ``(n,)``).

    prev_*: state before the write; nc / ncg / bdi: the state the write produced for a
    non-divergent write (for divergent rows ``nc`` is the active-lane comparison result
    stored with D = 1, ``ncg`` = 0 and ``bdi`` = -1).
    """

    prev_nc: np.ndarray
    prev_d: np.ndarray
    prev_ncg: np.ndarray
    prev_bdi: np.ndarray
    nc: np.ndarray
    ncg: np.ndarray
    bdi: np.ndarray


def bdi_delta_bytes(values: np.ndarray, active: np.ndarray, base: np.ndarray,
                    delta_sizes: tuple[int, ...]) -> np.ndarray:
    """Smallest BDI delta size (bytes) that encodes every active lane, or -1 (seed 003 §3.1).

    The base is the first active lane's value (as Warped-Compression uses lane 0); a
    lane's delta is ``value - base`` in 32-bit wrap-around arithmetic read as a signed
    number, and fits ``d`` bytes when it lies in ``[-2**(8d-1), 2**(8d-1))``; ``d = 0``
    means every delta is zero.
    """
    delta = (values - base[:, None]).view(np.int32).astype(np.int64)
    delta = np.where(active, delta, 0)
    lo, hi = delta.min(axis=1), delta.max(axis=1)
    out = np.full(values.shape[0], -1, dtype=np.int8)
    for d in sorted(delta_sizes, reverse=True):
        if d == 0:
            fits = (lo == 0) & (hi == 0)
        else:
            lim = 1 << (8 * d - 1)
            fits = (lo >= -lim) & (hi < lim)
        out[fits] = d
    return out


class RegisterEncodingTracker:
    """BVR/EBR/D/FS (and BDI) state of every physical register of every warp of a launch."""

    def __init__(self, nwarps: int, capacity: int = 32,
                 bdi_delta_sizes: tuple[int, ...] = (0, 1, 2)):
        self.nwarps = int(nwarps)
        self.bdi_delta_sizes = tuple(bdi_delta_sizes)
        self._cols: dict = {}
        self._alloc(max(1, capacity))

    def _alloc(self, cap: int) -> None:
        w = self.nwarps
        new = {
            "nc": np.zeros((w, cap), np.int8),
            "d": np.zeros((w, cap), bool),
            "mask": np.zeros((w, cap), np.uint32),
            "ncg": np.zeros((w, cap, 2), np.int8),
            "base": np.zeros((w, cap), np.uint32),
            "bdi": np.full((w, cap), -1, np.int8),
        }
        old = getattr(self, "_arrays", None)
        if old is not None:
            n = old["nc"].shape[1]
            for k, a in new.items():
                a[:, :n] = old[k]
        self._arrays = new
        self.capacity = cap
        for k, a in new.items():
            setattr(self, k, a)

    @property
    def columns(self) -> int:
        """Physical registers allocated so far."""
        return len(self._cols)

    def column(self, key) -> int:
        """Column of physical register ``key`` (e.g. ``("%rd4", 1)`` for its high word)."""
        c = self._cols.get(key)
        if c is None:
            c = len(self._cols)
            self._cols[key] = c
            if c >= self.capacity:
                self._alloc(2 * self.capacity)
        return c

    def write(self, warps: np.ndarray, col: int, values: np.ndarray, active: np.ndarray,
              nondiv: np.ndarray, mask: np.ndarray) -> WriteResult:
        """Record a write of ``values`` (uint32 ``(n, 32)``) by warps ``warps`` to ``col``.

        ``active``: lanes written; ``nondiv``: the writer was non-divergent (its active
        mask covers all the warp's threads); ``mask``: packed active mask (uint32).
        Non-divergent writes are compressed (enc over the active lanes, halves on their
        own, BDI); divergent writes set D = 1, store their active-lane ``enc`` and keep
        the writer's mask in the BVR (§3.3, §4.2).
        """
        enc, base = byte_enc(values, active)
        nc = common_bytes(enc).astype(np.int8)
        genc, _ = group_enc(values, active, groups=2)
        ncg = common_bytes(genc).astype(np.int8)
        ncg[~nondiv] = 0
        bdi = bdi_delta_bytes(values, active, base, self.bdi_delta_sizes)
        bdi[~nondiv] = -1
        res = WriteResult(prev_nc=self.nc[warps, col], prev_d=self.d[warps, col],
                          prev_ncg=self.ncg[warps, col], prev_bdi=self.bdi[warps, col],
                          nc=nc, ncg=ncg, bdi=bdi)
        self.nc[warps, col] = nc
        self.d[warps, col] = ~nondiv
        self.mask[warps, col] = np.where(nondiv, np.uint32(0), mask)
        self.ncg[warps, col] = ncg
        self.base[warps, col] = base
        self.bdi[warps, col] = bdi
        return res
