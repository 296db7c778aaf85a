# Cython declarations for pipelines.py (compiled timing core, golden/native): extension types
# with typed fields; the .py stays the one source and runs unchanged as plain Python.
cdef class PipelineClass:
    cdef public list free_at
    cdef public long interval
    cdef public long latency
    cpdef bint available(self, long cycle, long unit=*)
    cpdef next_free(self)
    cpdef long occupy(self, long ready, timing=*, long unit=*, long before=*)
    cpdef long occupy_cycles(self, long ready, long interval, long latency, long unit=*, long before=*)
