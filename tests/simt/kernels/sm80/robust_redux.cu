// Robustness battery (issue 19 item 11): warp reductions __reduce_*_sync (redux.sync, sm_80).
// Compiled with nvcc -ptx -arch=sm_80 (sm_75 has no redux).
extern "C" __global__ void redux_all(const unsigned* u, const int* s, unsigned* o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned m = __activemask();
        unsigned* p = o + 8 * i;
        p[0] = __reduce_add_sync(m, u[i]);
        p[1] = __reduce_min_sync(m, u[i]);
        p[2] = __reduce_max_sync(m, u[i]);
        p[3] = (unsigned)__reduce_min_sync(m, s[i]);
        p[4] = (unsigned)__reduce_max_sync(m, s[i]);
        p[5] = __reduce_and_sync(m, u[i]);
        p[6] = __reduce_or_sync(m, u[i]);
        p[7] = __reduce_xor_sync(m, u[i]);
    }
}

// only odd lanes take part
extern "C" __global__ void redux_odd(const int* s, int* o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int r = -7;
        if (threadIdx.x & 1) r = __reduce_add_sync(0xaaaaaaaau, s[i]);
        o[i] = r;
    }
}
