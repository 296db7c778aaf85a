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
