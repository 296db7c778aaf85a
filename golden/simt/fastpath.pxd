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

from libc.math cimport fmaf

cdef unsigned long long SIGN64
cdef int ADD, SUB, MUL_LO, MAD_LO, MUL_WIDE_S, MUL_WIDE_U, MIN_S, MAX_S, MIN_U, MAX_U
cdef int SHL, SHR_U, SHR_S, AND, OR, XOR, NOT, NOT_PRED, MOV, SELP, CVT_SX, CVT_ZX
cdef int SETP_EQ, SETP_NE, SETP_LT_S, SETP_LE_S, SETP_GT_S, SETP_GE_S
cdef int SETP_LT_U, SETP_LE_U, SETP_GT_U, SETP_GE_U
cdef int FADD, FSUB, FMUL, FFMA

@cython.locals(o="Py_ssize_t", v="unsigned long long", b=int)
cdef unsigned long long _rd(const unsigned char[::1] buf, Py_ssize_t i, int width)

@cython.locals(o="Py_ssize_t", b=int)
cdef void _wr(unsigned char[::1] buf, Py_ssize_t i, int width, unsigned long long v)

cdef unsigned long long _sx(unsigned long long v, int bits)

@cython.locals(lane=int, i="Py_ssize_t", x="unsigned long long", y="unsigned long long",
               r="unsigned long long", xs="unsigned long long", ys="unsigned long long",
               n="unsigned long long")
cpdef void int_op(int code, int bits, const unsigned char[::1] a, int wa, unsigned long long ia,
                  const unsigned char[::1] b, int wb, unsigned long long ib,
                  const unsigned char[::1] c, int wc, unsigned long long ic,
                  unsigned char[::1] d, int wd, Py_ssize_t lane0, unsigned int active)

@cython.locals(lane=int, i="Py_ssize_t", x=float, y=float, z=float, r=float, tmp="float[32]")
cpdef bint f32_op(int code, const float[::1] a, float ia, const float[::1] b, float ib,
                  const float[::1] c, float ic, float[::1] d, Py_ssize_t lane0,
                  unsigned int active)

cpdef object u8_view(unsigned char[::1] m)
cpdef object f32_view(float[::1] m)
cdef object _view(dict views, dict regs, object key, object dtype)

cpdef bint alu(tuple nat, dict regs, dict rb, dict fv, Py_ssize_t lane0, unsigned int active)

cdef bint _alu_int(int code, int bits, const unsigned char[::1] a, int wa, unsigned long long ia,
                   const unsigned char[::1] b, int wb, unsigned long long ib,
                   const unsigned char[::1] c, int wc, unsigned long long ic,
                   unsigned char[::1] d, int wd, Py_ssize_t lane0, unsigned int active)

@cython.locals(lane=int, dst="Py_ssize_t", o="Py_ssize_t", b=int)
cpdef void scatter(unsigned char[::1] mem, const unsigned long long[::1] addrs,
                   unsigned long long sub, Py_ssize_t base_off, Py_ssize_t size, Py_ssize_t k,
                   unsigned int active, const unsigned char[::1] src, unsigned long long imm,
                   Py_ssize_t lane0)
