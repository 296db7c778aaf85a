// The shared-memory tiled matrix multiply of the CUDA SDK matrixMul, shared by mm.cu
// (MM, DARSIE Table 1's 32x32 TB) and mm_warpman.cu (MM-WARPMAN, the SDK's 16x16 tiles):
// one TILE x TILE block per TILE x TILE tile of C (the walk is described in mm.cu). The
// tiles As and Bs are the kernel's own __shared__ arrays, passed in.
#pragma once

template <int TILE>
__device__ __forceinline__ void matrix_mul_tiled(float *C, const float *A, const float *B,
                                                 int wA, int wB, float (*As)[TILE],
                                                 float (*Bs)[TILE])
{
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
