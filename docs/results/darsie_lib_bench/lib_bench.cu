// EXPERIMENT (issue 67.6): lib.cu with the published benchmark's inputs: z[i] = const for
// every path, generated in the kernel (GPGPU-Sim ISPASS'09 LIBOR: z[i] = 0.3, L[i] = 0.05).
// LIB: LIBOR market model Monte-Carlo valuation of a portfolio of swaptions, in the
// structure of the LIBOR benchmark of the GPGPU-Sim distribution (DARSIE Table 1,
// TB (256,1); CAPRI Table 2, non-divergent).
//
// One thread per Monte-Carlo path, 256 threads per block, no shared memory and no
// barriers. Each thread evolves N forward rates L[] (a per-thread array in local memory)
// over Nmat time steps driven by the Gaussian increments z[step][path], then values Nopt
// swaptions (maturities and swap rates in constant memory; the payoff branch depends on
// the path) and discounts the total back to time zero.

#define NN_MAX 48
#define NOPT_MAX 16

__constant__ float c_lambda[NN_MAX];       // volatility of forward rate i-n-1 at step n
__constant__ int c_maturities[NOPT_MAX];   // swaption maturity, in periods after Nmat
__constant__ float c_swaprates[NOPT_MAX];  // swaption strike rates

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

    // path evolution: forward rates beyond the current step drift and diffuse
    const float sqez = sqrtf(delta);
    for (int n = 0; n < Nmat; n++) {
        const float zz = sqez * z[n];
        float v = 0.0f;
        for (int i = n + 1; i < N; i++) {
            const float lam = c_lambda[i - n - 1];
            const float con1 = delta * lam;
            v += con1 * L[i] / (1.0f + delta * L[i]);
            const float vrat = expf(con1 * v + lam * (zz - 0.5f * con1));
            L[i] = L[i] * vrat;
        }
    }

    // zero-coupon bond prices B and annuities S from the terminal rates
    float b = 1.0f, s = 0.0f;
    for (int n = Nmat; n < N; n++) {
        b = b / (1.0f + delta * L[n]);
        s = s + delta * b;
        B[n] = b;
        S[n] = s;
    }

    // portfolio of receiver swaptions: only in-the-money ones pay
    float v = 0.0f;
    for (int i = 0; i < Nopt; i++) {
        const int m = c_maturities[i] + Nmat - 1;
        const float swapval = B[m] + c_swaprates[i] * S[m] - 1.0f;
        if (swapval < 0.0f)
            v += -100.0f * swapval;
    }

    // discount back over the first Nmat periods
    for (int n = 0; n < Nmat; n++)
        v = v / (1.0f + delta * L[n]);
    value[path] = v;
}
