"""Per-SM constant cache: serves ``ld.const`` and ``ld.param``.

On NVIDIA GPUs kernel parameters live in a constant bank and ``__constant__`` data in
another; both are read through a small read-only constant cache per SM, not through the
L1 data cache (GPGPU-Sim models this as ``-gpgpu_const_cache:l1``). The cache stores
line tags only (set-associative, true LRU, allocate on miss).

A warp access costs one port cycle per distinct line its active lanes touch (lanes that
read the same address broadcast). Line ``i`` of an access starting at ``t0`` is looked
up at ``t0 + i``: a hit is ready ``hit_latency`` later; a miss reads the line's sectors
from the L2 and fills the line when they return (simplification: no MSHR merging, a
second miss to a line in flight reads it again).

``perfect`` (``idealisations.perfect_const_cache``, GPGPU-Sim's
``-gpgpu_perfect_inst_const_cache``) makes every lookup hit.

Parameters and ``__constant__`` data get disjoint synthetic address ranges
(:data:`CONST_BASE`, :data:`PARAM_BASE`) so that a miss never aliases global memory in
the L2.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from golden.configs.schema import ConstCacheConfig

#: Synthetic byte address of constant-space offset 0 as seen by the L2 (above every
#: global allocation and the timing model's local-memory window).
CONST_BASE = 1 << 46
#: Synthetic byte address of parameter-space offset 0.
PARAM_BASE = (1 << 46) + (1 << 40)


class ConstCache:
    """Tags, LRU state and port of one SM's constant cache."""

    def __init__(self, cfg: ConstCacheConfig, perfect: bool):
        self.line_bytes = cfg.line_bytes
        self.sets = cfg.sets
        self.assoc = cfg.assoc
        self.hit_latency = cfg.hit_latency
        self.perfect = perfect
        self._tags: list[OrderedDict] = [OrderedDict() for _ in range(self.sets)]
        self.port_free = 0
        self.hits = 0
        self.misses = 0

    def lines(self, addrs: np.ndarray, active, size: int) -> list[int]:
        """Distinct line addresses (ascending) touched by the active lanes' accesses of
        ``size`` bytes each."""
        mask = np.asarray(active)
        if mask.dtype != bool:
            bits = int(active)
            mask = np.array([(bits >> i) & 1 for i in range(addrs.shape[0])], dtype=bool)
        a = addrs[mask]
        if not a.size:
            return []
        lb = np.uint64(self.line_bytes)
        first = a // lb
        last = (a + np.uint64(max(size, 1) - 1)) // lb
        out = set(int(x) for x in first)
        out.update(int(x) for x in last)
        return sorted(x * self.line_bytes for x in out)

    def lookup(self, line: int) -> bool:
        """Access one line (True on a hit); a miss allocates it (LRU victim)."""
        if self.perfect:
            self.hits += 1
            return True
        ways = self._tags[(line // self.line_bytes) % self.sets]
        if line in ways:
            ways.move_to_end(line)
            self.hits += 1
            return True
        self.misses += 1
        if len(ways) >= self.assoc:
            ways.popitem(last=False)
        ways[line] = True
        return False
