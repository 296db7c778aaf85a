"""Per-warp coalescing of lane addresses into sectored line transactions.

A warp's global/local memory instruction presents one byte address per lane. The
coalescer (GPGPU-Sim's "sectored" access generation, as on Fermi L2 and Pascal L1/L2)
groups the bytes the active lanes touch into the aligned ``sector_bytes`` sectors they
fall in, and groups those sectors by the aligned ``line_bytes`` line that holds them.
Each touched line becomes one :class:`Transaction`: the line's byte address plus a bit
mask of its touched sectors (bit ``i`` = sector ``i`` of the line) and a bit mask of the
lanes it serves.

Simplifications: an access of ``size`` bytes touches every sector overlapped by
``[addr, addr + size)`` (misaligned accesses are not faulted here -- the functional core
checks alignment); transactions are returned in ascending line order, which is the order
the L1 processes them (one per cycle).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from golden.errors import SimtlabError


class Transaction(NamedTuple):
    """One coalesced memory request: an aligned line and the sectors/lanes it covers
    (an immutable named tuple: one is built per line a warp access touches)."""

    line_addr: int      #: byte address of the aligned line
    sector_mask: int    #: bit i set = sector i of the line is touched
    lane_mask: int      #: bit l set = lane l has a byte in this line

    def sector_count(self) -> int:
        """Number of touched sectors."""
        return bin(self.sector_mask).count("1")


def active_lanes(active_mask, n_lanes: int) -> np.ndarray:
    """A boolean lane vector from an integer bit mask or an array of truth values."""
    if type(active_mask) is np.ndarray and active_mask.dtype == np.bool_ \
            and active_mask.shape == (n_lanes,):
        return active_mask  # the common case (a MemAccess's lanes)
    if isinstance(active_mask, (int, np.integer)):
        m = int(active_mask)
        return np.array([(m >> i) & 1 for i in range(n_lanes)], dtype=bool)
    arr = np.asarray(active_mask, dtype=bool)
    if arr.shape != (n_lanes,):
        raise SimtlabError(f"active mask has shape {arr.shape}, expected ({n_lanes},)")
    return arr


class Coalescer:
    """Turns one warp access into sectored line transactions.

    Parameters
    ----------
    sector_bytes, line_bytes:
        Powers of two, ``sector_bytes <= line_bytes`` and at most 64 sectors per line
        (:class:`golden.configs.schema.CoalescingConfig`).
    """

    def __init__(self, *, sector_bytes: int, line_bytes: int):
        for name, v in (("sector_bytes", sector_bytes), ("line_bytes", line_bytes)):
            if v <= 0 or v & (v - 1):
                raise SimtlabError(f"{name} must be a positive power of two, got {v}")
        if sector_bytes > line_bytes or line_bytes // sector_bytes > 64:
            raise SimtlabError(f"need sector_bytes <= line_bytes <= 64 sectors, got "
                               f"{sector_bytes}/{line_bytes}")
        self._sector = sector_bytes
        self._line = line_bytes

    @property
    def sector_bytes(self) -> int:
        return self._sector

    @property
    def line_bytes(self) -> int:
        return self._line

    def coalesce(self, lane_addrs, active_mask, size: int) -> list[Transaction]:
        """Transactions touched by the active lanes' ``size``-byte accesses, by line address."""
        if size <= 0:
            raise SimtlabError(f"access size must be positive, got {size}")
        addrs = np.asarray(lane_addrs, dtype=np.uint64)
        if addrs.ndim != 1:
            raise SimtlabError("lane_addrs must be a 1-D array (one address per lane)")
        act = active_lanes(active_mask, addrs.shape[0])
        if addrs.shape[0] <= 64 and self._line // self._sector <= 64:
            # lane and sector masks fit 64 bits: the typed per-lane loop (compiled core)
            return _lines(addrs.tolist(), act.tolist(), size, self._sector, self._line)
        lanes = np.nonzero(act)[0]
        if lanes.size == 0:
            return []
        a = addrs[lanes]
        sec = np.uint64(self._sector)
        first = a // sec
        last = (a + np.uint64(size - 1)) // sec
        span = int((last - first).max()) + 1
        # (lane, sector) pairs for every sector each lane overlaps.
        sec_list = [first]
        lane_list = [lanes]
        for k in range(1, span):
            s = first + np.uint64(k)
            ok = s <= last
            sec_list.append(s[ok])
            lane_list.append(lanes[ok])
        sectors = np.concatenate(sec_list)
        lane_of = np.concatenate(lane_list)
        per_line = self._line // self._sector
        line_idx = sectors // np.uint64(per_line)
        sec_in_line = (sectors % np.uint64(per_line)).astype(np.int64)
        sector_masks: dict[int, int] = {}
        lane_masks: dict[int, int] = {}
        for ln, si, lane in zip(line_idx.tolist(), sec_in_line.tolist(), lane_of.tolist()):
            sector_masks[ln] = sector_masks.get(ln, 0) | (1 << si)
            lane_masks[ln] = lane_masks.get(ln, 0) | (1 << lane)
        return [Transaction(ln * self._line, sector_masks[ln], lane_masks[ln])
                for ln in sorted(sector_masks)]


def _lines(addrs: list, active: list, size: int, sector: int, line: int) -> list:
    """:meth:`Coalescer.coalesce` for at most 64 lanes and 64 sectors per line, one lane at
    a time on plain ints (typed in ``coalescer.pxd``): the lines in ascending order, each
    with the OR of its touched sectors' and lanes' bits. A warp touches few lines, so a
    linear search over those found so far stands in for a dictionary."""
    per_line = line // sector
    one = 1  # (typed 64-bit: the masks' shifts must not be done in a C int)
    lines = []
    smask = []
    lmask = []
    for lane in range(len(addrs)):
        if not active[lane]:
            continue
        a = addrs[lane]
        s = a // sector
        last = (a + size - 1) // sector
        while s <= last:
            ln = s // per_line
            bit = one << (s - ln * per_line)
            j = 0
            while j < len(lines) and lines[j] != ln:
                j += 1
            if j == len(lines):
                lines.append(ln)
                smask.append(bit)
                lmask.append(one << lane)
            else:
                smask[j] = smask[j] | bit
                lmask[j] = lmask[j] | (one << lane)
            s += 1
    order = sorted(range(len(lines)), key=lines.__getitem__)
    return [Transaction(lines[j] * line, smask[j], lmask[j]) for j in order]
