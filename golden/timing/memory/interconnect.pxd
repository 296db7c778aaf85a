# Cython declarations for interconnect.py (compiled timing core, golden/native): extension
# types with typed fields; the .py stays the one source and runs unchanged as plain Python.
cimport cython
from golden.timing.memory.reservation cimport Calendar

cdef class Interconnect:
    cdef public long latency
    cdef public long flit_bytes
    cdef public long header_bytes
    cdef public double _r_sm
    cdef public double _r_l2
    cdef public list req_inject
    cdef public list req_eject
    cdef public list rep_inject
    cdef public list rep_eject
    cdef public long long request_flits
    cdef public long long reply_flits
    cdef public long long packets
    cpdef long flits_of(self, long payload_bytes)
    @cython.locals(d_src=double, s1=double, d_dst=double, s2=double)
    cpdef double _send(self, Calendar src, Calendar dst, double t, long k, double r_src,
                       double r_dst)
    @cython.locals(k=long)
    cpdef double request(self, long sm, long sl, double t, long payload_bytes)
    @cython.locals(k=long)
    cpdef double reply(self, long sl, long sm, double t, long payload_bytes)

cdef class SMMemoryPort:
    cdef public long sm
    cdef public Interconnect icnt
    cdef public object l2
    cdef public long _sector
