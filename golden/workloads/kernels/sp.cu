// SP: batched scalar (dot) products, the CUDA SDK scalarProd algorithm, in double.
//
// Stands in for ScalarProduct (SP) of UV Table 3 and SCP of the ILP chapter (CUDA SDK
// scalarProd). The algorithm, as the SDK describes it: each thread block owns whole vector
// pairs (grid-stride over pairs); a pair is first reduced by SP_ACCUM_N partial
// accumulators, accumulator k summing the products at positions k, k + SP_ACCUM_N,
// k + 2 SP_ACCUM_N, ... (so that neighbouring threads read neighbouring elements), each
// thread serving accumulators tid, tid + blockDim.x, ...; the accumulators, kept in shared
// memory, are then summed by a tree: for stride = SP_ACCUM_N/2 down to 1, after a barrier,
// accumulator k += accumulator k + stride for every k < stride, the threads again striding
// over k. Thread 0 writes the pair's result.
// Products are formed in double precision from float inputs (exact), so only the summation
// order differs from a numpy reference.
#define SP_TB 256
#define SP_ACCUM_N 1024

extern "C" __global__ void scalar_prod(const float* __restrict__ a,
                                       const float* __restrict__ b,
                                       double* result,
                                       int n_vectors,
                                       int length)
{
    __shared__ double accum[SP_ACCUM_N];
    const int tid = threadIdx.x;
    for (int vec = blockIdx.x; vec < n_vectors; vec += gridDim.x) {
        const int first = vec * length;
        const int last = first + length;
        // phase 1: SP_ACCUM_N strided partial sums of the pair
        for (int k = tid; k < SP_ACCUM_N; k += blockDim.x) {
            double sum = 0.0;
            for (int pos = first + k; pos < last; pos += SP_ACCUM_N) {
                sum += (double)a[pos] * (double)b[pos];
            }
            accum[k] = sum;
        }
        // phase 2: tree over the accumulators
        for (int stride = SP_ACCUM_N / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            for (int k = tid; k < stride; k += blockDim.x) {
                accum[k] += accum[k + stride];
            }
        }
        if (tid == 0) {
            result[vec] = accum[0];
        }
        // the next pair's phase 1 overwrites the accumulators thread 0 has just read
        __syncthreads();
    }
}
