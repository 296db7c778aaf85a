// LIB: LIBOR market model Monte-Carlo valuation of a portfolio of swaptions, in the
// structure of the LIBOR benchmark of the GPGPU-Sim distribution (DARSIE Table 1,
// TB (256,1); CAPRI Table 2, non-divergent).
//
// One thread per Monte-Carlo path, 256 threads per block, no shared memory and no
// barriers. Each thread evolves N forward rates L[] (a per-thread array in local memory)
// over Nmat time steps driven by the Gaussian increments z[step][path], then values Nopt
// swaptions (maturities and swap rates in constant memory; the payoff branch depends on
// the path) and discounts the total back to time zero.

#include "libor_path.cuh"

extern "C" __global__ void libor_portfolio(const float *z, float *value, int npath, int N,
                                           int Nmat, int Nopt, float delta, float L0)
{
    const int path = blockIdx.x * blockDim.x + threadIdx.x;
    if (path >= npath)
        return;

    float L[NN_MAX], B[NN_MAX], S[NN_MAX];
    for (int i = 0; i < N; i++)
        L[i] = L0;
    value[path] = libor_path_value(L, B, S, z, npath, path, N, Nmat, Nopt, delta);
}
