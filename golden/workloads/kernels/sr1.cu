// SR1: speckle-reducing anisotropic diffusion of an image, in the structure of the
// Rodinia srad_v1 benchmark (DARSIE Table 1, TB (512,1)).
//
// The image is Nr x Nc, stored column-major (element ei = row + Nr*col) and processed by
// 512-thread 1D blocks, one element per thread; each thread recovers (row, col) by integer
// division and looks up its clamped neighbours through the index tables iN/iS (rows) and
// jW/jE (columns). Per iteration the host runs:
//   srad_reduce    per-block tree sums of the image and of its square (shared memory);
//                  the host adds the block sums and derives q0sqr (speckle statistic);
//   srad_diffusion directional derivatives and the clamped diffusion coefficient c;
//   srad_update    divergence of c*gradient, explicit update of the image.
// srad_extract (exp(img/255)) runs before the iterations and srad_compress
// (log(img)*255) after them.

#define THREADS 512

extern "C" __global__ void srad_extract(float *img, int ne)
{
    const int ei = blockIdx.x * THREADS + threadIdx.x;
    if (ei < ne)
        img[ei] = expf(img[ei] / 255.0f);
}

extern "C" __global__ void srad_reduce(const float *img, float *block_sum, float *block_sum2, int ne)
{
    __shared__ float s1[THREADS];
    __shared__ float s2[THREADS];
    const int tx = threadIdx.x;
    const int ei = blockIdx.x * THREADS + tx;
    const float v = (ei < ne) ? img[ei] : 0.0f;
    s1[tx] = v;
    s2[tx] = v * v;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half >>= 1) {
        if (tx < half) {
            s1[tx] += s1[tx + half];
            s2[tx] += s2[tx + half];
        }
        __syncthreads();
    }
    if (tx == 0) {
        block_sum[blockIdx.x] = s1[0];
        block_sum2[blockIdx.x] = s2[0];
    }
}

extern "C" __global__ void srad_diffusion(const float *img, float *c, float *dN, float *dS,
                                          float *dW, float *dE, const int *iN, const int *iS,
                                          const int *jW, const int *jE, int Nr, int ne,
                                          float q0sqr)
{
    const int ei = blockIdx.x * THREADS + threadIdx.x;
    if (ei >= ne)
        return;
    const int row = ei % Nr;
    const int col = ei / Nr;

    const float Jc = img[ei];
    const float n = img[iN[row] + Nr * col] - Jc;
    const float s = img[iS[row] + Nr * col] - Jc;
    const float w = img[row + Nr * jW[col]] - Jc;
    const float e = img[row + Nr * jE[col]] - Jc;

    const float G2 = (n * n + s * s + w * w + e * e) / (Jc * Jc);   // normalised gradient^2
    const float L = (n + s + w + e) / Jc;                           // normalised Laplacian
    const float num = 0.5f * G2 - (1.0f / 16.0f) * (L * L);
    float den = 1.0f + 0.25f * L;
    const float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
    float cc = 1.0f / (1.0f + den);
    if (cc < 0.0f)
        cc = 0.0f;
    else if (cc > 1.0f)
        cc = 1.0f;

    dN[ei] = n;
    dS[ei] = s;
    dW[ei] = w;
    dE[ei] = e;
    c[ei] = cc;
}

extern "C" __global__ void srad_update(float *img, const float *c, const float *dN, const float *dS,
                                       const float *dW, const float *dE, const int *iS,
                                       const int *jE, int Nr, int ne, float lambda)
{
    const int ei = blockIdx.x * THREADS + threadIdx.x;
    if (ei >= ne)
        return;
    const int row = ei % Nr;
    const int col = ei / Nr;
    const float cN = c[ei];
    const float cS = c[iS[row] + Nr * col];
    const float cW = c[ei];
    const float cE = c[row + Nr * jE[col]];
    const float D = cN * dN[ei] + cS * dS[ei] + cW * dW[ei] + cE * dE[ei];
    img[ei] = img[ei] + 0.25f * lambda * D;
}

extern "C" __global__ void srad_compress(float *img, int ne)
{
    const int ei = blockIdx.x * THREADS + threadIdx.x;
    if (ei < ne)
        img[ei] = logf(img[ei]) * 255.0f;
}
