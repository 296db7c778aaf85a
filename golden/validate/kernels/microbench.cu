// Validation microbenchmarks for the cycle-level timing model (golden/validate/microbench.py).
// Compiled with: nvcc -ptx -arch=sm_75 -o microbench.ptx microbench.cu

#define CHAIN(N)                                                        \
    float x = a[threadIdx.x];                                           \
    _Pragma("unroll")                                                   \
    for (int i = 0; i < N; ++i) x = fmaf(x, m, c);                      \
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;

// One dependent chain of N fma per thread (each needs the previous result).
extern "C" __global__ void alu_chain64(const float* a, float* out, float m, float c) { CHAIN(64) }
extern "C" __global__ void alu_chain128(const float* a, float* out, float m, float c) { CHAIN(128) }

// Eight independent multiply-add chains per thread with immediate constants (one register
// source per instruction): plenty of instruction- and warp-level parallelism.
extern "C" __global__ void alu_independent(const float* a, float* out)
{
    float x0 = a[threadIdx.x], x1 = x0 + 1.f, x2 = x0 + 2.f, x3 = x0 + 3.f;
    float x4 = x0 + 4.f, x5 = x0 + 5.f, x6 = x0 + 6.f, x7 = x0 + 7.f;
#pragma unroll
    for (int i = 0; i < 64; ++i) {
        x0 = fmaf(x0, 0.75f, 0.5f); x1 = fmaf(x1, 0.75f, 0.5f); x2 = fmaf(x2, 0.75f, 0.5f);
        x3 = fmaf(x3, 0.75f, 0.5f); x4 = fmaf(x4, 0.75f, 0.5f); x5 = fmaf(x5, 0.75f, 0.5f);
        x6 = fmaf(x6, 0.75f, 0.5f); x7 = fmaf(x7, 0.75f, 0.5f);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

// Pointer chasing: every load's address is the value the previous load returned.
extern "C" __global__ void pointer_chase(unsigned long long start, int n, unsigned long long* out)
{
    unsigned long long p = start;
    for (int i = 0; i < n; ++i) p = *(const unsigned long long*)p;
    out[0] = p;
}

// Streaming reads: grid-stride loop of float4 loads, four independent loads per iteration.
extern "C" __global__ void stream_read(const float4* in, int n4, float* out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    float acc = 0.f;
    for (int i = t; i + 3 * stride < n4; i += 4 * stride) {
        float4 v0 = in[i], v1 = in[i + stride], v2 = in[i + 2 * stride], v3 = in[i + 3 * stride];
        acc += v0.x + v1.y + v2.z + v3.w;
    }
    out[t] = acc;
}

// Shared-memory bank conflicts: lane l reads word (l * stride + k) mod 1024, 16 times.
extern "C" __global__ void shared_stride(float* out, int stride)
{
    __shared__ float sh[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) sh[i] = (float)i;
    __syncthreads();
    float acc = 0.f;
#pragma unroll
    for (int k = 0; k < 16; ++k) acc += sh[(threadIdx.x * stride + k) & 1023];
    out[threadIdx.x] = acc;
}
