// 3D blocks and grids, dynamic (extern) shared memory, a per-thread local array,
// warp intrinsics and clock reads.
extern "C" __global__ void block3d(int *out, int sel)
{
    extern __shared__ int sdata[];
    int lin = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int blk = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int buf[8];
    for (int k = 0; k < 8; ++k) buf[k] = lin * k + blk;
    sdata[lin] = buf[sel & 7];
    __syncthreads();
    int nthreads = blockDim.x * blockDim.y * blockDim.z;
    int v = sdata[(lin + 1) % nthreads];
    unsigned ballot = __ballot_sync(0xffffffffu, v & 1);
    v += __shfl_down_sync(0xffffffffu, v, 1);
    v += __popc(ballot) + __clz(v) + __brev(v);
    long long t0 = clock64();
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    out[blk * nthreads + lin] = v + (int)(t0 & 0) + (int)lane;
}
