// FFT-ILP: the ILP chapter's FFT (ch. 4 §4.1: 64x1 TBs, 8 TBs = 16 warps per SM of the
// chapter's GTX 280-like GPU, 128 TBs in all), a version of FFT (fft.cu) with the
// same algorithm and the register budget that lets 8 TBs share the 16,384 registers of an
// SM: 16,384 / (8 x 64) = 32 per thread, given to ptxas with __maxnreg__ (ptxas
// -arch=sm_75 would take 46 on its own, which fits 5 TBs); it allocates the 32 with no
// spill (fft_ilp.ptxas.yaml). The size (128 TBs) is in golden/workloads/defs/fft_ilp.py.
//
// Batched 256-point complex FFTs (float32), one FFT per TB of 64 threads, radix-4
// Stockham autosort: four stages (4^4 = 256); in every stage thread j reads the points j,
// j+64, j+128, j+192, multiplies them by twiddles exp(-2 pi i r k / (4 Ns)) (k = j mod Ns),
// does a 4-point DFT and writes the results to (j / Ns) * 4 Ns + k + r Ns, so the output
// comes out in natural order. The stage and radix loops have compile-time trip counts and
// are fully unrolled: the kernel has no conditional branch (the chapter leaves FFT out of
// its branch-prediction accuracy for that reason). Points live in registers across a stage
// and are exchanged through one 2 KB shared buffer; twiddles come from a 256-entry table
// in global memory computed by the host in double precision.
#define FFT_N 256
#define FFT_R 4
#define FFT_TB (FFT_N / FFT_R)

__device__ __forceinline__ float2 cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// 4-point forward DFT in place: v[k] = sum_n v[n] (-i)^(n k)
__device__ __forceinline__ void dft4(float2* v)
{
    float2 a0 = make_float2(v[0].x + v[2].x, v[0].y + v[2].y);
    float2 a1 = make_float2(v[0].x - v[2].x, v[0].y - v[2].y);
    float2 a2 = make_float2(v[1].x + v[3].x, v[1].y + v[3].y);
    // (v1 - v3) * (-i)
    float2 a3 = make_float2(v[1].y - v[3].y, v[3].x - v[1].x);
    v[0] = make_float2(a0.x + a2.x, a0.y + a2.y);
    v[1] = make_float2(a1.x + a3.x, a1.y + a3.y);
    v[2] = make_float2(a0.x - a2.x, a0.y - a2.y);
    v[3] = make_float2(a1.x - a3.x, a1.y - a3.y);
}

// one Stockham stage with span NS (1, 4, 16, 64), points already in v[]: twiddle, DFT4
template <int NS>
__device__ __forceinline__ void stage(float2* v, int j, const float2* __restrict__ twiddle)
{
    int k = j % NS;
#pragma unroll
    for (int r = 1; r < FFT_R; ++r) {
        // exp(-2 pi i r k / (4 NS)) = twiddle[r k (N / (4 NS))]
        v[r] = cmul(v[r], __ldg(&twiddle[r * k * (FFT_N / (FFT_R * NS))]));
    }
    dft4(v);
}

template <int NS>
__device__ __forceinline__ void store_shared(float2* s, const float2* v, int j)
{
    int dst = (j / NS) * NS * FFT_R + j % NS;
#pragma unroll
    for (int r = 0; r < FFT_R; ++r) s[dst + r * NS] = v[r];
}

__device__ __forceinline__ void load_shared(const float2* s, float2* v, int j)
{
#pragma unroll
    for (int r = 0; r < FFT_R; ++r) v[r] = s[j + r * FFT_TB];
}

extern "C" __global__ void __maxnreg__(32) fft256_radix4_ilp(const float2* __restrict__ in,
                                         const float2* __restrict__ twiddle,
                                         float2* out)
{
    __shared__ float2 s[FFT_N];
    int j = threadIdx.x;
    size_t base = (size_t)blockIdx.x * FFT_N;
    float2 v[FFT_R];

    // stage 1 (NS = 1): every twiddle is 1
#pragma unroll
    for (int r = 0; r < FFT_R; ++r) v[r] = in[base + j + r * FFT_TB];
    dft4(v);
    store_shared<1>(s, v, j);
    __syncthreads();

    // stage 2 (NS = 4)
    load_shared(s, v, j);
    __syncthreads();
    stage<4>(v, j, twiddle);
    store_shared<4>(s, v, j);
    __syncthreads();

    // stage 3 (NS = 16)
    load_shared(s, v, j);
    __syncthreads();
    stage<16>(v, j, twiddle);
    store_shared<16>(s, v, j);
    __syncthreads();

    // stage 4 (NS = 64): destination (j / 64) * 256 + j % 64 + r * 64 = j + r * 64
    load_shared(s, v, j);
    stage<64>(v, j, twiddle);
#pragma unroll
    for (int r = 0; r < FFT_R; ++r) out[base + j + r * FFT_TB] = v[r];
}
