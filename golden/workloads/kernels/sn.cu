// SN: bitonic sorting network over key/value pairs in shared memory.
//
// Stands in for SortingNetworks (SN) of WarpMan Table 5 (CUDA SDK): 16 warps per TB and
// 8 KB of shared memory per TB (1024 keys + 1024 values), one compare-exchange per
// thread per stage with a __syncthreads() between stages. Each TB sorts its own
// 1024-element segment ascending. The exchange happens only when the pair is out of
// order, so the swap is a data-dependent branch.
#define SN_TB 512
#define SN_SEG (2 * SN_TB)

extern "C" __global__ void bitonic_sort_segments(const unsigned int* __restrict__ keys_in,
                                                 const unsigned int* __restrict__ vals_in,
                                                 unsigned int* keys_out,
                                                 unsigned int* vals_out)
{
    __shared__ unsigned int s_key[SN_SEG];
    __shared__ unsigned int s_val[SN_SEG];
    int tid = threadIdx.x;
    size_t base = (size_t)blockIdx.x * SN_SEG;
    s_key[tid] = keys_in[base + tid];
    s_val[tid] = vals_in[base + tid];
    s_key[tid + SN_TB] = keys_in[base + tid + SN_TB];
    s_val[tid + SN_TB] = vals_in[base + tid + SN_TB];

    for (int size = 2; size <= SN_SEG; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            __syncthreads();
            int i = 2 * tid - (tid & (stride - 1));   // lower element of this thread's pair
            int j = i + stride;
            bool ascending = (i & size) == 0;         // direction of the bitonic subsequence
            unsigned int ki = s_key[i];
            unsigned int kj = s_key[j];
            if ((ki > kj) == ascending) {
                unsigned int vi = s_val[i];
                s_key[i] = kj;
                s_key[j] = ki;
                s_val[i] = s_val[j];
                s_val[j] = vi;
            }
        }
    }
    __syncthreads();
    keys_out[base + tid] = s_key[tid];
    vals_out[base + tid] = s_val[tid];
    keys_out[base + tid + SN_TB] = s_key[tid + SN_TB];
    vals_out[base + tid + SN_TB] = s_val[tid + SN_TB];
}
