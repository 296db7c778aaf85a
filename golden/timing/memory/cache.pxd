# Cython declarations for cache.py (compiled timing core, golden/native): extension types
# with typed fields; the .py stays the one source and runs unchanged as plain Python.
cdef class SectorCache:
    cdef public long _sets_n
    cdef public long _assoc
    cdef public long long _line
    cdef public long long _div
    cdef public long long _k
    cdef public list _sets
    cpdef long set_index(self, long long line_addr)
    cpdef object _set(self, long long line_addr)
    cpdef object probe(self, long long line_addr)
    cpdef long long lookup(self, long long line_addr, long long sector_mask)

cdef class MSHRTable:
    cdef public long _cap
    cdef public dict _entries
    cdef public list _heap
    cpdef object get(self, long long line_addr)
