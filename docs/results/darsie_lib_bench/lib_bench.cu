// EXPERIMENT (issue 67.6): lib.cu with the published benchmark's inputs: z[i] = const for
// every path, generated in the kernel (GPGPU-Sim ISPASS'09 LIBOR: z[i] = 0.3, L[i] = 0.05).
// The path valuation is LIB's own (golden/workloads/kernels/libor_path.cuh); only the
// increments differ. Built, in this folder, as LIB is:
//     nvcc -ptx -arch=sm_75 -o lib_bench.ptx lib_bench.cu
// LIB: LIBOR market model Monte-Carlo valuation of a portfolio of swaptions, in the
// structure of the LIBOR benchmark of the GPGPU-Sim distribution (DARSIE Table 1,
// TB (256,1); CAPRI Table 2, non-divergent).
//
// One thread per Monte-Carlo path, 256 threads per block, no shared memory and no
// barriers. Each thread evolves N forward rates L[] (a per-thread array in local memory)
// over Nmat time steps driven by the Gaussian increments z[step][path], then values Nopt
// swaptions (maturities and swap rates in constant memory; the payoff branch depends on
// the path) and discounts the total back to time zero.

#include "../../../golden/workloads/kernels/libor_path.cuh"

extern "C" __global__ void libor_portfolio_bench(float *value, int npath, int N,
                                           int Nmat, int Nopt, float delta, float L0, float z0)
{
    const int path = blockIdx.x * blockDim.x + threadIdx.x;
    if (path >= npath)
        return;

    float L[NN_MAX], B[NN_MAX], S[NN_MAX], z[NN_MAX];
    // as the GPGPU-Sim distribution's LIBOR: every path gets the same increments
    for (int i = 0; i < N; i++) {
        z[i] = z0;
        L[i] = L0;
    }

    value[path] = libor_path_value(L, B, S, z, 1, 0, N, Nmat, Nopt, delta);
}
