// Module-scope __constant__ and __device__ variables with initialisers.
__constant__ unsigned char sbox[8] = {243, 4, 17, 0, 255, 128, 7, 9};
__constant__ float coeffs[4] = {1.5f, -2.25f, 0.0f, 3.0e10f};
__constant__ int grid2d[2][3] = {{1, 2, 3}, {-4, -5, -6}};
__constant__ double dcoef[2] = {0.1, -7.0};
__constant__ short halfwords[3] = {1, -2, 30000};
__constant__ int partial[6] = {11, 22};
__constant__ long long big[2] = {0x123456789abcdefLL, -1LL};
__device__ int counter = 42;
__device__ float scratch[64];

extern "C" __global__ void const_tables(float *out, const int *idx)
{
    int i = threadIdx.x;
    int k = idx[i] & 7;
    float v = coeffs[k & 3] * sbox[k] + grid2d[k & 1][k % 3] + (float)dcoef[k & 1]
              + halfwords[k % 3] + partial[k % 6] + (float)big[k & 1];
    scratch[i & 63] = v;
    if (i == 0)
        atomicAdd(&counter, 1);
    out[i] = v + scratch[(i + 1) & 63];
}
