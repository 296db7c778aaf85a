// Robustness battery, extras: partial warps, shuffle widths, 64-bit shuffles, shared float atomics,
// constant memory tables, unsigned loops counting down, signed shifts.
__constant__ float c_weights[8] = {0.5f, -1.0f, 2.0f, 0.25f, 3.0f, -0.75f, 1.5f, 4.0f};
__device__ int g_counter;

extern "C" __global__ void partial_warps(const double* v, double* o, float* fs, int n)
{
    __shared__ float sacc[4];
    __shared__ double dacc;
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    if (t < 4) sacc[t] = 0.0f;
    if (t == 0) dacc = 0.0;
    __syncthreads();
    double x = i < n ? v[i] : 0.0;
    double s = x;
    for (int m = 8; m > 0; m >>= 1) s += __shfl_xor_sync(0xffffffffu, s, m, 16);   // per-16-lane groups
    double r = __shfl_down_sync(0xffffffffu, x, 1, 8);
    atomicAdd(&sacc[t & 3], (float)(t & 7));
    atomicAdd(&dacc, 1.0);
    atomicAdd(&g_counter, 1);
    __syncthreads();
    if (i < n) {
        o[3 * i] = s;
        o[3 * i + 1] = r;
        o[3 * i + 2] = dacc + c_weights[t & 7];
    }
    if (t < 4) fs[blockIdx.x * 4 + t] = sacc[t];
}

extern "C" __global__ void countdown(const int* v, unsigned* out, int* sh, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned acc = 0;
    for (unsigned k = (unsigned)(v[i] & 31); k-- > 0;) acc = acc * 31u + k;
    out[i] = acc;
    int x = v[i];
    sh[3 * i] = x >> (i & 31);
    sh[3 * i + 1] = (int)((unsigned)x >> (i & 31));
    sh[3 * i + 2] = x << (i & 7);
}
