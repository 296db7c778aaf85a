// LUD: blocked LU decomposition without pivoting, in place (Rodinia lud structure).
//
// Stands in for lud of the locality chapter (dissertation ch. 5). The n x n row-major
// matrix is cut into 16x16 tiles; step s (offset o = 16 s) takes three launches, all with
// 16x16 TBs:
//   * lud_diagonal: one TB factors the diagonal tile A[o:o+16, o:o+16] = L U in shared
//     memory (unit lower L below the diagonal, U on and above it), a barrier per column;
//   * lud_perimeter: one TB per tile to the right of / below the diagonal tile (n/16-1-s
//     TBs): TB b loads the diagonal tile, the row tile A[o:o+16, o+16(b+1):...] and the
//     column tile A[o+16(b+1):..., o:o+16] (3 tiles, 3 KB of shared memory) and solves
//     U_row = L^-1 A_row (forward substitution down the rows) and L_col = A_col U^-1
//     (column by column) with one warp, a thread per column / row, writing both back;
//   * lud_internal: one TB per trailing tile ((n/16-1-s)^2 TBs) loads its tile's slice of
//     the column perimeter (L) and of the row perimeter (U) into shared memory and
//     subtracts their 16-term product from its element (the rank-16 trailing update).
// After the last step the host factors the last diagonal tile. Every launch of a step
// re-reads tiles the previous launch wrote; perimeter TBs all re-read the same diagonal
// tile, internal TBs of a row (column) the same L (U) tile.
#define LUD_BS 16

extern "C" __global__ void lud_diagonal(float* a, int n, int offset)
{
    __shared__ float dia[LUD_BS][LUD_BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    float* tile = a + (size_t)offset * n + offset;
    dia[ty][tx] = tile[ty * n + tx];
    for (int k = 0; k < LUD_BS - 1; ++k) {
        __syncthreads();
        if (ty > k && tx == k) dia[ty][k] /= dia[k][k];
        __syncthreads();
        if (ty > k && tx > k) dia[ty][tx] -= dia[ty][k] * dia[k][tx];
    }
    __syncthreads();
    tile[ty * n + tx] = dia[ty][tx];
}

extern "C" __global__ void lud_perimeter(float* a, int n, int offset)
{
    __shared__ float dia[LUD_BS][LUD_BS];
    __shared__ float row[LUD_BS][LUD_BS];
    __shared__ float col[LUD_BS][LUD_BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int far = offset + (blockIdx.x + 1) * LUD_BS;
    float* d_tile = a + (size_t)offset * n + offset;
    float* r_tile = a + (size_t)offset * n + far;
    float* c_tile = a + (size_t)far * n + offset;
    dia[ty][tx] = d_tile[ty * n + tx];
    row[ty][tx] = r_tile[ty * n + tx];
    col[ty][tx] = c_tile[ty * n + tx];
    __syncthreads();
    // one warp solves, as in Rodinia: lanes 0-15 a column of the row tile each, lanes
    // 16-31 a row of the column tile each; the other warps wait at the barrier. Both
    // triangular loops are unrolled (fixed 16x16 tile), so a solve is straight-line code.
    int tid = ty * LUD_BS + tx;
    if (tid < LUD_BS) {
        // U_row = L^-1 A_row, forward substitution down column tid (L has a unit diagonal)
#pragma unroll
        for (int i = 1; i < LUD_BS; ++i) {
            float v = row[i][tid];
#pragma unroll
            for (int k = 0; k < i; ++k) v -= dia[i][k] * row[k][tid];
            row[i][tid] = v;
        }
    } else if (tid < 2 * LUD_BS) {
        // L_col = A_col U^-1, along row r of the column tile
        int r = tid - LUD_BS;
#pragma unroll
        for (int j = 0; j < LUD_BS; ++j) {
            float v = col[r][j];
#pragma unroll
            for (int k = 0; k < j; ++k) v -= col[r][k] * dia[k][j];
            col[r][j] = v / dia[j][j];
        }
    }
    __syncthreads();
    r_tile[ty * n + tx] = row[ty][tx];
    c_tile[ty * n + tx] = col[ty][tx];
}

extern "C" __global__ void lud_internal(float* a, int n, int offset)
{
    __shared__ float l[LUD_BS][LUD_BS];
    __shared__ float u[LUD_BS][LUD_BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int r = offset + (blockIdx.y + 1) * LUD_BS + ty;
    int c = offset + (blockIdx.x + 1) * LUD_BS + tx;
    l[ty][tx] = a[(size_t)r * n + offset + tx];
    u[ty][tx] = a[(size_t)(offset + ty) * n + c];
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < LUD_BS; ++k) sum += l[ty][k] * u[k][tx];
    a[(size_t)r * n + c] -= sum;
}
