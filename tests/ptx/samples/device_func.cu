// A non-inlined device function with parameters and a return value; C++ mangled kernel;
// a struct parameter passed by value.
struct Params { float scale; int offset; double bias; };

__device__ __noinline__ int clamp_add(int a, int b, int lo, int hi)
{
    int s = a + b;
    if (s < lo) return lo;
    if (s > hi) return hi;
    return s;
}

__device__ __noinline__ float fscale(float x, Params p)
{
    return x * p.scale + (float)p.bias;
}

__global__ void apply(int *data, float *fdata, Params p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    data[i] = clamp_add(data[i], p.offset, -100, 100);
    fdata[i] = fscale(fdata[i], p);
}
