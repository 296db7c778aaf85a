# Cython declarations for rename_table.py (compiled with the timing core, golden/native): the
# rename table as an extension type with typed fields; the .py stays the one source and runs
# unchanged as plain Python.
cdef class RenameTable:
    cdef public object _params
    cdef public bint _checked
    cdef public list _tag
    cdef public list _rmask
    cdef public list _version
    cdef public object _valid
    cdef public dict _where
    cdef public object _recorder
    # arguments stay Python ints: masks are built with ``1 << warp`` / ``1 << entry``, which
    # C integer types would overflow at bit 31 (and entries reach 256)
    cpdef tuple _cycle(self, object rd_warp, object rd_reg, object wr_op, object wr_warp,
                       object wr_reg, object wr_version, object clr_en, object clr_warp,
                       object flush)
    cpdef _unrename(self, object e, object mask)
