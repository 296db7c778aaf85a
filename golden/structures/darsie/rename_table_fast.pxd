# Cython declarations for rename_table_fast.py (compiled with the timing core, golden/native):
# the typed twin of one TB's rename table as an extension type. Warp and entry numbers and
# masks stay Python ints: ``1 << warp`` and ``1 << entry`` would overflow a C integer (the
# bit-31 trap; entries reach 256).
cimport cython

cdef class RenameTableFast:
    cdef object _params
    cdef object _warps
    cdef bint _per_warp
    cdef object _all_entries
    cdef list _tag
    cdef list _rmask
    cdef list _version
    cdef object _valid
    cdef dict _where
    cpdef lookup(self, warp, reg)
    cpdef set(self, warp, reg, version)
    cpdef drop(self, warp, reg)
    cpdef clear_warp(self, warp)
    @cython.locals(e=Py_ssize_t)
    cpdef flush(self)
    @cython.locals(vers=list, shared=bint)
    cpdef _previous(self, e, warp)
    cpdef _keep(self, e, mask)
