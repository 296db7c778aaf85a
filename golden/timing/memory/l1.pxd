# Cython declarations for l1.py (compiled timing core, golden/native): extension types
# with typed fields; the .py stays the one source and runs unchanged as plain Python.
from golden.timing.memory.cache cimport SectorCache, MSHRTable

cdef class L1Cache:
    cdef public SectorCache tags
    cdef public MSHRTable mshrs
    cdef public object hit_latency
    cdef public object port_free
    cdef public long long _line
    cdef public long long _full
    cdef public long _group
    cdef public long group_requests
    cdef public long group_extra_lines
    cdef public long mshr_max_merge
    cdef public bint group_wait_all
    cdef public bint fetch_line
    cdef public long port_cycles
    cdef public long miss_latency
    cdef public long long miss_wait
    cdef public long reserved_hits
    cdef public long long reserved_wait
    cdef public long merge_fails
    cdef public long group_extra_sectors
    cdef public long group_hit_waits
    cdef public long long group_hit_wait_cycles
    cdef public long prefetch_pending_uses
    cdef public long prefetch_filled_uses
    cdef public long prefetch_evicted_unused
    cdef public set _prefetched
