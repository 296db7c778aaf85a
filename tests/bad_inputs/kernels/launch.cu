// Kernels for the bad-input corpus (tests/bad_inputs/manifest.yaml): each is correct CUDA;
// the corpus launches them wrongly or hits a limit. nvcc -ptx -arch=sm_75 -o launch.ptx launch.cu
#include <cassert>
extern "C" __global__ void store_n(int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i;
}

extern "C" __global__ void scale(float* out, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * (float)i;
}

// 256 KB of static shared memory: CUDA's limit per block is 48 KB (static)
extern "C" __global__ void big_shared(int* out)
{
    __shared__ int big[65536];
    big[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = big[(threadIdx.x + 1) % blockDim.x];
}

__device__ __noinline__ int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

// recursion: refused at link time (one register set per thread, no call frames)
extern "C" __global__ void recursive_sum(int* out, int n)
{
    int i = threadIdx.x;
    if (i < n) out[i] = fib(i);
}

extern "C" __global__ void trap_on_odd(int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (i & 1) __trap();
        out[i] = i;
    }
}

extern "C" __global__ void assert_small(int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(i < 40 && "index must stay below 40");
        out[i] = i;
    }
}
