// LPS: Jacobi sweeps of the 3-D Laplace equation on a regular grid (Dirichlet boundary).
//
// Stands in for LPS (3D Laplace Solver, GPGPU-Sim's ispass2009 benchmarks) of CAPRI
// Table 2, a divergent benchmark whose divergence is regular and patterned. The
// algorithm is the original's: a block of 32 x 4 threads, one thread per (i, j) column
// of the grid, each thread marching along z and computing one point per plane straight
// from global memory (six neighbour loads, no shared memory). Threads past the domain's
// x or y edge are inactive: they run only the z loop's control, so with nx = 100 the
// last column of blocks issues its loop body with 4 of 32 lanes. Points on the domain
// boundary keep their value (lane 0 of the first column of blocks, the last active lane
// of the last one, whole warps on the j = 0 / ny - 1 rows and the k = 0 / nz - 1 planes):
// the same lanes diverge the same way in every plane, so compaction cannot help.
//
// Grid layout: u[(k * ny + j) * pitch + i], rows padded to `pitch` floats (pitch >= nx),
// as the original's cudaMallocPitch rows are.

#define LPS_BX 32
#define LPS_BY 4

extern "C" __global__ void laplace3d_jacobi(const float* u, float* u_new, int nx, int ny,
                                            int nz, int pitch)
{
    const int i = blockIdx.x * LPS_BX + threadIdx.x;
    const int j = blockIdx.y * LPS_BY + threadIdx.y;
    const int row = pitch;                 // +-1 in j
    const int plane = pitch * ny;          // +-1 in k
    const bool inside = (i < nx) && (j < ny);
    const bool edge_ij = (i == 0) || (i == nx - 1) || (j == 0) || (j == ny - 1);
    int at = j * row + i;

    for (int k = 0; k < nz; k++) {
        if (inside) {
            float v;
            if (edge_ij || k == 0 || k == nz - 1) {
                v = u[at];                 // Dirichlet boundary: keep the value
            } else {
                float s = u[at - 1] + u[at + 1];
                s = s + u[at - row];
                s = s + u[at + row];
                s = s + u[at - plane];
                s = s + u[at + plane];
                v = s * (1.0f / 6.0f);
            }
            u_new[at] = v;
            at += plane;
        }
    }
}
