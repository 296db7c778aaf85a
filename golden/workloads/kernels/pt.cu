// PT: minimum-cost path through a grid of weights, row by row, in the structure of the
// Rodinia pathfinder benchmark (DARSIE Table 1, TB (1024,1)).
//
// cost[r][c] = wall[r][c] + min(cost[r-1][c-1], cost[r-1][c], cost[r-1][c+1]) with the
// neighbours clamped at the grid edges. One launch advances `iteration` rows (at most
// `pyramid_height`). Each 1024-thread block loads 1024 consecutive columns of the previous
// row into shared memory and computes a shrinking pyramid: after step i only threads
// i+1 .. 1022-i hold valid values, so consecutive blocks overlap by 2*pyramid_height
// columns and each block finalises 1024 - 2*pyramid_height of them. Threads outside the
// grid (first and last block) are masked by the valid range, and the pyramid edges make
// warps diverge.

#define BLOCK 1024

extern "C" __global__ void pathfinder_rows(const int *wall, const int *src, int *dst, int cols,
                                           int start_row, int iteration, int pyramid_height)
{
    __shared__ int prev[BLOCK];
    __shared__ int result[BLOCK];

    const int tx = threadIdx.x;
    const int border = pyramid_height;
    const int block_cols = BLOCK - 2 * pyramid_height;   // columns finalised per block
    const int blk_x = block_cols * blockIdx.x - border;  // grid column of thread 0
    const int blk_x_max = blk_x + BLOCK - 1;
    const int xidx = blk_x + tx;

    // threads whose column lies inside the grid
    const int valid_min = (blk_x < 0) ? -blk_x : 0;
    const int valid_max = (blk_x_max > cols - 1) ? BLOCK - 1 - (blk_x_max - cols + 1) : BLOCK - 1;
    const bool inside = tx >= valid_min && tx <= valid_max;

    // shared-memory neighbours, clamped to the valid range (grid edges repeat themselves)
    int west = tx - 1;
    int east = tx + 1;
    if (west < valid_min) west = valid_min;
    if (east > valid_max) east = valid_max;

    if (xidx >= 0 && xidx < cols)
        prev[tx] = src[xidx];
    __syncthreads();

    bool computed = false;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (tx >= i + 1 && tx <= BLOCK - i - 2 && inside) {
            computed = true;
            int best = prev[west];
            int up = prev[tx];
            int right = prev[east];
            if (up < best) best = up;
            if (right < best) best = right;
            result[tx] = best + wall[cols * (start_row + i + 1) + xidx];
        }
        __syncthreads();
        if (i == iteration - 1)
            break;
        if (computed)
            prev[tx] = result[tx];
        __syncthreads();
    }
    if (computed)
        dst[xidx] = result[tx];
}
