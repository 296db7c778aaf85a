// SP: batched scalar (dot) products with a shared-memory tree reduction in double.
//
// Stands in for ScalarProduct (SP) of UV Table 3 and SCP of the ILP chapter (CUDA SDK):
// each thread block owns whole vector pairs (grid-stride over pairs), every thread
// accumulates a strided partial sum, then the block halves the active range each step
// (`if (tid < s)`, the classic reduction whose last steps leave most lanes idle).
// Products are formed in double precision from float inputs (exact), so only the
// summation order differs from a numpy reference.
#define SP_TB 256

extern "C" __global__ void scalar_prod(const float* __restrict__ a,
                                       const float* __restrict__ b,
                                       double* result,
                                       int n_vectors,
                                       int length)
{
    __shared__ double partial[SP_TB];
    int tid = threadIdx.x;
    for (int vec = blockIdx.x; vec < n_vectors; vec += gridDim.x) {
        const float* va = a + (size_t)vec * length;
        const float* vb = b + (size_t)vec * length;
        double sum = 0.0;
        for (int i = tid; i < length; i += blockDim.x) {
            sum += (double)va[i] * (double)vb[i];
        }
        partial[tid] = sum;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (tid < s) {
                partial[tid] += partial[tid + s];
            }
            __syncthreads();
        }
        if (tid == 0) {
            result[vec] = partial[0];
        }
        __syncthreads();
    }
}
