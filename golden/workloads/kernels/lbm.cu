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

#define OBSTACLE 1u
#define ACCEL 2u

// relaxation and equilibrium weights (rest, axis, diagonal) of D3Q19
#define OMEGA 1.95f
#define W_REST (1.0f / 3.0f)
#define W_AXIS (1.0f / 18.0f)
#define W_DIAG (1.0f / 36.0f)
// the lid velocity imposed on ACCEL cells
#define LID_UX 0.005f
#define LID_UY 0.002f
#define LID_UZ 0.000f

// direction index, velocity (ex, ey, ez), weight and opposite, one line per direction
#define D3Q19(X)                               \
    X(C, 0, 0, 0, W_REST, C)                  \
    X(N, 0, 1, 0, W_AXIS, S)                  \
    X(S, 0, -1, 0, W_AXIS, N)                 \
    X(E, 1, 0, 0, W_AXIS, W)                  \
    X(W, -1, 0, 0, W_AXIS, E)                 \
    X(T, 0, 0, 1, W_AXIS, B)                  \
    X(B, 0, 0, -1, W_AXIS, T)                 \
    X(NE, 1, 1, 0, W_DIAG, SW)                \
    X(NW, -1, 1, 0, W_DIAG, SE)               \
    X(SE, 1, -1, 0, W_DIAG, NW)               \
    X(SW, -1, -1, 0, W_DIAG, NE)              \
    X(NT, 0, 1, 1, W_DIAG, SB)                \
    X(NB, 0, 1, -1, W_DIAG, ST)               \
    X(ST, 0, -1, 1, W_DIAG, NB)               \
    X(SB, 0, -1, -1, W_DIAG, NT)              \
    X(ET, 1, 0, 1, W_DIAG, WB)                \
    X(EB, 1, 0, -1, W_DIAG, WT)               \
    X(WT, -1, 0, 1, W_DIAG, EB)               \
    X(WB, -1, 0, -1, W_DIAG, ET)

#define DIR_ENUM(d, ex, ey, ez, w, opp) DIR_##d,
enum { D3Q19(DIR_ENUM) FLAGS };

// the population of direction d arriving at `cell`: read from the upstream neighbour
#define PULL(d, ex, ey, ez, w, opp) \
    float f_##d = src[DIR_##d * field + cell - (ex) - (ey) * row - (ez) * plane];
// bounce-back: what arrived in direction d leaves in the opposite direction
#define BOUNCE(d, ex, ey, ez, w, opp) dst[DIR_##opp * field + cell] = f_##d;
// signed sum without multiplies: acc += e * v for e in {-1, 0, 1} known at compile time
// (accumulators start at -0.0f, the identity of float addition, so no add of zero remains)
#define ACC(acc, e, v)     \
    if ((e) > 0) {         \
        acc += (v);        \
    } else if ((e) < 0) {  \
        acc -= (v);        \
    }
// BGK relaxation towards the second-order equilibrium of direction d
#define COLLIDE(d, ex, ey, ez, w, opp)                                       \
    {                                                                         \
        float cu = -0.0f;                                                     \
        ACC(cu, ex, ux) ACC(cu, ey, uy) ACC(cu, ez, uz)                       \
        dst[DIR_##d * field + cell] =                                         \
            keep * f_##d + (w) * omega_rho * (cu * (4.5f * cu + 3.0f) - u2m); \
    }
#define MOMENTS(d, ex, ey, ez, w, opp) \
    rho += f_##d;                      \
    ACC(ux, ex, f_##d) ACC(uy, ey, f_##d) ACC(uz, ez, f_##d)

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
