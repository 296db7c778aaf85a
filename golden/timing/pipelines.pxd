# Cython declarations for pipelines.py (compiled timing core, golden/native): extension types
# with typed fields; the .py stays the one source and runs unchanged as plain Python.
cimport cython

@cython.locals(i=long, k=long, n=long, best=long, t=long)
cdef long _earliest(list fa) except -1

cdef class PipelineClass:
    cdef public list free_at
    cdef public long interval
    cdef public long latency
    @cython.locals(t=long, fa=list)
    cpdef bint available(self, long cycle, long unit=*)
    @cython.locals(fa=list)
    cpdef next_free(self)
    @cython.locals(fa=list, i=long, entry=long)
    cpdef long occupy(self, long ready, timing=*, long unit=*, long before=*)
    @cython.locals(fa=list, i=long, entry=long)
    cpdef long occupy_cycles(self, long ready, long interval, long latency, long unit=*, long before=*)
