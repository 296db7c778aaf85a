// MM-WARPMAN: the WarpMan chapter's MatrixMultiply (Table 5: 8 warps per TB, 2 KB shared
// memory per TB, 6,144 registers per TB, 5 TBs per SM, register-limited), a version of MM
// (mm.cu, DARSIE Table 1's 32x32 TB) with the CUDA SDK matrixMul's 16x16 tiles.
//
// Each 16x16 thread block computes one 16x16 tile of C. It walks the row of tiles of A and
// the column of tiles of B: every thread loads one element of each tile into shared
// memory (2 x 16 x 16 floats = 2 KB), the block synchronises, every thread accumulates a
// 16-term dot product from the two shared tiles, and the block synchronises again before
// the next pair of tiles. A is hA x wA, B is wA x wB, C is hA x wB, all row-major, all
// dimensions multiples of 16.
//
// Register budget: Table 5's 6,144 registers per 256-thread TB are 24 per thread, given
// to ptxas with __maxnreg__ (ptxas -arch=sm_75 would take 39 on its own, the Turing
// compiler's choice for a 64 k-register SM); it allocates the 24 with no spill
// (mm_warpman.ptxas.yaml: spill_stores 0, spill_loads 0).

#include "mm_tiled.cuh"

#define TILE 16

extern "C" __global__ void __maxnreg__(24)
matrix_mul_sdk16(float *C, const float *A, const float *B, int wA, int wB)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    matrix_mul_tiled<TILE>(C, A, B, wA, wB, As, Bs);
}
