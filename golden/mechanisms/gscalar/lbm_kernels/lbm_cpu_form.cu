// LBM in the control flow of Parboil's CPU lbm (LBM_performStreamCollide, from SPEC
// CPU2006 470.lbm), for the G-Scalar LBM study (golden/mechanisms/gscalar/lbm_study.py,
// docs/lbm.md; issue 66). Not the benchmark G-Scalar ran (Parboil's CUDA kernel gathers
// before the flag test, lbm_parboil_cuda.cu): a sensitivity case for where the loads sit.
//
// Same lattice, layout, arithmetic and result as golden/workloads/kernels/lbm.cu. Each
// branch reads its own inputs and writes its own outputs, as the CPU source does: the
// OBSTACLE path copies each arriving population into the opposite direction, the fluid
// path gathers, collides and stores. The two paths are separate non-inlined functions (as
// they are separate code in the source), so nvcc cannot merge their identical gathers
// above the flag test; the cost is each path's call sequence (parameter moves, call, ret).

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
// signed sum without multiplies: acc += e * v for e in {-1, 0, 1} known at compile time
// (accumulators start at -0.0f, the identity of float addition, so no add of zero remains)
#define ACC(acc, e, v)     \
    if ((e) > 0) {         \
        acc += (v);        \
    } else if ((e) < 0) {  \
        acc -= (v);        \
    }
#define MOMENTS(d, ex, ey, ez, w, opp) \
    rho += f_##d;                      \
    ACC(ux, ex, f_##d) ACC(uy, ey, f_##d) ACC(uz, ez, f_##d)


#define BOUNCE(d, ex, ey, ez, w, opp) \
    dst[DIR_##opp * field + cell] = src[DIR_##d * field + cell - (ex) - (ey) * row - (ez) * plane];
#define COLLIDE(d, ex, ey, ez, w, opp)                                       \
    {                                                                         \
        float cu = -0.0f;                                                     \
        ACC(cu, ex, ux) ACC(cu, ey, uy) ACC(cu, ez, uz)                       \
        dst[DIR_##d * field + cell] =                                         \
            keep * f_##d + (w) * omega_rho * (cu * (4.5f * cu + 3.0f) - u2m); \
    }

// bounce-back: what arrives from direction d leaves in the opposite direction
__device__ __noinline__ void bounce_back(const float* src, float* dst, int cell, int row,
                                         int plane, int field)
{
    D3Q19(BOUNCE)
}

// BGK collision of the populations arriving at a fluid cell; ACCEL cells take the lid velocity
__device__ __noinline__ void stream_collide(const float* src, float* dst, int cell, int row,
                                            int plane, int field, unsigned int flag)
{
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

extern "C" __global__ void performStreamCollide(const float* src,
                                                float* dst,
                                                int row,
                                                int plane,
                                                int field)
{
    // x = threadIdx.x, y = blockIdx.x, z = blockIdx.y; two margin planes precede z = 0
    int cell = (blockIdx.y + 2) * plane + blockIdx.x * row + threadIdx.x;
    unsigned int flag = __float_as_uint(src[FLAGS * field + cell]);
    if (flag & OBSTACLE) {
        bounce_back(src, dst, cell, row, plane, field);
    } else {
        stream_collide(src, dst, cell, row, plane, field, flag);
    }
}
