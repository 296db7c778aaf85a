// BIN: European call options priced on a binomial tree, in the structure of the CUDA SDK
// binomialOptions sample (DARSIE Table 1, TB (256,1)).
//
// One 256-thread block prices one option. The host precomputes per-option data (spot S,
// strike X, vDt = V*sqrt(T/N), and the discounted up/down probabilities puByDf, pdByDf),
// stored as 5 floats per option; every thread of the block reads the same five values.
// The block writes the N+1 payoffs at expiry into shared memory, then walks the tree back
// N steps: at step j the nodes i < j become puByDf*v[i+1] + pdByDf*v[i]. Each thread
// handles nodes tid, tid+256, ...; the two shared buffers alternate, one barrier per step.

#define THREADS 256
#define MAX_STEPS 1024

extern "C" __global__ void binomial_options(float *call_value, const float *option_data,
                                            int num_steps)
{
    __shared__ float node[2][MAX_STEPS + 1];

    const int tid = threadIdx.x;
    const float *opt = option_data + 5 * blockIdx.x;
    const float S = opt[0];
    const float X = opt[1];
    const float vDt = opt[2];
    const float puByDf = opt[3];
    const float pdByDf = opt[4];

    // payoff max(S*exp(vDt*(2i-N)) - X, 0) at each leaf
    for (int i = tid; i <= num_steps; i += THREADS) {
        float price = S * expf(vDt * (float)(2 * i - num_steps)) - X;
        node[0][i] = price > 0.0f ? price : 0.0f;
    }
    __syncthreads();

    int src = 0;
    for (int step = num_steps; step > 0; --step) {
        for (int i = tid; i < step; i += THREADS)
            node[src ^ 1][i] = puByDf * node[src][i + 1] + pdByDf * node[src][i];
        src ^= 1;
        __syncthreads();
    }
    if (tid == 0)
        call_value[blockIdx.x] = node[src][0];
}
