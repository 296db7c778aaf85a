// FFT-ILP: the ILP chapter's FFT (ch. 4 §4.1: 64x1 TBs, 8 TBs = 16 warps per SM of the
// chapter's GTX 280-like GPU, 128 TBs in all), a version of FFT (fft.cu) with the
// same algorithm and the register budget that lets 8 TBs share the 16,384 registers of an
// SM: 16,384 / (8 x 64) = 32 per thread, given to ptxas with __maxnreg__ (ptxas
// -arch=sm_75 would take 46 on its own, which fits 5 TBs); it allocates the 32 with no
// spill (fft_ilp.ptxas.yaml). The size (128 TBs) is in golden/workloads/defs/fft_ilp.py.
//
// Batched 256-point complex FFTs (float32), one FFT per TB of 64 threads, radix-4
// Stockham autosort: four stages (4^4 = 256); in every stage thread j reads the points j,
// j+64, j+128, j+192, multiplies them by twiddles exp(-2 pi i r k / (4 Ns)) (k = j mod Ns),
// does a 4-point DFT and writes the results to (j / Ns) * 4 Ns + k + r Ns, so the output
// comes out in natural order. The stage and radix loops have compile-time trip counts and
// are fully unrolled: the kernel has no conditional branch (the chapter leaves FFT out of
// its branch-prediction accuracy for that reason). Points live in registers across a stage
// and are exchanged through one 2 KB shared buffer; twiddles come from a 256-entry table
// in global memory computed by the host in double precision.
#include "fft_radix4.cuh"

extern "C" __global__ void __maxnreg__(32) fft256_radix4_ilp(const float2* __restrict__ in,
                                         const float2* __restrict__ twiddle,
                                         float2* out)
{
    __shared__ float2 s[FFT_N];
    fft256_radix4_tb(in, twiddle, out, s);
}
