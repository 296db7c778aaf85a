# Cython declarations for operand_collector.py (compiled timing core, golden/native).
cimport cython

cdef class OperandCollector:
    cdef public int banks
    cdef public int ports
    cdef public int units
    cdef public int read_delay
    cdef public bint skew
    cdef public bint subcore
    cdef public int scheds
    cdef public int per_sched
    cdef public list _busy
    cdef public list _release
    cpdef int bank(self, int warp, int reg)
    @cython.locals(rel=list)
    cpdef bint free_unit(self, long now)
    cpdef next_release(self)
    @cython.locals(first=long, done=long, t=long, b=int, busy=dict)
    cpdef long read(self, long now, int warp, regs, stats)
    cpdef _trim(self, long now)
