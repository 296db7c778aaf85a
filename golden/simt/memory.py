"""Device memory: a flat, bounds-checked global address space with an allocator.

Layout of the 64-bit generic address space used by the golden model:

* ``GLOBAL_BASE`` and up: global memory. Every ``cudaMalloc``-style allocation and every
  module-scope ``.global``/``.const`` variable lives here; const-space addresses are
  global addresses (``cvta.const`` is the identity), so ``ld.const [%rd]`` works with a
  pointer obtained by ``mov.u64 %rd, table``.
* ``SHARED_WINDOW + offset``: generic view of the running thread block's shared memory
  (``cvta.shared`` adds, ``cvta.to.shared`` subtracts the window base).
* ``LOCAL_WINDOW + offset``: generic view of the running thread's local memory.

Accesses are checked lane by lane against the allocations; a miss raises
:class:`golden.errors.KernelFault` naming the nearest allocation.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

GLOBAL_BASE = 0x0000_0001_0000_0000
SHARED_WINDOW = 0x0000_7F00_0000_0000
LOCAL_WINDOW = 0x0000_7E00_0000_0000
WINDOW_SIZE = 0x0000_0001_0000_0000  # 4 GiB per window
ALLOC_ALIGN = 256


@dataclass(frozen=True)
class Allocation:
    """One live allocation ``[start, start + size)`` in global memory."""

    start: int
    size: int
    label: str

    @property
    def end(self) -> int:
        return self.start + self.size

    def describe(self) -> str:
        return f"{self.label} [0x{self.start:x}, 0x{self.end:x}) ({self.size} bytes)"


class GlobalMemory:
    """Global device memory backed by one growable ``uint8`` numpy buffer.

    Allocation is a bump allocator aligned to ``ALLOC_ALIGN`` (freed ranges are not
    reused, which keeps addresses deterministic within a device's lifetime).
    """

    def __init__(self, initial_capacity: int = 1 << 20):
        self._buf = np.zeros(initial_capacity, dtype=np.uint8)
        self._top = 0  # bytes used from GLOBAL_BASE
        self._allocs: list[Allocation] = []  # sorted by start
        self._starts: list[int] = []

    # ----------------------------------------------------------------- allocation
    def alloc(self, nbytes: int, label: str = "allocation", align: int = ALLOC_ALIGN) -> int:
        nbytes = int(nbytes)
        if nbytes < 0:
            raise ValueError(f"cannot allocate {nbytes} bytes")
        off = -(-self._top // align) * align
        end = off + max(nbytes, 1)
        if end > self._buf.size:
            cap = self._buf.size
            while cap < end:
                cap *= 2
            grown = np.zeros(cap, dtype=np.uint8)
            grown[: self._buf.size] = self._buf
            self._buf = grown
        self._top = end
        a = Allocation(GLOBAL_BASE + off, nbytes, label)
        self._allocs.append(a)
        self._starts.append(a.start)
        return a.start

    def free(self, ptr: int) -> None:
        i = bisect_right(self._starts, ptr) - 1
        if i < 0 or self._allocs[i].start != ptr:
            raise ValueError(f"free of 0x{ptr:x}: not the start of a live allocation")
        del self._allocs[i]
        del self._starts[i]

    @property
    def allocations(self) -> tuple[Allocation, ...]:
        return tuple(self._allocs)

    def nearest(self, addr: int) -> str:
        """Describe the allocation closest to ``addr`` (for fault messages)."""
        if not self._allocs:
            return "none (no allocations)"
        best = min(self._allocs, key=lambda a: 0 if a.start <= addr < a.end
                   else min(abs(addr - a.start), abs(addr - (a.end - 1))))
        if best.start <= addr < best.end:
            return best.describe()
        dist = best.start - addr if addr < best.start else addr - best.end
        where = "before" if addr < best.start else "past the end of"
        return f"{dist} bytes {where} {best.describe()}"

    # ----------------------------------------------------------------- host copies
    def write(self, addr: int, data: bytes | np.ndarray) -> None:
        raw = np.frombuffer(bytes(data), dtype=np.uint8) if not isinstance(data, np.ndarray) \
            else np.ascontiguousarray(data).view(np.uint8).ravel()
        self._check_range(addr, raw.size)
        off = addr - GLOBAL_BASE
        self._buf[off: off + raw.size] = raw

    def read(self, addr: int, nbytes: int) -> np.ndarray:
        self._check_range(addr, nbytes)
        off = addr - GLOBAL_BASE
        return self._buf[off: off + nbytes].copy()

    def _check_range(self, addr: int, nbytes: int) -> None:
        i = bisect_right(self._starts, addr) - 1
        if i < 0 or addr + nbytes > self._allocs[i].end:
            raise ValueError(f"host copy of {nbytes} bytes at 0x{addr:x} outside any allocation "
                             f"(nearest: {self.nearest(addr)})")

    # ----------------------------------------------------------------- lane accesses
    def contains(self, start: int, end: int) -> bool:
        """True if ``[start, end)`` lies inside one allocation."""
        i = bisect_right(self._starts, start) - 1
        return i >= 0 and end <= self._allocs[i].end

    def find_bad(self, addrs: np.ndarray, size: int) -> np.ndarray:
        """Boolean array: which lane addresses ``[a, a+size)`` fall outside every allocation."""
        if not self._allocs:
            return np.ones(addrs.shape, dtype=bool)
        starts = np.asarray(self._starts, dtype=np.uint64)
        ends = np.asarray([a.end for a in self._allocs], dtype=np.uint64)
        idx = np.searchsorted(starts, addrs, side="right").astype(np.int64) - 1
        ok = idx >= 0
        idxc = np.maximum(idx, 0)
        ok &= addrs + np.uint64(size) <= ends[idxc]
        return ~ok

    def view(self, dtype: np.dtype) -> np.ndarray:
        """The whole buffer viewed as ``dtype`` (valid only until the next alloc)."""
        n = self._buf.size // np.dtype(dtype).itemsize
        return self._buf[: n * np.dtype(dtype).itemsize].view(dtype)

    @property
    def buffer(self) -> np.ndarray:
        return self._buf
