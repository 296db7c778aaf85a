// DCT: 8x8 two-dimensional DCT-II of an image and its inverse, in the structure of the
// CUDA SDK dct8x8 sample's first kernel (DARSIE Table 1 "DCT8x8", TB (8,8)).
//
// One 8x8 block per 8x8 image block, one thread per coefficient. The block loads its
// pixels into shared memory, then every thread computes an 8-term dot product along its
// row with the DCT basis from constant memory, the block synchronises, and every thread
// computes an 8-term dot product down its column. Forward: Y = C X C^T; inverse:
// X = C^T Y C, where C[k][n] = c_k cos((2n+1) k pi / 16), c_0 = sqrt(1/8), c_k = 1/2.

#define BS 8

__constant__ float c_dct[BS * BS] = {
    0.35355338f, 0.35355338f, 0.35355338f, 0.35355338f, 0.35355338f, 0.35355338f, 0.35355338f, 0.35355338f,
    0.49039263f, 0.4157348f, 0.27778512f, 0.09754516f, -0.09754516f, -0.27778512f, -0.4157348f, -0.49039263f,
    0.46193975f, 0.19134171f, -0.19134171f, -0.46193975f, -0.46193975f, -0.19134171f, 0.19134171f, 0.46193975f,
    0.4157348f, -0.09754516f, -0.49039263f, -0.27778512f, 0.27778512f, 0.49039263f, 0.09754516f, -0.4157348f,
    0.35355338f, -0.35355338f, -0.35355338f, 0.35355338f, 0.35355338f, -0.35355338f, -0.35355338f, 0.35355338f,
    0.27778512f, -0.49039263f, 0.09754516f, 0.4157348f, -0.4157348f, -0.09754516f, 0.49039263f, -0.27778512f,
    0.19134171f, -0.46193975f, 0.46193975f, -0.19134171f, -0.19134171f, 0.46193975f, -0.46193975f, 0.19134171f,
    0.09754516f, -0.27778512f, 0.4157348f, -0.49039263f, 0.49039263f, -0.4157348f, 0.27778512f, -0.09754516f,
};

extern "C" __global__ void dct8x8_forward(float *dst, const float *src, int stride)
{
    __shared__ float block[BS][BS];
    __shared__ float rows[BS][BS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int offset = (blockIdx.y * BS + ty) * stride + blockIdx.x * BS + tx;

    block[ty][tx] = src[offset];
    __syncthreads();
    // row transform: rows[ty][tx] = sum_n C[tx][n] * block[ty][n]
    float acc = 0.0f;
    for (int n = 0; n < BS; n++)
        acc += c_dct[tx * BS + n] * block[ty][n];
    rows[ty][tx] = acc;
    __syncthreads();
    // column transform: out[ty][tx] = sum_n C[ty][n] * rows[n][tx]
    acc = 0.0f;
    for (int n = 0; n < BS; n++)
        acc += c_dct[ty * BS + n] * rows[n][tx];
    dst[offset] = acc;
}

extern "C" __global__ void dct8x8_inverse(float *dst, const float *src, int stride)
{
    __shared__ float block[BS][BS];
    __shared__ float rows[BS][BS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int offset = (blockIdx.y * BS + ty) * stride + blockIdx.x * BS + tx;

    block[ty][tx] = src[offset];
    __syncthreads();
    // row transform: rows[ty][tx] = sum_k C[k][tx] * block[ty][k]
    float acc = 0.0f;
    for (int k = 0; k < BS; k++)
        acc += c_dct[k * BS + tx] * block[ty][k];
    rows[ty][tx] = acc;
    __syncthreads();
    // column transform: out[ty][tx] = sum_k C[k][ty] * rows[k][tx]
    acc = 0.0f;
    for (int k = 0; k < BS; k++)
        acc += c_dct[k * BS + ty] * rows[k][tx];
    dst[offset] = acc;
}
