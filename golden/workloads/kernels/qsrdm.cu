// QSRDM: base-2 quasirandom (Sobol-type digital) sequence and its inverse normal CDF.
//
// Stands in for QSRDM (CUDA SDK quasirandomGenerator) of CAPRI Table 2, non-divergent.
// Two kernels, as in the SDK sample:
//  * qrng_sobol: point i of dimension d (blockIdx.y) is the XOR of the direction numbers
//    c_dirs[d][b] over the set bits b of i (selected with a mask, no branch), scaled to (0, 1]; each thread walks the
//    points i = tid, tid + stride, ... (grid-stride loop);
//  * qrng_inverse_cnd: as the SDK sample runs it (no input array), maps the evenly
//    spaced probabilities p_i = (i + 1) / (count + 1) through the inverse standard normal
//    CDF with a Beasley-Springer-Moro style approximation: a rational function in the
//    centre, a polynomial in log(-log(p)) in the tails (the only data-dependent branch;
//    neighbouring threads take the same side except at the two switch points).

#define QRNG_DIMS 3
#define QRNG_BITS 31

__constant__ unsigned int c_dirs[QRNG_DIMS][QRNG_BITS];

extern "C" __global__ void qrng_sobol(float* __restrict__ out, unsigned int n)
{
    const unsigned int dim = blockIdx.y;
    const unsigned int stride = blockDim.x * gridDim.x;
    float* dst = out + dim * n;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned int x = 0;
        unsigned int bits = i;
        for (int b = 0; b < QRNG_BITS; b++) {
            // branch-free select of the direction number (the SDK's compiler predicated it)
            x ^= c_dirs[dim][b] & (0u - (bits & 1u));
            bits >>= 1;
        }
        // (x + 1) / 2^31: the value lies in (0, 1]
        dst[i] = (float)(x + 1u) * (1.0f / 2147483648.0f);
    }
}

__device__ float inverse_cnd(float p)
{
    const float a0 = 2.50662823884f, a1 = -18.61500062529f, a2 = 41.39119773534f,
                a3 = -25.44106049637f;
    const float b0 = -8.47351093090f, b1 = 23.08336743743f, b2 = -21.06224101826f,
                b3 = 3.13082909833f;
    const float y = p - 0.5f;
    float z;
    if (fabsf(y) < 0.42f) {
        const float r = y * y;
        z = y * (((a3 * r + a2) * r + a1) * r + a0) /
            ((((b3 * r + b2) * r + b1) * r + b0) * r + 1.0f);
    } else {
        float r = (y > 0.0f) ? 1.0f - p : p;
        r = logf(-logf(r));
        z = 0.3374754822726147f + r * (0.9761690190917186f + r * (0.1607979714918209f +
            r * (0.0276438810333863f + r * (0.0038405729373609f + r * (0.0003951896511919f +
            r * (0.0000321767881768f + r * (0.0000002888167364f + r * 0.0000003960315187f)))))));
        if (y < 0.0f) {
            z = -z;
        }
    }
    return z;
}

extern "C" __global__ void qrng_inverse_cnd(float* __restrict__ out, unsigned int count)
{
    const unsigned int stride = blockDim.x * gridDim.x;
    const float spacing = 1.0f / (float)(count + 1u);
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        out[i] = inverse_cnd((float)(i + 1u) * spacing);
    }
}
