# Cython declarations for coalescer.py (compiled timing core, golden/native): typed locals
# of the per-lane coalescing loop; the .py stays the one source and runs as plain Python.
cimport cython

@cython.locals(per_line="unsigned long long", one="unsigned long long", lane=int, a="unsigned long long",
               s="unsigned long long", last="unsigned long long", ln="unsigned long long",
               bit="unsigned long long", j=int)
cpdef list _lines(list addrs, list active, long long size, long long sector, long long line)
