// CONV: separable 2D convolution with a 17-tap kernel, in the structure of the CUDA SDK
// convolutionTexture sample with the texture fetches replaced by global-memory loads with
// clamp-to-edge addressing (DARSIE Table 1 CONVTEX, TB (16,16)).
//
// One thread per output pixel, 16x16 blocks. convolution_rows filters along x, then
// convolution_columns filters the result along y; the filter taps are in constant memory
// and every thread clamps each tap's coordinate to the image (the texture unit's address
// mode), so index arithmetic dominates the loop.

#include "conv_separable.cuh"

extern "C" __global__ void convolution_rows(float *dst, const float *src, int w, int h)
{
    convolve_row(dst, src, w, h);
}

extern "C" __global__ void convolution_columns(float *dst, const float *src, int w, int h)
{
    convolve_column(dst, src, w, h);
}
