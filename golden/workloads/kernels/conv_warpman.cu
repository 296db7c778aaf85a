// CONV-WARPMAN: the WarpMan chapter's ConvolutionTexture (CT; Table 5: 6 warps per TB, no
// shared memory, 7 TBs per SM, register-limited; §3.3: 512 registers of the 32 k left
// unused), a version of CONV (conv.cu, DARSIE Table 1's 16x16 TB) with the CUDA SDK
// convolutionTexture's 16x12 thread blocks (192 threads = 6 warps).
//
// Separable 17-tap convolution, one thread per output pixel: convolution_rows_ct filters
// along x, then convolution_columns_ct filters the result along y. The taps are in
// constant memory; texture fetches are replaced by global-memory loads whose coordinates
// are clamped to the image per tap (the texture unit's clamp address mode), as in CONV.
//
// Register budget: 24 per thread (4,608 per TB: 7 TBs use 32,256 of 32,768 registers and
// leave §3.3's 512), given to ptxas with __maxnreg__ (ptxas -arch=sm_75 would take 35 on
// its own); it allocates the 24 with no spill (conv_warpman.ptxas.yaml). Table 5's own
// 3,068 registers per TB would not make 7 TBs register-limited (paper-facts §3.4 ⚠).

#include "conv_separable.cuh"

extern "C" __global__ void __maxnreg__(24)
convolution_rows_ct(float *dst, const float *src, int w, int h)
{
    convolve_row(dst, src, w, h);
}

extern "C" __global__ void __maxnreg__(24)
convolution_columns_ct(float *dst, const float *src, int w, int h)
{
    convolve_column(dst, src, w, h);
}
