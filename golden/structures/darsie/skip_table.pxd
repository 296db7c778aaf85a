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
    cpdef bint valid(self, object i)

cdef class SkipTable:
    cdef public object _params
    cdef public bint _checked
    cdef public bint _fast
    cdef public list _banks
    cdef public object _recorder
    # arguments stay Python ints: masks are built with ``1 << warp``, which a C integer type
    # would overflow at bit 31
    cpdef object _read(self, object en, object tb, object pc)
    cpdef tuple _write(self, _Bank bank, object op, object i, object pc, object warp,
                       object is_load, object sync, object majority)
    cpdef _drop_loads(self, _Bank bank)
