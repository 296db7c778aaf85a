# Cython declarations for reservation.py (compiled timing core, golden/native): extension
# types with typed fields; the .py stays the one source and runs unchanged as plain Python.
cimport cython

cdef class Calendar:
    cdef public list _starts
    cdef public list _ends
    cdef public double busy
    @cython.locals(i=Py_ssize_t, n=Py_ssize_t, s=double)
    cpdef double earliest(self, double t, double duration)
    @cython.locals(start=double, s=double, e=double, i=Py_ssize_t)
    cpdef double reserve(self, double t, double duration)
