// MQ: MRI Q-matrix computation (non-Cartesian k-space), k-space chunks in constant memory.
//
// Stands in for MQ (Parboil mri-q) of G-Scalar Table 2. Two kernels: the squared
// magnitude of each k-space sample, then, per voxel, the sums over samples
//   Qr(x) += |phi_k|^2 cos(2 pi k.x),   Qi(x) += |phi_k|^2 sin(2 pi k.x).
// The samples are processed in chunks that the host copies into constant memory before
// each launch, so every lane of a warp reads the same sample at the same time: the
// operands of the inner loop's first half are warp-uniform (UV) and the SFU-heavy
// sinf/cosf work is what G-Scalar's SFU scalarisation targets.
#define MQ_CHUNK 128
#define MQ_TWO_PI 6.2831853071795864769f

struct KSample {
    float kx, ky, kz, phi_mag;
};

__constant__ KSample c_ksamples[MQ_CHUNK];

extern "C" __global__ void compute_phi_mag(const float* __restrict__ phi_r,
                                           const float* __restrict__ phi_i,
                                           float* phi_mag,
                                           int n_samples)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n_samples) {
        float r = phi_r[k], i = phi_i[k];
        phi_mag[k] = r * r + i * i;
    }
}

extern "C" __global__ void compute_q(const float* __restrict__ vx,
                                     const float* __restrict__ vy,
                                     const float* __restrict__ vz,
                                     float* q_r,
                                     float* q_i,
                                     int n_voxels,
                                     int n_chunk_samples)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n_voxels) {
        return;
    }
    float x = vx[v], y = vy[v], z = vz[v];
    float qr = q_r[v], qi = q_i[v];
    for (int k = 0; k < n_chunk_samples; ++k) {
        float arg = MQ_TWO_PI * (c_ksamples[k].kx * x + c_ksamples[k].ky * y
                                 + c_ksamples[k].kz * z);
        float m = c_ksamples[k].phi_mag;
        qr += m * cosf(arg);
        qi += m * sinf(arg);
    }
    q_r[v] = qr;
    q_i[v] = qi;
}
