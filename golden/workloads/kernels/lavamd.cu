// LAVAMD: pairwise particle interactions between neighbouring boxes (Rodinia lavaMD).
//
// Stands in for lavaMD of the locality chapter (dissertation ch. 5). Space is a cube of
// boxes1d^3 unit boxes, each holding `np` particles (position x, y, z and v = |r|^2 as a
// float4, and a charge). One TB of 128 threads per home box: it stages the home box's
// particles in shared memory, then for the home box itself and each of its (up to 26)
// neighbours, in the order of the host's neighbour table, stages that box's particles and
// charges in shared memory (a barrier before and after) and lets thread i < np
// accumulate, over the staged particles j,
//   r2 = v_i + v_j - 2 (r_i . r_j)   (= |r_i - r_j|^2),   w = exp(-a2 r2),
//   f_i.v += q_j w,   f_i.xyz += q_j 2 w (r_i - r_j).
// Neighbouring home boxes stage the same boxes, so a box's 16 * np bytes are read by up
// to 27 TBs.
#define LMD_THREADS 128
#define LMD_MAX_PAR 128
#define LMD_MAX_NEI 27

extern "C" __global__ void lavamd_forces(const float4* __restrict__ rv,
                                         const float* __restrict__ qv,
                                         const int* __restrict__ neighbours,
                                         const int* __restrict__ neighbour_count,
                                         float4* fv, int np, float a2)
{
    __shared__ float4 home[LMD_MAX_PAR];
    __shared__ float4 other[LMD_MAX_PAR];
    __shared__ float charge[LMD_MAX_PAR];
    int box = blockIdx.x;
    int t = threadIdx.x;
    for (int i = t; i < np; i += LMD_THREADS) home[i] = rv[box * np + i];
    float4 f = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    int count = neighbour_count[box];
    for (int k = 0; k < count; ++k) {
        int nb = neighbours[box * LMD_MAX_NEI + k];
        __syncthreads();
        for (int j = t; j < np; j += LMD_THREADS) {
            other[j] = rv[nb * np + j];
            charge[j] = qv[nb * np + j];
        }
        __syncthreads();
        if (t < np) {
            float4 a = home[t];
            for (int j = 0; j < np; ++j) {
                float4 b = other[j];
                float r2 = a.w + b.w - 2.0f * (a.x * b.x + a.y * b.y + a.z * b.z);
                float w = expf(-a2 * r2);
                float q = charge[j];
                float qs = q * 2.0f * w;
                f.w += q * w;
                f.x += qs * (a.x - b.x);
                f.y += qs * (a.y - b.y);
                f.z += qs * (a.z - b.z);
            }
        }
    }
    if (t < np) fv[box * np + t] = f;
}
