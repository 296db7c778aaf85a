// MM-UV: UV Table 3's Matrix multiply (MM), a version of MM (mm.cu, DARSIE Table 1's 32x32
// TB) with the CUDA SDK matrixMul's 16x16 tiles, at the sample's own input (Table 3's
// "(128,80)": C of 128 columns and 80 rows).
//
// Each 16x16 thread block computes one 16x16 tile of C, walking the row of tiles of A and
// the column of tiles of B: every thread loads one element of each tile into shared memory,
// the block synchronises, every thread accumulates a 16-term dot product from the two
// shared tiles, and the block synchronises again before the next pair of tiles (the walk
// is mm_tiled.cuh's, shared with MM and MM-WARPMAN). Unlike MM-WARPMAN (WarpMan Table 5's
// 24-register budget) the register count is ptxas's own: UV states none.

#include "mm_tiled.cuh"

#define TILE 16

extern "C" __global__ void matrix_mul_uv16(float *C, const float *A, const float *B, int wA, int wB)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    matrix_mul_tiled<TILE>(C, A, B, wA, wB, As, Bs);
}
