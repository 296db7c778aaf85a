// LBM: one time step of a D3Q19 lattice-Boltzmann fluid in the shape of Parboil's lbm.
//
// Stands in for LBM of G-Scalar Table 2 (Parboil lbm, kernel performStreamCollide):
// * one thread per lattice cell, a TB per x-row (blockDim.x = SIZE_X = 120 cells, so the
//   fourth warp of every TB holds 24 threads), grid = (SIZE_Y, SIZE_Z);
// * structure-of-arrays grid: 20 fields of `field` floats each (19 distributions, then the
//   cell's flag word stored as the bits of a float), rows padded to `row` floats
//   (SIZE_X + 8 = 128) and two margin planes before and after the lattice, so every
//   neighbour read stays inside the buffer;
// * pull streaming: the population of direction q arriving at a cell is read from the
//   upstream cell (cell - c_q) and the collided values are written to the cell itself;
// * the flag word selects the branch: OBSTACLE cells bounce every arriving population back
//   (each direction's value is written into the opposite direction, no arithmetic);
//   other cells do the BGK collision, and ACCEL cells (the two lid layers of the
//   lid-driven cavity) replace the computed velocity by a fixed one before it.
//
// The lattice walls make the first and last warp of every interior row diverge (lane 0 is
// the x = 0 wall, the last lane the x = SIZE_X-1 wall), and the lid rows diverge again at
// the ACCEL test; the values written on those paths are constants or equal along the row
// wherever the flow has not yet been disturbed, which is G-Scalar's divergent-scalar work.

#include "lbm_d3q19.cuh"

// bounce-back: what arrived in direction d leaves in the opposite direction
#define BOUNCE(d, ex, ey, ez, w, opp) dst[DIR_##opp * field + cell] = f_##d;
// BGK relaxation towards the second-order equilibrium of direction d
#define COLLIDE(d, ex, ey, ez, w, opp)                                       \
    {                                                                         \
        float cu = -0.0f;                                                     \
        ACC(cu, ex, ux) ACC(cu, ey, uy) ACC(cu, ez, uz)                       \
        dst[DIR_##d * field + cell] =                                         \
            keep * f_##d + (w) * omega_rho * (cu * (4.5f * cu + 3.0f) - u2m); \
    }

extern "C" __global__ void performStreamCollide(const float* src,
                                                float* dst,
                                                int row,
                                                int plane,
                                                int field)
{
    // x = threadIdx.x, y = blockIdx.x, z = blockIdx.y; two margin planes precede z = 0
    int cell = (blockIdx.y + 2) * plane + blockIdx.x * row + threadIdx.x;
    unsigned int flag = __float_as_uint(src[FLAGS * field + cell]);

    // each branch gathers its own inputs, as Parboil's CPU lbm (from SPEC) does; Parboil's
    // CUDA kernel gathers before the test (docs/lbm.md; nvcc 13 hoists these gathers anyway)
    if (flag & OBSTACLE) {
        D3Q19(PULL)
        D3Q19(BOUNCE)
        return;
    }

    D3Q19(PULL)

    float rho = -0.0f, ux = -0.0f, uy = -0.0f, uz = -0.0f;
    D3Q19(MOMENTS)
    ux /= rho;
    uy /= rho;
    uz /= rho;
    if (flag & ACCEL) {
        ux = LID_UX;
        uy = LID_UY;
        uz = LID_UZ;
    }
    float u2m = 1.5f * (ux * ux + uy * uy + uz * uz) - 1.0f;
    float omega_rho = OMEGA * rho;
    float keep = 1.0f - OMEGA;
    D3Q19(COLLIDE)
}
