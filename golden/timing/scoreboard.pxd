# Cython declarations for scoreboard.py (compiled timing core, golden/native): extension types
# with typed fields; the .py stays the one source and runs unchanged as plain Python.
cdef class Scoreboard:
    cdef public dict pending
    cdef public set from_mem
    cdef object _asked
    cdef int _answer
    cpdef int blocked(self, d)
    cpdef reserve(self, regs, bint is_mem, object mask=*)
    cpdef release(self, regs)
    cpdef bint empty(self)
