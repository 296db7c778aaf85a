// TPACF: two-point angular correlation histogram of points on the unit sphere.
//
// Stands in for TPACF/ACF of CAPRI Table 2 and G-Scalar Table 2 (Parboil tpacf): every
// pair of points (i < j) gets its angular separation binned by a binary search over
// the bin edges (cosines, descending, in constant memory), counted with shared-memory
// atomics into a per-block histogram that is flushed to the global one with global
// atomics. A 2-D grid pairs a tile of i-points (blockIdx.x) with a tile of j-points
// staged in shared memory (blockIdx.y); tiles below the diagonal exit at once, and the
// diagonal tile's `j > i` test plus the data-dependent search lengths make warps
// diverge.
//
// The dot product uses explicitly rounded operations (__fmul_rn/__fadd_rn): they forbid
// FMA contraction so the float32 result, and hence the bin, is reproducible exactly.
#define ACF_TB 128
#define ACF_MAX_EDGES 64

__constant__ float c_edges[ACF_MAX_EDGES];

extern "C" __global__ void tpacf_hist(const float* __restrict__ px,
                                      const float* __restrict__ py,
                                      const float* __restrict__ pz,
                                      int n_points,
                                      int n_edges,
                                      unsigned int* hist)
{
    __shared__ float sx[ACF_TB];
    __shared__ float sy[ACF_TB];
    __shared__ float sz[ACF_TB];
    __shared__ unsigned int s_hist[ACF_MAX_EDGES + 1];

    if (blockIdx.y < blockIdx.x) {
        return;                     // pair tile entirely below the diagonal: nothing to count
    }
    int tid = threadIdx.x;
    for (int b = tid; b <= n_edges; b += blockDim.x) {
        s_hist[b] = 0u;
    }
    int i = blockIdx.x * blockDim.x + tid;
    int j0 = blockIdx.y * blockDim.x;
    if (j0 + tid < n_points) {
        sx[tid] = px[j0 + tid];
        sy[tid] = py[j0 + tid];
        sz[tid] = pz[j0 + tid];
    }
    __syncthreads();

    if (i < n_points) {
        float xi = px[i], yi = py[i], zi = pz[i];
        int j_count = min((int)blockDim.x, n_points - j0);
        for (int k = 0; k < j_count; ++k) {
            if (j0 + k <= i) {
                continue;           // count each unordered pair once
            }
            float dot = __fadd_rn(__fadd_rn(__fmul_rn(xi, sx[k]), __fmul_rn(yi, sy[k])),
                                  __fmul_rn(zi, sz[k]));
            // bin = number of edges strictly greater than dot (edges descend)
            int lo = 0, hi = n_edges;
            while (lo < hi) {
                int mid = (lo + hi) >> 1;
                if (dot < c_edges[mid]) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            atomicAdd(&s_hist[lo], 1u);
        }
    }
    __syncthreads();
    for (int b = tid; b <= n_edges; b += blockDim.x) {
        if (s_hist[b] != 0u) {
            atomicAdd(&hist[b], s_hist[b]);
        }
    }
}
