// NQU: N-Queens solution counting, one backtracking search per sub-problem.
//
// Stands in for NQU of UV Table 3 and of the ILP chapter (GPGPU-Sim distribution). The
// host splits the search at a shallow depth into `total_conditions` sub-problems (every
// legal placement of the first rows, as three occupancy bitmasks) and launches a grid with
// many more threads than that; thread `idx` completes sub-problem `idx` with an iterative
// bitmask search whose explicit stack lives in shared memory, and threads with
// idx >= total_conditions skip the search. With a shallow split every sub-problem falls in
// TB0, so TB0 does nearly all the work and the other TBs only take part in the per-block
// reduction: the `if (idx < total_conditions)` shape the ILP chapter (seed 002 §4.1)
// says makes NQU's TB0 dominate. Shared memory per TB: four stacks of NQ_MAXD x NQ_TB
// words plus the NQ_TB-word reduction buffer = 15,744 B (15.4 kB, as the chapter states),
// so one TB per SM on the 16 KB-shared baselines. Trip counts depend on the board, so the
// warps of TB0 diverge heavily.
#define NQ_TB 96      // threads per block: the shared arrays are laid out for exactly this
#define NQ_MAXD 10    // deepest stack: rows left to place after the split

extern "C" __global__ void nqueens_count(const unsigned int* __restrict__ cond_cols,
                                         const unsigned int* __restrict__ cond_ldiag,
                                         const unsigned int* __restrict__ cond_rdiag,
                                         int total_conditions,
                                         int n,
                                         int depth,
                                         int* counts,
                                         int* block_sums)
{
    __shared__ unsigned int s_cols[NQ_MAXD * NQ_TB];
    __shared__ unsigned int s_ldiag[NQ_MAXD * NQ_TB];
    __shared__ unsigned int s_rdiag[NQ_MAXD * NQ_TB];
    __shared__ unsigned int s_avail[NQ_MAXD * NQ_TB];
    __shared__ int s_sum[NQ_TB];

    int tid = threadIdx.x;
    int idx = blockIdx.x * blockDim.x + tid;
    int count = 0;
    if (idx < total_conditions) {
        unsigned int full = (1u << n) - 1u;
        int last = n - depth - 1;              // stack level of the board's last row
        unsigned int c = cond_cols[idx];
        unsigned int l = cond_ldiag[idx];
        unsigned int r = cond_rdiag[idx];
        s_cols[tid] = c;
        s_ldiag[tid] = l;
        s_rdiag[tid] = r;
        s_avail[tid] = full & ~(c | l | r);
        int d = 0;
        while (d >= 0) {
            int slot = d * NQ_TB + tid;
            unsigned int avail = s_avail[slot];
            if (avail == 0u) {
                --d;                           // row exhausted: backtrack
            } else if (d == last) {
                count += __popc(avail);        // every free square of the last row solves
                s_avail[slot] = 0u;
            } else {
                unsigned int bit = avail & (0u - avail);   // lowest free column
                s_avail[slot] = avail ^ bit;
                c = s_cols[slot] | bit;
                l = ((s_ldiag[slot] | bit) << 1) & full;
                r = (s_rdiag[slot] | bit) >> 1;
                slot += NQ_TB;
                ++d;
                s_cols[slot] = c;
                s_ldiag[slot] = l;
                s_rdiag[slot] = r;
                s_avail[slot] = full & ~(c | l | r);
            }
        }
        counts[idx] = count;
    }
    // per-block total: every TB, busy or not, folds its threads' counts (96 -> 64 -> ... -> 1)
    s_sum[tid] = count;
    __syncthreads();
    if (tid < NQ_TB - 64)
        s_sum[tid] += s_sum[tid + 64];
    __syncthreads();
    for (int s = 32; s > 0; s >>= 1) {
        if (tid < s)
            s_sum[tid] += s_sum[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        block_sums[blockIdx.x] = s_sum[0];
}
