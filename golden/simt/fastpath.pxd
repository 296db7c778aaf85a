# Cython declarations for fastpath.py (compiled timing core, golden/native): typed byte
# views and loop variables; the .py stays the one source and runs unchanged as plain Python.
cimport cython

cdef unsigned long long MASK64, HIGH32

@cython.locals(o="Py_ssize_t", v="unsigned long long", b=int)
cdef unsigned long long _lane_value(const unsigned char[::1] base, Py_ssize_t i, int width,
                                    bint signed)

@cython.locals(acc_or="unsigned long long", lo="unsigned long long", hi="unsigned long long",
               a="unsigned long long", lane=int)
cpdef tuple load_addresses(const unsigned char[::1] base, int width, bint signed, Py_ssize_t lane0,
                           unsigned long long offset, unsigned int active,
                           unsigned long long[::1] out)

@cython.locals(lane=int, src="Py_ssize_t", o="Py_ssize_t", b=int)
cpdef void gather(const unsigned char[::1] mem, const unsigned long long[::1] addrs,
                  unsigned long long sub, Py_ssize_t base_off, Py_ssize_t size, Py_ssize_t k,
                  unsigned int active, unsigned char[::1] dst, Py_ssize_t lane0)
