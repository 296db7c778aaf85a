// ST: 3-D 7-point Jacobi stencil on a shared-memory tile, 3-D thread blocks (8, 8, 4).
//
// Stands in for Stencil (ST) of G-Scalar Table 2 (Parboil stencil) and WarpMan Table 5:
// out = c0 * in + c1 * (sum of the six face neighbours) on interior points; points on
// the grid boundary are copied. Each TB stages its 8 x 8 x 4 tile plus a one-point halo
// in shared memory; the threads on a tile face also fetch the halo point beyond it
// (`if (tx == 0)` and friends: index-dependent divergence of the kind CAPRI calls
// compaction-ineffective). A time step is one launch (ping-pong buffers).
#define ST_BX 8
#define ST_BY 8
#define ST_BZ 4

extern "C" __global__ void stencil7(const float* __restrict__ in,
                                    float* __restrict__ out,
                                    int nx, int ny, int nz,
                                    float c0, float c1)
{
    __shared__ float tile[ST_BZ + 2][ST_BY + 2][ST_BX + 2];
    int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    int x = blockIdx.x * ST_BX + tx;
    int y = blockIdx.y * ST_BY + ty;
    int z = blockIdx.z * ST_BZ + tz;
    bool inside = x < nx && y < ny && z < nz;
    size_t plane = (size_t)nx * ny;
    size_t idx = (size_t)z * plane + (size_t)y * nx + x;

    if (inside) {
        tile[tz + 1][ty + 1][tx + 1] = in[idx];
        // halo: face threads also load the neighbour beyond their face, if it exists
        if (tx == 0 && x > 0) tile[tz + 1][ty + 1][0] = in[idx - 1];
        if (tx == ST_BX - 1 && x + 1 < nx) tile[tz + 1][ty + 1][ST_BX + 1] = in[idx + 1];
        if (ty == 0 && y > 0) tile[tz + 1][0][tx + 1] = in[idx - nx];
        if (ty == ST_BY - 1 && y + 1 < ny) tile[tz + 1][ST_BY + 1][tx + 1] = in[idx + nx];
        if (tz == 0 && z > 0) tile[0][ty + 1][tx + 1] = in[idx - plane];
        if (tz == ST_BZ - 1 && z + 1 < nz) tile[ST_BZ + 1][ty + 1][tx + 1] = in[idx + plane];
    }
    __syncthreads();
    if (!inside) {
        return;
    }
    float centre = tile[tz + 1][ty + 1][tx + 1];
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        out[idx] = centre;           // fixed boundary
        return;
    }
    float neighbours = tile[tz + 1][ty + 1][tx] + tile[tz + 1][ty + 1][tx + 2]
                     + tile[tz + 1][ty][tx + 1] + tile[tz + 1][ty + 2][tx + 1]
                     + tile[tz][ty + 1][tx + 1] + tile[tz + 2][ty + 1][tx + 1];
    out[idx] = c0 * centre + c1 * neighbours;
}
