// Simplest 1D kernel: c[i] = a[i] + b[i] with a bounds check (one divergent branch).
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
