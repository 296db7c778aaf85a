// LBM in the control flow of Parboil's CUDA lbm (performStreamCollide_kernel), for the
// G-Scalar LBM study (golden/mechanisms/gscalar/lbm_study.py, docs/lbm.md; issue 66).
//
// Same lattice, layout, arithmetic and result as golden/workloads/kernels/lbm.cu; only
// the order of the work differs, following Parboil's CUDA kernel:
// * all 19 populations are gathered first, before the flag test;
// * OBSTACLE cells swap each population with its opposite in registers (bounce-back);
// * other cells do the BGK collision, ACCEL cells overriding the velocity first;
// * all 19 results are written after the branches join.
// (Parboil's CPU version, from SPEC's lbm, instead reads and writes inside each branch.)

#include "../../../workloads/kernels/lbm_d3q19.cuh"


// the result for direction d: bounce-back takes what arrived from the opposite direction
#define DECLARE_OUT(d, ex, ey, ez, w, opp) float o_##d;
#define SWAP(d, ex, ey, ez, w, opp) o_##d = f_##opp;
#define COLLIDE_TO(d, ex, ey, ez, w, opp)                                  \
    {                                                                       \
        float cu = -0.0f;                                                   \
        ACC(cu, ex, ux) ACC(cu, ey, uy) ACC(cu, ez, uz)                     \
        o_##d = keep * f_##d + (w) * omega_rho * (cu * (4.5f * cu + 3.0f) - u2m); \
    }
#define STORE(d, ex, ey, ez, w, opp) dst[DIR_##d * field + cell] = o_##d;

extern "C" __global__ void performStreamCollide(const float* src,
                                                float* dst,
                                                int row,
                                                int plane,
                                                int field)
{
    // x = threadIdx.x, y = blockIdx.x, z = blockIdx.y; two margin planes precede z = 0
    int cell = (blockIdx.y + 2) * plane + blockIdx.x * row + threadIdx.x;

    D3Q19(PULL)
    D3Q19(DECLARE_OUT)

    unsigned int flag = __float_as_uint(src[FLAGS * field + cell]);
    if (flag & OBSTACLE) {
        D3Q19(SWAP)
    } else {
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
        D3Q19(COLLIDE_TO)
    }

    D3Q19(STORE)
}
