// HS: transient chip temperature by an explicit finite-difference stencil, in the
// structure of the Rodinia HotSpot benchmark (DARSIE Table 1, TB (16,16)).
//
// T' = T + step/Cap * (P + (T_S + T_N - 2T)/Ry + (T_E + T_W - 2T)/Rx + (T_amb - T)/Rz)
// on a rows x cols grid whose edge cells use themselves as the missing neighbour.
// One launch advances `iteration` time steps (at most `pyramid_height`). Each 16x16 block
// loads a 16x16 tile of temperature and power into shared memory and computes a shrinking
// pyramid: after step i only the cells i+1 .. 14-i of the tile are valid, so tiles overlap
// by 2*pyramid_height cells and each block finalises a (16 - 2*pyramid_height)^2 square.
// Every thread recomputes the block's geometry and the model constants (per-block
// redundant index arithmetic); threads at pyramid and grid edges diverge.

#define BLOCK 16
#define AMB_TEMP 80.0f

#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))

extern "C" __global__ void hotspot_steps(const float *power, const float *temp_src, float *temp_dst,
                                         int cols, int rows, int iteration, int pyramid_height,
                                         float Cap, float Rx, float Ry, float Rz, float step)
{
    __shared__ float temp_on[BLOCK][BLOCK];
    __shared__ float power_on[BLOCK][BLOCK];
    __shared__ float temp_t[BLOCK][BLOCK];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const float step_div_cap = step / Cap;
    const float rx_1 = 1.0f / Rx, ry_1 = 1.0f / Ry, rz_1 = 1.0f / Rz;

    // tile geometry: tiles overlap by the halo the pyramid eats
    const int border = pyramid_height;
    const int small_block = BLOCK - 2 * pyramid_height;
    const int blk_y = small_block * blockIdx.y - border;
    const int blk_x = small_block * blockIdx.x - border;
    const int blk_y_max = blk_y + BLOCK - 1;
    const int blk_x_max = blk_x + BLOCK - 1;
    const int yidx = blk_y + ty;
    const int xidx = blk_x + tx;
    const int index = cols * yidx + xidx;

    if (IN_RANGE(yidx, 0, rows - 1) && IN_RANGE(xidx, 0, cols - 1)) {
        temp_on[ty][tx] = temp_src[index];
        power_on[ty][tx] = power[index];
    }
    __syncthreads();

    // part of the tile inside the grid; neighbours clamped to it
    const int valid_y_min = (blk_y < 0) ? -blk_y : 0;
    const int valid_y_max = (blk_y_max > rows - 1) ? BLOCK - 1 - (blk_y_max - rows + 1) : BLOCK - 1;
    const int valid_x_min = (blk_x < 0) ? -blk_x : 0;
    const int valid_x_max = (blk_x_max > cols - 1) ? BLOCK - 1 - (blk_x_max - cols + 1) : BLOCK - 1;
    int N = ty - 1, S = ty + 1, W = tx - 1, E = tx + 1;
    N = (N < valid_y_min) ? valid_y_min : N;
    S = (S > valid_y_max) ? valid_y_max : S;
    W = (W < valid_x_min) ? valid_x_min : W;
    E = (E > valid_x_max) ? valid_x_max : E;

    bool computed = false;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, BLOCK - i - 2) && IN_RANGE(ty, i + 1, BLOCK - i - 2) &&
            IN_RANGE(tx, valid_x_min, valid_x_max) && IN_RANGE(ty, valid_y_min, valid_y_max)) {
            computed = true;
            const float t = temp_on[ty][tx];
            temp_t[ty][tx] = t + step_div_cap * (power_on[ty][tx] +
                                                 (temp_on[S][tx] + temp_on[N][tx] - 2.0f * t) * ry_1 +
                                                 (temp_on[ty][E] + temp_on[ty][W] - 2.0f * t) * rx_1 +
                                                 (AMB_TEMP - t) * rz_1);
        }
        __syncthreads();
        if (i == iteration - 1)
            break;
        if (computed)
            temp_on[ty][tx] = temp_t[ty][tx];
        __syncthreads();
    }
    if (computed)
        temp_dst[index] = temp_t[ty][tx];
}
