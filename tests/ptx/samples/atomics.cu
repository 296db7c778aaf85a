// Shared-memory histogram with atomics, then global atomics of several kinds.
extern "C" __global__ void histogram(const unsigned *in, unsigned *hist, int *stats, int n)
{
    __shared__ unsigned local_hist[64];
    int t = threadIdx.x;
    if (t < 64) local_hist[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) {
        unsigned v = in[i];
        atomicAdd(&local_hist[v & 63], 1u);
        atomicMax(&stats[0], (int)v);
        atomicMin(&stats[1], (int)v);
        atomicOr((unsigned *)&stats[2], v);
        atomicCAS(&stats[3], 0, (int)v);
        atomicExch(&stats[4], (int)t);
        atomicInc((unsigned *)&stats[5], 1000u);
    }
    __syncthreads();
    if (t < 64) atomicAdd(&hist[t], local_hist[t]);
}
