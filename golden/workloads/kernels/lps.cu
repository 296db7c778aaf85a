// LPS: Jacobi sweeps of the 3-D Laplace equation on a regular grid (Dirichlet boundary).
//
// Stands in for LPS (3D Laplace Solver, GPGPU-Sim third-party applications) of CAPRI
// Table 2, a divergent benchmark whose divergence is regular and patterned: a block of
// 32 x 4 threads owns a 32 x 4 column of the grid and marches along z. Each z plane of
// the column is staged in shared memory together with its one-point halo; only the
// threads on the tile's edge load the halo (the lanes 0 and 31 of every warp take the
// x halo, so every warp diverges there, every plane), and threads on the domain boundary
// keep their value while the others average their six neighbours. The same lanes diverge
// the same way in every warp and every plane: divergence compaction cannot help.
//
// Grid layout: u[(k * ny + j) * nx + i], nx a multiple of 32 and ny of 4.

#define LPS_BX 32
#define LPS_BY 4

extern "C" __global__ void laplace3d_jacobi(const float* __restrict__ u,
                                            float* __restrict__ u_new, int nx, int ny, int nz)
{
    __shared__ float plane[LPS_BY + 2][LPS_BX + 2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i = blockIdx.x * LPS_BX + tx;
    const int j = blockIdx.y * LPS_BY + ty;
    const int stride_z = nx * ny;
    const bool boundary_ij = (i == 0) || (i == nx - 1) || (j == 0) || (j == ny - 1);
    int idx = j * nx + i;

    float below = u[idx];                 // plane k - 1 (k = 0 first)
    float centre = below;
    float above = (nz > 1) ? u[idx + stride_z] : centre;
    for (int k = 0; k < nz; k++) {
        // stage plane k with its halo; halo threads clamp at the domain edge
        plane[ty + 1][tx + 1] = centre;
        if (tx == 0) {
            plane[ty + 1][0] = (i > 0) ? u[idx - 1] : centre;
        }
        if (tx == LPS_BX - 1) {
            plane[ty + 1][LPS_BX + 1] = (i < nx - 1) ? u[idx + 1] : centre;
        }
        if (ty == 0) {
            plane[0][tx + 1] = (j > 0) ? u[idx - nx] : centre;
        }
        if (ty == LPS_BY - 1) {
            plane[LPS_BY + 1][tx + 1] = (j < ny - 1) ? u[idx + nx] : centre;
        }
        __syncthreads();

        float result;
        if (boundary_ij || k == 0 || k == nz - 1) {
            result = centre;              // Dirichlet boundary: keep the value
        } else {
            float sum = plane[ty + 1][tx] + plane[ty + 1][tx + 2];
            sum = sum + plane[ty][tx + 1];
            sum = sum + plane[ty + 2][tx + 1];
            sum = sum + below;
            sum = sum + above;
            result = sum * (1.0f / 6.0f);
        }
        u_new[idx] = result;
        __syncthreads();

        below = centre;
        centre = above;
        if (k + 2 < nz) {
            above = u[idx + 2 * stride_z];
        }
        idx += stride_z;
    }
}
