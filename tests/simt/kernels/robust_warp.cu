// Robustness battery: warp intrinsics, fences, 3D geometry, shared memory layouts, reductions.
extern "C" __global__ void warp_ops(const int* v, int* o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int x = (i < n) ? v[i] : 0;
    unsigned full = 0xffffffffu;
    int s = x;
    for (int m = 16; m > 0; m >>= 1) s += __shfl_xor_sync(full, s, m);
    int scan = x;
    for (int d = 1; d < 32; d <<= 1) {
        int t = __shfl_up_sync(full, scan, d);
        if (lane >= d) scan += t;
    }
    int down = __shfl_down_sync(full, x, 3);
    int bc = __shfl_sync(full, x, 5);
    unsigned bal = __ballot_sync(full, x > 50);
    int any = __any_sync(full, x > 95);
    int all = __all_sync(full, x >= 0);
    unsigned act = 0;
    if (x & 1) act = __activemask();
    __syncwarp();
    unsigned part = 0;
    if (x & 1) part = __ballot_sync(__activemask(), x > 30);
    __threadfence();
    __threadfence_block();
    if (i < n) {
        int* p = o + 10 * i;
        p[0] = s; p[1] = scan; p[2] = down; p[3] = bc; p[4] = (int)bal; p[5] = __popc(bal);
        p[6] = any; p[7] = all; p[8] = (int)act; p[9] = (int)part;
    }
}

extern "C" __global__ void grid3d(int* out, int* ids, int nx, int ny, int nz)
{
    // 3D grid of 3D blocks, with a grid-stride loop in z
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    for (int z = blockIdx.z * blockDim.z + threadIdx.z; z < nz; z += gridDim.z * blockDim.z) {
        if (x < nx && y < ny) {
            int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
            int bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
            out[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z;
            ids[(z * ny + y) * nx + x] = tid + 1000 * bid;
        }
    }
}

extern "C" __global__ void grid2d_stride(const int* a, int* out, int w, int h)
{
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y)
        for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < w; x += gridDim.x * blockDim.x)
            out[x * h + y] = a[y * w + x] * 2 + 1;   // transpose
}

extern "C" __global__ void dyn_shared_multi(const float* a, const int* b, float* out, int n)
{
    extern __shared__ unsigned char smem[];
    float* fs = (float*)smem;
    int* is = (int*)(fs + blockDim.x);
    short* ss = (short*)(is + blockDim.x);
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    fs[t] = i < n ? a[i] : 0.0f;
    is[t] = i < n ? b[i] : 0;
    ss[t] = (short)(t * 3);
    __syncthreads();
    int r = blockDim.x - 1 - t;
    if (i < n) out[i] = fs[r] * (float)is[(t + 1) % blockDim.x] + (float)ss[r];
}

extern "C" __global__ void tile_transpose(const float* in, float* out, int w, int h)
{
    __shared__ float tile[16][17];
    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
    __syncthreads();
    x = blockIdx.y * 16 + threadIdx.x;
    y = blockIdx.x * 16 + threadIdx.y;
    if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}

extern "C" __global__ void tree_reduce(const float* in, float* out, double* dout, int n)
{
    __shared__ float s[256];
    __shared__ double sd[256];
    int t = threadIdx.x;
    float acc = 0.0f;
    double dacc = 0.0;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) {
        acc += in[i];
        dacc += (double)in[i];
    }
    s[t] = acc; sd[t] = dacc;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) { s[t] += s[t + stride]; sd[t] += sd[t + stride]; }
        __syncthreads();
    }
    if (t == 0) { out[blockIdx.x] = s[0]; dout[blockIdx.x] = sd[0]; }
}
