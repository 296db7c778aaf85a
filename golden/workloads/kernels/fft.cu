// FFT: batched 256-point complex FFTs (float32), one FFT per TB of 64 threads.
//
// Stands in for FFT of the ILP chapter (64x1 TBs, 8 TBs / 16 warps per SM, "no
// conditional branches") and of UV Table 3. Radix-4 Stockham autosort formulation: four
// stages (4^4 = 256); in every stage thread j reads the points j, j+64, j+128, j+192,
// multiplies them by twiddles exp(-2 pi i r k / (4 Ns)) (k = j mod Ns), does a 4-point DFT
// and writes the results to (j / Ns) * 4 Ns + k + r Ns, so the output comes out in natural
// order without a bit-reversal pass. The stage loop and the radix loop have compile-time
// trip counts and are fully unrolled: the kernel has no conditional branch. Points live in
// registers across a stage and are exchanged through one 2 KB shared buffer (read all,
// barrier, write all, barrier). Twiddles come from a 256-entry table in global memory
// (exp(-2 pi i m / 256), computed by the host in double precision).
#include "fft_radix4.cuh"

extern "C" __global__ void fft256_radix4(const float2* __restrict__ in,
                                         const float2* __restrict__ twiddle,
                                         float2* out)
{
    __shared__ float2 s[FFT_N];
    fft256_radix4_tb(in, twiddle, out, s);
}
