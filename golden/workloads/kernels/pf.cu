// PF: PathFinder dynamic programming, several grid rows per launch ("pyramid").
//
// Stands in for PathFinder (PF) of UV Table 3, WarpMan Table 5 (8 warps per TB, 2 KB of
// shared memory per TB) and G-Scalar Table 2 (Rodinia pathfinder). Row r of the result
// is cost[r][c] = wall[r][c] + min(cost[r-1][c-1], cost[r-1][c], cost[r-1][c+1])
// (neighbours outside the grid are ignored). One launch advances `steps` rows; a TB
// keeps a 256-column window in shared memory and, because every step needs one more
// column on each side, produces only the 256 - 2 * halo inner columns. The shrinking
// valid window and the grid edges give index-dependent divergence; no data decides a
// branch (the min is a select).
#define PF_TB 256

extern "C" __global__ void pathfinder_rows(const int* __restrict__ wall,
                                           const int* __restrict__ src,
                                           int* dst,
                                           int cols,
                                           int start_row,
                                           int steps,
                                           int halo)
{
    __shared__ int prev[PF_TB];
    __shared__ int result[PF_TB];
    int tx = threadIdx.x;
    int out_cols = PF_TB - 2 * halo;              // columns this TB is responsible for
    int blk_x = out_cols * blockIdx.x - halo;     // grid column of thread 0
    int xidx = blk_x + tx;

    // the part of the window that lies inside the grid
    int valid_min = (blk_x < 0) ? -blk_x : 0;
    int valid_max = (blk_x + PF_TB - 1 > cols - 1) ? (cols - 1 - blk_x) : (PF_TB - 1);
    bool inside = tx >= valid_min && tx <= valid_max;

    if (inside) {
        prev[tx] = src[xidx];
    }
    __syncthreads();

    for (int i = 0; i < steps; ++i) {
        bool computed = false;
        if (tx >= i + 1 && tx <= PF_TB - 2 - i && inside) {
            int left = max(tx - 1, valid_min);
            int right = min(tx + 1, valid_max);
            int shortest = min(min(prev[left], prev[tx]), prev[right]);
            result[tx] = shortest + wall[(start_row + i + 1) * cols + xidx];
            computed = true;
        }
        __syncthreads();
        if (computed) {
            prev[tx] = result[tx];
        }
        __syncthreads();
    }

    if (tx >= halo && tx < PF_TB - halo && inside) {
        dst[xidx] = prev[tx];
    }
}
