# Cython declarations for fetch.py (compiled timing core, golden/native): extension types
# with typed fields; the .py stays the one source and runs unchanged as plain Python.
cdef class IBuffer:
    cdef public object entries
    cdef public int capacity
    cdef public int size
    cdef public long head_pc
    cdef public long head_at
    cpdef bint has_space(self)
    cpdef push(self, long pc, long ready)
    cpdef pop(self)
    cpdef flush(self)
