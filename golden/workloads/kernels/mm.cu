// MM: dense matrix multiply C = A * B with shared-memory tiles, in the structure of the
// CUDA SDK matrixMul sample (DARSIE Table 1, TB (32,32)).
//
// Each 32x32 thread block computes one 32x32 tile of C. It walks the row of tiles of A and
// the column of tiles of B: every thread loads one element of each tile into shared
// memory, the block synchronises, every thread accumulates a 32-term dot product from the
// two shared tiles, and the block synchronises again before the next pair of tiles.
// A is hA x wA, B is wA x wB, C is hA x wB, all row-major, all dimensions multiples of 32.

#include "mm_tiled.cuh"

#define TILE 32

extern "C" __global__ void matrix_mul(float *C, const float *A, const float *B, int wA, int wB)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    matrix_mul_tiled<TILE>(C, A, B, wA, wB, As, Bs);
}
