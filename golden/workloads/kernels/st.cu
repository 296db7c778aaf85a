// ST: 3-D 7-point Jacobi stencil, one thread per (x, y) column walking z (register tiling).
//
// Stands in for Stencil (ST) of G-Scalar Table 2 (Parboil stencil) and of WarpMan
// Table 5 / §3.3 (dissertation ch. 3). The algorithm is Parboil's 2-D-block register
// tiling: a 2-D thread block covers a tile of (x, y) columns; a thread whose column is
// inside the grid's interior (the guard of the chapter's Fig. 24:
// i > 0 && j > 0 && i < nx - 1 && j < ny - 1) walks z from 1 to nz - 2, keeping the
// points below, at and above its current plane in registers, so each step loads one new
// point along z plus the four in-plane neighbours. Every other thread has nothing to do
// and leaves at once: with (32, 32) thread blocks (32 warps, one warp per row y) and a
// grid only a few rows high, most warps of a TB are such early finishers -- §3.3's two
// warp types of ST (program-dependent workload imbalance).
//
// out = c1 * (sum of the six face neighbours) - c0 * centre on interior points. The
// boundary is never written: the host starts both ping-pong buffers as copies of the
// input, as Parboil does, so boundary points keep their values. A time step is one
// launch. No shared memory; 32-bit indices, one input and one output pointer walking z
// and a loop that is not unrolled keep the kernel register-lean, towards Parboil's
// (Table 5: 17 registers per thread).
extern "C" __global__ void stencil7_zwalk(const float* __restrict__ in,
                                          float* __restrict__ out,
                                          int nx, int ny, int nz,
                                          float c0, float c1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > 0 && j > 0 && i < nx - 1 && j < ny - 1) {
        int plane = nx * ny;                        // 32-bit indices, as Parboil's
        const float* p = in + (j * nx + i + plane); // (i, j, k = 1)
        float* q = out + (j * nx + i + plane);
        float below = p[-plane];
        float centre = p[0];
#pragma unroll 1
        for (int k = 1; k < nz - 1; ++k) {
            float above = p[plane];
            // summed pairwise: two loads in flight before each first use
            float sum = ((p[-1] + p[1]) + (p[-nx] + p[nx])) + (below + above);
            *q = c1 * sum - c0 * centre;
            below = centre;
            centre = above;
            p += plane;
            q += plane;
        }
    }
}
