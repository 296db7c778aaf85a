// Robustness battery: 32- and 64-bit atomics on global and shared memory.
__device__ float atomic_max_float(float* addr, float v)
{
    int* ai = (int*)addr;
    int old = *ai, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(ai, assumed, __float_as_int(v));
    } while (assumed != old);
    return __int_as_float(old);
}

extern "C" __global__ void atomics_global(const int* v, const float* fv, unsigned long long* u64,
                                          int* i32, unsigned* u32, float* fmx, long long* s64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = v[i];
    atomicAdd(&u64[0], (unsigned long long)(x & 0xff) << 33);
    atomicMin(&i32[0], x);
    atomicMax(&i32[1], x);
    atomicAnd(&u32[0], ~(1u << (x & 31)));
    atomicOr(&u32[1], 1u << (x & 31));
    atomicXor(&u32[2], (unsigned)x);
    atomicSub(&i32[2], x & 15);
    atomicInc(&u32[3], 17u);
    atomicDec(&u32[4], 9u);
    atomicAdd(&u32[5], 1u);
    atomic_max_float(fmx, fv[i]);
    atomicMin(&s64[0], (long long)x * -3LL);
    atomicMax(&s64[1], (long long)x * 1000000007LL);
    atomicMin(&u64[1], (unsigned long long)(x & 0xffff) + 5ULL);
    atomicMax(&u64[2], (unsigned long long)x * 77ULL);
    atomicAnd(&u64[3], ~(1ULL << (x & 63)));
    atomicOr(&u64[4], 1ULL << (x & 63));
    atomicXor(&u64[5], (unsigned long long)x << 20);
    atomicAdd(&fmx[1], 0.5f);
    atomicAdd((double*)&s64[2], 0.25);
}

extern "C" __global__ void atomic_exch_cas(int* slots, int* owner, unsigned long long* cas64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    // every thread claims slot (i % 8) if free; exactly one wins per slot
    int prev = atomicCAS(&slots[i % 8], -1, i);
    if (prev == -1) owner[i % 8] = i;
    // an exchange chain: the final value is some thread's id, the returned ones are unique
    int old = atomicExch(&slots[8], i);
    owner[8 + i] = old;
    // 64-bit CAS increment loop
    unsigned long long o = cas64[0], a;
    do { a = o; o = atomicCAS(&cas64[0], a, a + (unsigned long long)i); } while (o != a);
}

extern "C" __global__ void shared_histogram(const int* v, unsigned* hist, int n)
{
    __shared__ unsigned h[64];
    __shared__ unsigned long long tot;
    for (int k = threadIdx.x; k < 64; k += blockDim.x) h[k] = 0;
    if (threadIdx.x == 0) tot = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        atomicAdd(&h[v[i] & 63], 1u);
        atomicAdd(&tot, (unsigned long long)v[i]);
        atomicMax(&h[63], 0u);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < 64; k += blockDim.x) atomicAdd(&hist[k], h[k]);
    if (threadIdx.x == 0) atomicAdd((unsigned long long*)&hist[64], tot);
}
