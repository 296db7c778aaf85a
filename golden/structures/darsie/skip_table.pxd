# Cython declarations for skip_table.py (compiled with the timing core, golden/native): the
# skip table and its per-TB banks as extension types with typed fields; the .py stays the one
# source and runs unchanged as plain Python.
cdef class _Bank:
    cdef public object cam
    cdef public list mask
    cdef public list sync
    cdef public list is_load
    cdef public list leader_wb
    cdef public object majority
    cpdef bint valid(self, long i)

cdef class SkipTable:
    cdef public object _params
    cdef public bint _checked
    cdef public bint _fast
    cdef public list _banks
    cdef public object _recorder
    cpdef object _read(self, long en, long tb, object pc)
    cpdef tuple _write(self, _Bank bank, long op, long i, object pc, long warp, long is_load,
                       long sync, object majority)
    cpdef _drop_loads(self, _Bank bank)
