// The LIBOR market model valuation of one Monte-Carlo path, shared by lib.cu (LIB, the
// suite workload: Gaussian increments drawn per path) and the LIBBENCH experiment
// docs/results/darsie_lib_bench/lib_bench.cu (the GPGPU-Sim LIBOR benchmark's inputs: the
// same increments for every path). The model constants live in constant memory, declared
// here so both kernels set the same symbols.
#pragma once

#define NN_MAX 48
#define NOPT_MAX 16

__constant__ float c_lambda[NN_MAX];       // volatility of forward rate i-n-1 at step n
__constant__ int c_maturities[NOPT_MAX];   // swaption maturity, in periods after Nmat
__constant__ float c_swaprates[NOPT_MAX];  // swaption strike rates

// Evolves the N forward rates L[] (set to their initial value by the caller) over Nmat
// steps, where step n's Gaussian increment is z[n * z_stride + z_first], then returns the
// value at time zero of the Nopt receiver swaptions on the terminal rates. B[] and S[] are
// the caller's per-thread arrays (NN_MAX each) for the bond prices and annuities; the
// caller declares them beside L[] so the kernel's local-memory layout is that of one array
// declaration.
__device__ __forceinline__ float libor_path_value(float *L, float *B, float *S,
                                                  const float *z, int z_stride, int z_first,
                                                  int N, int Nmat, int Nopt, float delta)
{
    // path evolution: forward rates beyond the current step drift and diffuse
    const float sqez = sqrtf(delta);
    for (int n = 0; n < Nmat; n++) {
        const float zz = sqez * z[n * z_stride + z_first];
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
    return v;
}
