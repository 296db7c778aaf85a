// LBM: one time step of a D2Q9 lattice-Boltzmann fluid with obstacles and an inflow.
//
// Stands in for LBM of G-Scalar Table 2 (Parboil lbm): a TB per lattice row
// (Parboil uses SIZE_X = 120 threads per block), structure-of-arrays distribution
// functions, and per-cell flags that select bounce-back (obstacle), an imposed
// inflow velocity, or plain BGK collision. The flag tests and the per-direction
// "is my upstream neighbour a wall?" tests make the warps diverge on data, which is
// where G-Scalar finds its large divergent-scalar share (30% for LBM).
//
// Streaming is "pull": cell x takes direction q from x - c_q (periodic in x and y);
// if that upstream cell is an obstacle, half-way bounce-back returns the cell's own
// opposite population instead.
#define CELL_FLUID 0
#define CELL_OBSTACLE 1
#define CELL_INFLOW 2

// D2Q9 velocity set: rest, 4 axis directions, 4 diagonals
__constant__ int c_ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
__constant__ int c_ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
__constant__ int c_opp[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
__constant__ float c_w[9] = {4.0f / 9.0f,
                             1.0f / 9.0f, 1.0f / 9.0f, 1.0f / 9.0f, 1.0f / 9.0f,
                             1.0f / 36.0f, 1.0f / 36.0f, 1.0f / 36.0f, 1.0f / 36.0f};

extern "C" __global__ void lbm_step(const float* __restrict__ src,
                                    float* __restrict__ dst,
                                    const unsigned char* __restrict__ flags,
                                    int nx,
                                    int ny,
                                    float omega,
                                    float inflow_u)
{
    int x = threadIdx.x;
    int y = blockIdx.x;
    if (x >= nx || y >= ny) {
        return;
    }
    int n_cells = nx * ny;
    int cell = y * nx + x;
    int flag = flags[cell];

    float f[9];
    if (flag == CELL_OBSTACLE) {
        // solid cell: reflect what it holds, no streaming, no collision
        for (int q = 0; q < 9; ++q) {
            f[q] = src[c_opp[q] * n_cells + cell];
        }
        for (int q = 0; q < 9; ++q) {
            dst[q * n_cells + cell] = f[q];
        }
        return;
    }

    for (int q = 0; q < 9; ++q) {
        int xs = x - c_ex[q];
        int ys = y - c_ey[q];
        if (xs < 0) xs += nx;
        if (xs >= nx) xs -= nx;
        if (ys < 0) ys += ny;
        if (ys >= ny) ys -= ny;
        int up = ys * nx + xs;
        if (flags[up] == CELL_OBSTACLE) {
            f[q] = src[c_opp[q] * n_cells + cell];     // half-way bounce-back
        } else {
            f[q] = src[q * n_cells + up];
        }
    }

    float rho = 0.0f, ux = 0.0f, uy = 0.0f;
    for (int q = 0; q < 9; ++q) {
        rho += f[q];
        ux += f[q] * (float)c_ex[q];
        uy += f[q] * (float)c_ey[q];
    }
    if (flag == CELL_INFLOW) {
        // inflow boundary: impose the velocity, keep the density
        ux = inflow_u;
        uy = 0.0f;
    } else {
        float inv_rho = 1.0f / rho;
        ux *= inv_rho;
        uy *= inv_rho;
    }
    float usq = 1.5f * (ux * ux + uy * uy);
    for (int q = 0; q < 9; ++q) {
        float cu = 3.0f * ((float)c_ex[q] * ux + (float)c_ey[q] * uy);
        float feq = c_w[q] * rho * (1.0f + cu + 0.5f * cu * cu - usq);
        dst[q * n_cells + cell] = f[q] - omega * (f[q] - feq);
    }
}
