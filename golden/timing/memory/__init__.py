"""Cycle-level memory-side models the SM timing model calls.

One job per module: :mod:`.coalescer` (lane addresses -> sectored line transactions),
:mod:`.shared_banks` (shared-memory bank conflicts), :mod:`.cache` (sectored LRU tags and
MSHRs), :mod:`.l1` (per-SM L1 policy and port), :mod:`.interconnect` (SM <-> L2 request
and reply networks), :mod:`.l2` (shared, sliced L2 with bounded MSHRs), :mod:`.dram`
(channels of banks with row buffers, bounded FR-FCFS-style queues) with
:mod:`.dram_bank` (device timing, one bank's row buffer), :mod:`.reservation` (the
busy-interval calendar of a bus or port), :mod:`.l1_trace` (L1 access observers and a
recorder) and :mod:`.hierarchy` (the facade).
"""

from golden.timing.memory.cache import MSHRTable, SectorCache
from golden.timing.memory.coalescer import Coalescer, Transaction
from golden.timing.memory.dram import DRAM, BandwidthQueue, DRAMChannel
from golden.timing.memory.dram_bank import Bank, DRAMTiming
from golden.timing.memory.hierarchy import COUNTER_NAMES, AccessResult, MemoryHierarchy
from golden.timing.memory.interconnect import Interconnect, SMMemoryPort
from golden.timing.memory.l1 import L1Cache
from golden.timing.memory.l1_trace import L1AccessRecorder
from golden.timing.memory.l2 import L2Cache
from golden.timing.memory.reservation import Calendar
from golden.timing.memory.shared_banks import SharedBanks

__all__ = [
    "AccessResult", "BandwidthQueue", "Bank", "COUNTER_NAMES", "Calendar", "Coalescer", "DRAM",
    "DRAMChannel", "DRAMTiming", "Interconnect", "L1AccessRecorder", "L1Cache", "L2Cache", "MSHRTable",
    "MemoryHierarchy", "SMMemoryPort", "SectorCache", "SharedBanks", "Transaction",
]
