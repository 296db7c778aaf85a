// NQU: N-Queens solution counting, one backtracking search per thread.
//
// Stands in for NQU of UV Table 3 and of the ILP chapter (GPGPU-Sim distribution):
// the host enumerates every legal placement of the first `depth` rows; each thread
// completes one such prefix with an iterative bitmask backtracking search whose
// explicit stack lives in shared memory (16 KB per TB, so one TB per SM on the
// 16 KB-shared baselines, as the dissertation notes for NQU). Trip counts depend on the
// board contents, so warps diverge heavily. Threads past the last prefix idle
// (the `if (idx < total_conditions)` shape the ILP chapter points at).
#define NQ_TB 64      // threads per block: the shared stack is laid out for exactly this
#define NQ_MAXD 16    // deepest stack: rows left to place after the prefix

extern "C" __global__ void nqueens_count(const unsigned int* __restrict__ prefix_cols,
                                         const unsigned int* __restrict__ prefix_ldiag,
                                         const unsigned int* __restrict__ prefix_rdiag,
                                         int n_prefix,
                                         int n,
                                         int depth,
                                         int* counts,
                                         int* total)
{
    __shared__ unsigned int s_cols[NQ_MAXD * NQ_TB];
    __shared__ unsigned int s_ldiag[NQ_MAXD * NQ_TB];
    __shared__ unsigned int s_rdiag[NQ_MAXD * NQ_TB];
    __shared__ unsigned int s_avail[NQ_MAXD * NQ_TB];

    int tid = threadIdx.x;
    int idx = blockIdx.x * blockDim.x + tid;
    if (idx < n_prefix) {
        unsigned int full = (1u << n) - 1u;
        int rows_left = n - depth;
        unsigned int c = prefix_cols[idx];
        unsigned int l = prefix_ldiag[idx];
        unsigned int r = prefix_rdiag[idx];
        s_cols[tid] = c;
        s_ldiag[tid] = l;
        s_rdiag[tid] = r;
        s_avail[tid] = full & ~(c | l | r);
        int d = 0;
        int count = 0;
        while (d >= 0) {
            int slot = d * NQ_TB + tid;
            unsigned int avail = s_avail[slot];
            if (avail == 0u) {
                --d;                       // dead end or exhausted: backtrack
                continue;
            }
            unsigned int bit = avail & (0u - avail);   // lowest free column
            s_avail[slot] = avail ^ bit;
            if (d + 1 == rows_left) {
                ++count;                   // last row placed: one solution
                continue;
            }
            c = s_cols[slot] | bit;
            l = (s_ldiag[slot] | bit) << 1;
            r = (s_rdiag[slot] | bit) >> 1;
            ++d;
            slot = d * NQ_TB + tid;
            s_cols[slot] = c;
            s_ldiag[slot] = l;
            s_rdiag[slot] = r;
            s_avail[slot] = full & ~(c | l | r);
        }
        counts[idx] = count;
        atomicAdd(total, count);
    }
}
