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

#include "../../../workloads/kernels/lbm_d3q19.cuh"


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
