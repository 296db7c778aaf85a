// MM: dense matrix multiply C = A * B with shared-memory tiles, in the structure of the
// CUDA SDK matrixMul sample (DARSIE Table 1, TB (32,32)).
//
// Each 32x32 thread block computes one 32x32 tile of C. It walks the row of tiles of A and
// the column of tiles of B: every thread loads one element of each tile into shared
// memory, the block synchronises, every thread accumulates a 32-term dot product from the
// two shared tiles, and the block synchronises again before the next pair of tiles.
// A is hA x wA, B is wA x wB, C is hA x wB, all row-major, all dimensions multiples of 32.

#define TILE 32

extern "C" __global__ void matrix_mul(float *C, const float *A, const float *B, int wA, int wB)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;

    // first element of the first A tile of this block's tile row, last one, and step
    const int a_first = wA * TILE * blockIdx.y;
    const int a_last = a_first + wA - 1;
    const int a_step = TILE;
    // first element of the first B tile of this block's tile column, and step (one tile row)
    const int b_first = TILE * blockIdx.x;
    const int b_step = TILE * wB;

    float acc = 0.0f;
    for (int a = a_first, b = b_first; a <= a_last; a += a_step, b += b_step) {
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    const int c_first = wB * TILE * blockIdx.y + TILE * blockIdx.x;
    C[c_first + wB * ty + tx] = acc;
}
