# Cython declarations for skip_table_fast.py (compiled with the timing core, golden/native):
# the typed twin of the skip table and its banks as extension types. Masks and PCs stay
# Python ints (a C long overflows at bit 31 with 32-bit types, and PCs are 48 bits); entry
# indices are typed as Py_ssize_t.
cimport cython

cdef class _FastBank:
    cdef readonly object cam
    cdef readonly list mask
    cdef readonly list sync
    cdef readonly list is_load
    cdef readonly list leader_wb
    cdef public object majority
    cdef readonly Py_ssize_t entries
    cdef readonly object all_valid
    cpdef bint live(self, Py_ssize_t i)

cdef class SkipTableFast:
    cdef object _params
    cdef bint _sync_bit
    cdef object _all_warps
    cdef list _banks
    cpdef _FastBank bank(self, Py_ssize_t tb)
    @cython.locals(bank=_FastBank)
    cpdef probe(self, Py_ssize_t tb, pc)
    @cython.locals(bank=_FastBank, mask=object, majority=object, done=bint)
    cpdef arrive(self, Py_ssize_t tb, Py_ssize_t index, warp)
    @cython.locals(bank=_FastBank)
    cpdef leader_wb(self, Py_ssize_t tb, Py_ssize_t index)
    @cython.locals(bank=_FastBank)
    cpdef invalidate(self, Py_ssize_t tb, Py_ssize_t index)
    @cython.locals(bank=_FastBank)
    cpdef flush_tb(self, Py_ssize_t tb)
    cpdef store(self, Py_ssize_t tb)
    @cython.locals(bank=_FastBank)
    cpdef global_atomic(self)
    cpdef set_majority(self, Py_ssize_t tb, mask)
    @cython.locals(i=Py_ssize_t, valid=object)
    cpdef _drop_loads(self, _FastBank bank)
