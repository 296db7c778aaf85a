// PFLT: one particle-filter tracking step per video frame (Rodinia particlefilter
// structure): move and weigh the particles, normalise, build the CDF, resample.
//
// Stands in for PFLT (Particlefilter, Rodinia) of CAPRI Table 2, non-divergent. Per
// frame the host runs four kernels over n particles (128 threads per block):
//  * pf_likelihood: particle i drifts by (+1, -2) plus its noise, then sums the
//    likelihood term (I - 100)^2 - (I - 228)^2 over a disk of pixels around it (a loop
//    of the same length for every thread); the integer sum picks a factor from a
//    table of exponentials in constant memory that multiplies the weight. The block's
//    weights are scanned in shared memory and the block total written out;
//  * pf_block_scan (one block): exclusive prefix of the block totals and the grand total;
//  * pf_normalise: weight / total, and CDF = (block prefix + in-block scan) / total;
//  * pf_resample: u_j = u1 + j / n; a binary-search loop over the CDF finds the first
//    entry >= u_j; the particle is replaced by that one and its weight reset to 1 / n.
// The float sums run in a fixed order so the host can reproduce the CDF bit for bit.

#define PF_TB 128
#define PF_MAX_DISK 128
#define PF_TABLE 256
#define PF_SHIFT 13

__constant__ int c_disk_dx[PF_MAX_DISK];
__constant__ int c_disk_dy[PF_MAX_DISK];
__constant__ float c_expo[PF_TABLE];      // exp((b - PF_TABLE / 2) / 16)

// inclusive Hillis-Steele scan of s[0..PF_TB) in place; every thread calls it
__device__ __forceinline__ void block_scan(float* s, int t)
{
    for (int d = 1; d < PF_TB; d <<= 1) {
        float add = 0.0f;
        if (t >= d) {
            add = s[t - d];
        }
        __syncthreads();
        if (t >= d) {
            s[t] += add;
        }
        __syncthreads();
    }
}

extern "C" __global__ void pf_likelihood(float* x, float* y, const float* __restrict__ noise_x,
                                         const float* __restrict__ noise_y,
                                         const unsigned char* __restrict__ frame,
                                         float* weights, float* block_sums,
                                         int n, int width, int height, int disk)
{
    __shared__ float s[PF_TB];
    const int t = threadIdx.x;
    const int i = blockIdx.x * PF_TB + t;
    float w = 0.0f;
    if (i < n) {
        const float px = x[i] + 1.0f + noise_x[i];
        const float py = y[i] - 2.0f + noise_y[i];
        x[i] = px;
        y[i] = py;
        const int cx = __float2int_rn(px), cy = __float2int_rn(py);
        int lik = 0;
        for (int k = 0; k < disk; k++) {
            const int ix = min(max(cx + c_disk_dx[k], 0), width - 1);
            const int iy = min(max(cy + c_disk_dy[k], 0), height - 1);
            const int v = frame[iy * width + ix];
            lik += (v - 100) * (v - 100) - (v - 228) * (v - 228);
        }
        const int b = min(max((lik >> PF_SHIFT) + PF_TABLE / 2, 0), PF_TABLE - 1);
        w = weights[i] * c_expo[b];
        weights[i] = w;
    }
    s[t] = w;
    __syncthreads();
    block_scan(s, t);
    if (t == PF_TB - 1) {
        block_sums[blockIdx.x] = s[t];
    }
}

// one block: offsets[b] = sum of block_sums[0..b), offsets[nb] = total. Thread t sums
// its chunk of `per_thread` totals, the chunk sums are scanned, then each thread writes
// its chunk's running offsets.
extern "C" __global__ void pf_block_scan(const float* __restrict__ block_sums, float* offsets,
                                         int nb, int per_thread)
{
    __shared__ float s[PF_TB];
    const int t = threadIdx.x;
    const int first = t * per_thread;
    const int last = min(first + per_thread, nb);
    float part = 0.0f;
    for (int b = first; b < last; b++) {
        part += block_sums[b];
    }
    s[t] = part;
    __syncthreads();
    block_scan(s, t);
    float off = (t > 0) ? s[t - 1] : 0.0f;
    for (int b = first; b < last; b++) {
        offsets[b] = off;
        off += block_sums[b];
    }
    if (t == PF_TB - 1) {
        offsets[nb] = s[t];
    }
}

extern "C" __global__ void pf_normalise(float* weights, const float* __restrict__ offsets,
                                        float* cdf, int n, int nb)
{
    __shared__ float s[PF_TB];
    const int t = threadIdx.x;
    const int i = blockIdx.x * PF_TB + t;
    const float w = (i < n) ? weights[i] : 0.0f;
    s[t] = w;
    __syncthreads();
    block_scan(s, t);
    const float total = offsets[nb];
    if (i < n) {
        weights[i] = w / total;
        cdf[i] = (offsets[blockIdx.x] + s[t]) / total;
    }
}

extern "C" __global__ void pf_resample(const float* __restrict__ cdf,
                                       const float* __restrict__ x, const float* __restrict__ y,
                                       float* x_out, float* y_out, int* chosen, float* weights,
                                       float u1, int n)
{
    const int j = blockIdx.x * PF_TB + threadIdx.x;
    if (j >= n) {
        return;
    }
    const float u = u1 + (float)j / (float)n;
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (cdf[mid] < u) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == n) {
        lo = n - 1;
    }
    x_out[j] = x[lo];
    y_out[j] = y[lo];
    chosen[j] = lo;
    weights[j] = 1.0f / (float)n;
}
