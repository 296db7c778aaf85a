// HT: HeartWall-like template tracking: one TB per sample point finds where the point's
// template matches best within a search window of one frame (normalised cross-correlation,
// argmax by a shared-memory reduction).
//
// Stands in for HeartWall (HT) of UV Table 3 (seed 002 ch. 2; Rodinia heartwall, which
// tracks the inner and outer heart-wall points of an ultrasound video, one TB per point).
// Per TB (point p, template top-left (row0, col0) in the frame):
//   1. the HT_T x HT_T template goes into shared memory; two tree reductions give its mean
//      and the norm of the zero-mean template (each thread keeps them: uniform values);
//   2. thread i scores candidate offset (dy, dx) = (i / HT_SX - HT_RY, i % HT_SX - HT_RX):
//      ncc = sum w * (t - mean) / (sqrt(sum w^2 - (sum w)^2 / n) * |t - mean|) over the
//      frame window w at (row0 + dy, col0 + dx); a window reaching outside the frame is
//      skipped (score -2, below any ncc), so no access leaves the frame;
//   3. an argmax tree reduction in shared memory (larger score wins, the lower candidate
//      index on a tie) gives the best offset and its score.
// All loop bounds are compile-time constants or per-TB values, the same in every warp.
#define HT_T 8                  // template side
#define HT_N (HT_T * HT_T)      // template pixels
#define HT_RY 4                 // candidate rows dy in [-HT_RY, HT_RY)
#define HT_RX 8                 // candidate columns dx in [-HT_RX, HT_RX)
#define HT_SX (2 * HT_RX)
#define HT_TB (2 * HT_RY * HT_SX)   // one thread per candidate offset: 128

__device__ __forceinline__ float ht_block_sum(float v, float* s_red, int tid)
{
    s_red[tid] = v;
    __syncthreads();
    for (int s = HT_TB / 2; s > 0; s >>= 1) {
        if (tid < s) {
            s_red[tid] += s_red[tid + s];
        }
        __syncthreads();
    }
    float total = s_red[0];
    __syncthreads();
    return total;
}

extern "C" __global__ void ht_track(const float* __restrict__ frame,
                                    int width,
                                    int height,
                                    const float* __restrict__ templates,  // [points][HT_N]
                                    const int* __restrict__ points,       // [points][2]: row, col
                                    int n_points,
                                    int* best_offset,                     // [points][2]: dy, dx
                                    float* best_score)                    // [points]
{
    __shared__ float s_t[HT_N];
    __shared__ float s_red[HT_TB];
    __shared__ int s_idx[HT_TB];
    int p = blockIdx.x;
    if (p >= n_points) {
        return;
    }
    int tid = threadIdx.x;

    float v = tid < HT_N ? templates[(size_t)p * HT_N + tid] : 0.0f;
    float mean = ht_block_sum(v, s_red, tid) * (1.0f / HT_N);
    float d = tid < HT_N ? v - mean : 0.0f;
    if (tid < HT_N) {
        s_t[tid] = d;
    }
    float tnorm = sqrtf(ht_block_sum(d * d, s_red, tid));

    int y = points[2 * p] + tid / HT_SX - HT_RY;
    int x = points[2 * p + 1] + tid % HT_SX - HT_RX;
    float score = -2.0f;
    if (y >= 0 && x >= 0 && y + HT_T <= height && x + HT_T <= width) {
        float sw = 0.0f, sww = 0.0f, swt = 0.0f;
        for (int r = 0; r < HT_T; ++r) {
            const float* row = frame + (size_t)(y + r) * width + x;
            for (int c = 0; c < HT_T; ++c) {
                float w = row[c];
                sw += w;
                sww += w * w;
                swt += w * s_t[r * HT_T + c];
            }
        }
        float var = sww - sw * sw * (1.0f / HT_N);
        float denom = sqrtf(fmaxf(var, 0.0f)) * tnorm;
        score = denom > 0.0f ? swt / denom : 0.0f;
    }

    s_red[tid] = score;
    s_idx[tid] = tid;
    __syncthreads();
    for (int s = HT_TB / 2; s > 0; s >>= 1) {
        if (tid < s) {
            float other = s_red[tid + s];
            int other_idx = s_idx[tid + s];
            if (other > s_red[tid] || (other == s_red[tid] && other_idx < s_idx[tid])) {
                s_red[tid] = other;
                s_idx[tid] = other_idx;
            }
        }
        __syncthreads();
    }
    if (tid == 0) {
        int best = s_idx[0];
        best_offset[2 * p] = best / HT_SX - HT_RY;
        best_offset[2 * p + 1] = best % HT_SX - HT_RX;
        best_score[p] = s_red[0];
    }
}
