"""Cycle-level memory-side models the SM timing model calls.

One job per module: :mod:`.coalescer` (lane addresses -> sectored line transactions),
:mod:`.shared_banks` (shared-memory bank conflicts), :mod:`.cache` (sectored LRU tags and
MSHRs), :mod:`.l1` (per-SM L1 policy and port), :mod:`.l2` (shared, sliced L2),
:mod:`.dram` (bandwidth-limited channels) and :mod:`.hierarchy` (the facade).
"""

from golden.timing.memory.cache import MSHRTable, SectorCache
from golden.timing.memory.coalescer import Coalescer, Transaction
from golden.timing.memory.dram import DRAM, BandwidthQueue
from golden.timing.memory.hierarchy import COUNTER_NAMES, AccessResult, MemoryHierarchy
from golden.timing.memory.l1 import L1Cache
from golden.timing.memory.l2 import L2Cache
from golden.timing.memory.shared_banks import SharedBanks

__all__ = [
    "AccessResult", "BandwidthQueue", "COUNTER_NAMES", "Coalescer", "DRAM", "L1Cache",
    "L2Cache", "MSHRTable", "MemoryHierarchy", "SectorCache", "SharedBanks", "Transaction",
]
