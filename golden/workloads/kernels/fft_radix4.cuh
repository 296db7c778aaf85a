// The batched 256-point radix-4 Stockham FFT shared by fft.cu (FFT) and fft_ilp.cu
// (FFT-ILP, the ILP chapter's register budget): the algorithm is described in fft.cu.
// fft256_radix4_tb does one TB's FFT, with the TB's 2 KB shared buffer passed in so
// that each kernel declares it (and its launch bounds) itself.
#pragma once

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

__device__ __forceinline__ void fft256_radix4_tb(const float2* __restrict__ in,
                                                 const float2* __restrict__ twiddle,
                                                 float2* out, float2* s)
{
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
