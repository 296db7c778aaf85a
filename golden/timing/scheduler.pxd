# Cython declarations for scheduler.py (compiled timing core, golden/native): extension types
# with typed fields; the .py stays the one source and runs unchanged as plain Python.
cdef class IssueScheduler:
    cdef public int index
    cdef public str policy
    cdef public int active_size
    cdef public list warps
    cdef public list active
    cdef public list pending
    cdef public object last
    cdef public int last_reason
    cdef public long stall_pc
    cdef public bint dirty
    cdef public long wake
    cdef public long head_ready
    cdef public object _order
    cdef public object _resume
    cdef public object _gone
    cpdef list order(self)
    cpdef issued(self, warp)
    cpdef long_stall(self, warp)
