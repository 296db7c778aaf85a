// CONV: separable 2D convolution with a 17-tap kernel, in the structure of the CUDA SDK
// convolutionTexture sample with the texture fetches replaced by global-memory loads with
// clamp-to-edge addressing (DARSIE Table 1 CONVTEX, TB (16,16)).
//
// One thread per output pixel, 16x16 blocks. convolution_rows filters along x, then
// convolution_columns filters the result along y; the filter taps are in constant memory
// and every thread clamps each tap's coordinate to the image (the texture unit's address
// mode), so index arithmetic dominates the loop.

#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)

__constant__ float c_kernel[KERNEL_LENGTH];

extern "C" __global__ void convolution_rows(float *dst, const float *src, int w, int h)
{
    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix >= w || iy >= h)
        return;
    float sum = 0.0f;
#pragma unroll
    for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; k++) {
        const int x = min(max(ix + k, 0), w - 1);
        sum += src[iy * w + x] * c_kernel[KERNEL_RADIUS - k];
    }
    dst[iy * w + ix] = sum;
}

extern "C" __global__ void convolution_columns(float *dst, const float *src, int w, int h)
{
    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const int iy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ix >= w || iy >= h)
        return;
    float sum = 0.0f;
#pragma unroll
    for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; k++) {
        const int y = min(max(iy + k, 0), h - 1);
        sum += src[y * w + ix] * c_kernel[KERNEL_RADIUS - k];
    }
    dst[iy * w + ix] = sum;
}
