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
    cpdef tuple _cycle(self, long rd_warp, long rd_reg, long wr_op, long wr_warp, long wr_reg,
                       long wr_version, long clr_en, long clr_warp, long flush)
    cpdef _unrename(self, long e, object mask)
