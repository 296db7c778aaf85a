// BS: Black-Scholes European call and put prices, a grid-stride loop over options.
//
// Stands in for BS (BlackScholes, CUDA SDK) of the ILP chapter. The risk-free rate and
// volatility are kernel parameters, so a large part of each thread's arithmetic is
// uniform across the warp (the uniform-vector study of UV). The cumulative normal
// distribution uses the Abramowitz-Stegun polynomial with expf and __fdividef;
// d1 uses logf and sqrtf.
#define BS_RSQRT2PI 0.39894228040143267794f

__device__ __forceinline__ float cnd(float d)
{
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f,
                a4 = -1.821255978f, a5 = 1.330274429f;
    float k = __fdividef(1.0f, 1.0f + 0.2316419f * fabsf(d));
    float poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
    float c = BS_RSQRT2PI * expf(-0.5f * d * d) * poly;
    return (d > 0.0f) ? 1.0f - c : c;
}

extern "C" __global__ void black_scholes(const float* __restrict__ stock,
                                         const float* __restrict__ strike,
                                         const float* __restrict__ years,
                                         float* call,
                                         float* put,
                                         int n_options,
                                         float riskfree,
                                         float volatility)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n_options; i += stride) {
        float s = stock[i], x = strike[i], t = years[i];
        float sqrt_t = sqrtf(t);
        float d1 = (logf(s / x) + (riskfree + 0.5f * volatility * volatility) * t)
                   / (volatility * sqrt_t);
        float d2 = d1 - volatility * sqrt_t;
        float cnd1 = cnd(d1);
        float cnd2 = cnd(d2);
        float discount = expf(-riskfree * t);
        call[i] = s * cnd1 - x * discount * cnd2;
        put[i] = x * discount * (1.0f - cnd2) - s * (1.0f - cnd1);
    }
}
