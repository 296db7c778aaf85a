// Small kernels exercising the SIMT core: divergence, loops, barriers, atomics,
// device functions, 3-D blocks, warp intrinsics and faults. Compiled with
//   nvcc -ptx -arch=sm_75 -o simt_cases.ptx simt_cases.cu
extern "C" __global__ void diverge(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int acc = 0;
    if (v & 1) {
        for (int k = 0; k < (v & 7); ++k) acc += k * v;
    } else if (v % 3 == 0) {
        acc = -v;
    } else {
        while (v > 1) { v = (v & 1) ? 3 * v + 1 : v >> 1; ++acc; }
    }
    out[i] = acc;
}

extern "C" __global__ void block_reverse(const float *in, float *out) {
    extern __shared__ float buf[];
    int t = threadIdx.x;
    buf[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = buf[blockDim.x - 1 - t];
}

extern "C" __global__ void histogram(const unsigned *in, unsigned *bins, int n, int nbins) {
    __shared__ unsigned local[64];
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[in[i] % nbins], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

extern "C" __global__ void atomics_mix(int *cnt, int *mx, float *fsum, unsigned *ring, const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int slot = atomicAdd(cnt, 1);
        ring[slot] = i;
        atomicMax(mx, in[i]);
        atomicAdd(fsum, 0.5f);
        atomicInc((unsigned *)cnt + 1, 7u);
    }
}

__device__ __noinline__ int collatz_len(int v, int cap) {
    int s = 0;
    while (v != 1 && s < cap) {
        if (v & 1) v = 3 * v + 1; else v >>= 1;
        ++s;
    }
    return s;
}

extern "C" __global__ void call_func(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = collatz_len(in[i], 100) + 1;
}

extern "C" __global__ void ids3d(int *out) {
    int tb = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int nt = blockDim.x * blockDim.y * blockDim.z;
    out[tb * nt + t] = (threadIdx.z << 16) | (threadIdx.y << 8) | threadIdx.x | (blockIdx.z << 28) | (blockIdx.y << 24);
}

extern "C" __global__ void warp_ops(const int *in, int *sum, unsigned *ballot, int *bcast) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int s = v;
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    unsigned b = __ballot_sync(0xffffffffu, v > 0);
    int first = __shfl_sync(0xffffffffu, v, 3);
    if ((threadIdx.x & 31) == 0) { sum[i / 32] = s; ballot[i / 32] = b; }
    bcast[i] = first;
}

extern "C" __global__ void oob_write(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i + n] = i;   // every thread writes past the end of the n-element array
}

extern "C" __global__ void barrier_deadlock(int *out) {
    if (threadIdx.x < 32) {
        __syncthreads();   // only warp 0 arrives; the other warps exit
        out[threadIdx.x] = 1;
    }
}

extern "C" __global__ void spin_forever(volatile int *flag) {
    while (*flag == 0) { }
}

__constant__ int lut[8] = {3, 1, 4, 1, 5, 9, 2, 6};

extern "C" __global__ void const_lookup(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = lut[in[i] & 7] * 10 + lut[(in[i] >> 3) & 7];
}

// 64-bit add from 32-bit halves through the carry flag (add.cc / addc)
extern "C" __global__ void add64_carry(const unsigned long long *a, const unsigned long long *b,
                                       unsigned long long *c) {
    int i = threadIdx.x;
    unsigned lo, hi;
    asm("add.cc.u32 %0, %2, %4;\n\taddc.u32 %1, %3, %5;"
        : "=r"(lo), "=r"(hi)
        : "r"((unsigned)a[i]), "r"((unsigned)(a[i] >> 32)), "r"((unsigned)b[i]), "r"((unsigned)(b[i] >> 32)));
    c[i] = ((unsigned long long)hi << 32) | lo;
}

#include <cstdio>
extern "C" __global__ void hello(int base) {
    if (threadIdx.x % 16 == 3)
        printf("tb %d thread %u: %d %5.2f %s %c %llx\n", blockIdx.x, threadIdx.x, base + (int)threadIdx.x,
               0.5 * threadIdx.x, "ok", 'A' + (int)threadIdx.x % 26, 0x1234567890ULL);
}

__device__ int g_a = 7, g_b = 9;
__device__ int *g_ptrs[2] = {&g_a, &g_b};
extern "C" __global__ void pointer_table(int *out) {
    out[threadIdx.x] = *g_ptrs[threadIdx.x & 1];
}
