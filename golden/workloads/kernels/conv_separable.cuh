// The separable 17-tap convolution shared by conv.cu (CONV) and conv_warpman.cu
// (CONV-WARPMAN): one output pixel per thread, taps in constant memory, every tap's
// coordinate clamped to the image (the texture unit's address mode; see conv.cu).
// Each kernel file declares its own entries (names, TB shape, launch bounds).
#pragma once

#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)

__constant__ float c_kernel[KERNEL_LENGTH];

__device__ __forceinline__ void convolve_row(float *dst, const float *src, int w, int h)
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

__device__ __forceinline__ void convolve_column(float *dst, const float *src, int w, int h)
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
