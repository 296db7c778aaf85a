// Double-precision sin(): nvcc inlines the libdevice fast path and calls the
// out-of-line Payne-Hanek slow path, whose inline-asm blocks re-declare registers
// (%r0..%r3) in nested { } scopes, shadowing the function's own %r registers.
extern "C" __global__ void dsin(const double *x, double *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = sin(x[i]);
}
