// NW: Needleman-Wunsch global alignment scores of pairs of sequences, 32x32 tiles.
//
// Stands in for NW of the ILP chapter (Rodinia). The (n+1) x (n+1) score matrix of a pair
// is cut into 32x32 tiles; a tile depends on its upper, left and upper-left neighbours,
// so the host launches nw_tile_diagonal once per anti-diagonal of tiles, with a grid that
// grows from 1 tile to n/32 and shrinks back (blockIdx.y selects the pair when several
// pairs are aligned at once). One TB of 32 threads computes one tile:
//   1. loads the tile's top border row and left border column of scores, and builds the
//      tile's 32x32 substitution scores sub[a[i]][b[j]] (24-letter alphabet), all in
//      shared memory (33x33 + 32x32 ints = 8452 B, so one TB per 16 KB SM);
//   2. sweeps the 63 anti-diagonals of cells inside the tile: thread t owns row t and is
//      active when the diagonal crosses its row (a barrier per step); each cell is
//      max(upper-left + substitution, upper - gap, left - gap);
//   3. writes the 32x32 scores back to global memory, one row per step (coalesced).
#define NW_T 32
#define NW_ALPHABET 24

extern "C" __global__ void nw_tile_diagonal(int* score,
                                            const int* __restrict__ seq_a,
                                            const int* __restrict__ seq_b,
                                            const int* __restrict__ sub,
                                            int n, int diag, int first_tile_row, int gap)
{
    __shared__ int s[NW_T + 1][NW_T + 1];
    __shared__ int ref[NW_T][NW_T];
    int t = threadIdx.x;
    int pair = blockIdx.y;
    int tile_row = first_tile_row + blockIdx.x;
    int tile_col = diag - tile_row;
    int stride = n + 1;
    int* S = score + (size_t)pair * stride * stride;
    const int* a = seq_a + (size_t)pair * n;
    const int* b = seq_b + (size_t)pair * n;
    int row0 = tile_row * NW_T;          // the tile covers rows row0+1 .. row0+32
    int col0 = tile_col * NW_T;          // and columns col0+1 .. col0+32

    s[0][t + 1] = S[row0 * stride + col0 + 1 + t];
    s[t + 1][0] = S[(row0 + 1 + t) * stride + col0];
    if (t == 0) s[0][0] = S[row0 * stride + col0];
    int b_res = b[col0 + t];
    for (int i = 0; i < NW_T; ++i) ref[i][t] = sub[a[row0 + i] * NW_ALPHABET + b_res];
    __syncthreads();

    for (int k = 0; k < 2 * NW_T - 1; ++k) {
        int j = k - t;
        if (j >= 0 && j < NW_T) {
            int diag_score = s[t][j] + ref[t][j];
            int gap_score = max(s[t][j + 1], s[t + 1][j]) - gap;
            s[t + 1][j + 1] = max(diag_score, gap_score);
        }
        __syncthreads();
    }

    for (int i = 0; i < NW_T; ++i) S[(row0 + 1 + i) * stride + col0 + 1 + t] = s[i + 1][t + 1];
}
