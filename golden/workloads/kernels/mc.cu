// MC: Monte Carlo pricing of European call options, partial sums per thread.
//
// Stands in for MonteCarlo (MC) of WarpMan Table 5 (CUDA SDK): 384-thread TBs (12 warps)
// and no shared memory. Option `blockIdx.y` is priced from `path_n` precomputed standard
// normal samples (the same samples for every option, as in the SDK). Its data are
// preprocessed on the host as in the SDK: {S, X, MuByT, VBySqrtT} with
// MuByT = (R - V*V/2) * T and VBySqrtT = V * sqrt(T). Thread g of the option's
// `gridDim.x * 384` threads takes samples g, g + stride, ... and keeps its own sum of
// payoffs max(S * exp(VBySqrtT * r + MuByT) - X, 0) and of their squares, which it
// writes to global memory as one float2: the reduction over threads happens on the host,
// so no shared memory and no barrier are needed. When `path_n` is not a multiple of the
// stride, some threads take one sample more than others.
#define MC_TB 384

extern "C" __global__ void monte_carlo_partials(const float* __restrict__ samples,
                                                int path_n,
                                                const float4* __restrict__ options,
                                                float2* __restrict__ partial)
{
    int g = blockIdx.x * MC_TB + threadIdx.x;
    int stride = gridDim.x * MC_TB;
    float4 opt = options[blockIdx.y];   // x: S, y: X, z: MuByT, w: VBySqrtT
    float sum = 0.0f;
    float sq = 0.0f;
#pragma unroll 1
    for (int i = g; i < path_n; i += stride) {
        float payoff = fmaxf(opt.x * __expf(opt.w * samples[i] + opt.z) - opt.y, 0.0f);
        sum += payoff;
        sq += payoff * payoff;
    }
    partial[blockIdx.y * stride + g] = make_float2(sum, sq);
}
