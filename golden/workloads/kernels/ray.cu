// RAY: ray casting of a sphere scene with shadows, one thread per pixel.
//
// Stands in for RAY of UV Table 3, WarpMan Table 5, the ILP chapter and CAPRI Table 2
// (GPGPU-Sim distribution ray tracer): 6 warps per TB (16 x 12 pixel tiles), a loop over
// the scene's spheres with data-dependent hit tests, and a shadow-ray loop that leaves
// early on the first occluder. The scene lives in constant memory (set by the host).
//
// Every quantity a branch depends on (discriminants, distances, the sign of N.L) is
// computed with explicitly rounded operations (__fadd_rn, __fsqrt_rn, ...), which
// forbid FMA contraction, so a float32 numpy reference takes exactly the same
// decisions. Shading, which no branch depends on, uses ordinary arithmetic and rsqrtf.
#define RAY_MAX_SPHERES 32
#define RAY_SPHERE_FLOATS 8     // centre x, y, z, radius, colour r, g, b, unused
#define RAY_EPS 1.0e-3f

__constant__ float c_spheres[RAY_MAX_SPHERES * RAY_SPHERE_FLOATS];

__device__ __forceinline__ float dot_rn(float ax, float ay, float az,
                                        float bx, float by, float bz)
{
    return __fadd_rn(__fadd_rn(__fmul_rn(ax, bx), __fmul_rn(ay, by)), __fmul_rn(az, bz));
}

// distance along the ray o + t d to the nearest intersection with sphere s that lies
// beyond RAY_EPS, or -1 when there is none (a = d.d)
__device__ float sphere_hit(float ox, float oy, float oz,
                           float dx, float dy, float dz, float a, int s)
{
    const float* sp = &c_spheres[s * RAY_SPHERE_FLOATS];
    float ocx = __fsub_rn(ox, sp[0]);
    float ocy = __fsub_rn(oy, sp[1]);
    float ocz = __fsub_rn(oz, sp[2]);
    float b = dot_rn(ocx, ocy, ocz, dx, dy, dz);
    float c = __fsub_rn(dot_rn(ocx, ocy, ocz, ocx, ocy, ocz), __fmul_rn(sp[3], sp[3]));
    float disc = __fsub_rn(__fmul_rn(b, b), __fmul_rn(a, c));
    if (disc <= 0.0f) {
        return -1.0f;
    }
    float sq = __fsqrt_rn(disc);
    float t = __fdiv_rn(__fsub_rn(-b, sq), a);
    if (t > RAY_EPS) {
        return t;
    }
    t = __fdiv_rn(__fsub_rn(sq, b), a);
    if (t > RAY_EPS) {
        return t;
    }
    return -1.0f;
}

extern "C" __global__ void ray_cast(float* image,
                                    int width,
                                    int height,
                                    int n_spheres,
                                    float pixel_scale,
                                    float lx, float ly, float lz,
                                    float ambient)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    // pinhole camera at the origin looking down +z, image plane at z = 1
    float dx = __fmul_rn((float)(2 * x - width + 1), pixel_scale);
    float dy = __fmul_rn((float)(height - 1 - 2 * y), pixel_scale);
    float dz = 1.0f;
    float a = dot_rn(dx, dy, dz, dx, dy, dz);

    float t_best = 3.0e38f;
    int hit = -1;
    for (int s = 0; s < n_spheres; ++s) {
        float t = sphere_hit(0.0f, 0.0f, 0.0f, dx, dy, dz, a, s);
        if (t > 0.0f && t < t_best) {
            t_best = t;
            hit = s;
        }
    }

    float r, g, b;
    if (hit < 0) {
        // sky: a vertical gradient
        float v = 0.5f + 0.5f * dy * rsqrtf(a);
        r = 0.1f + 0.2f * v;
        g = 0.2f + 0.3f * v;
        b = 0.5f + 0.4f * v;
    } else {
        const float* sp = &c_spheres[hit * RAY_SPHERE_FLOATS];
        float px = __fmul_rn(t_best, dx);
        float py = __fmul_rn(t_best, dy);
        float pz = __fmul_rn(t_best, dz);
        float nx = __fsub_rn(px, sp[0]);
        float ny = __fsub_rn(py, sp[1]);
        float nz = __fsub_rn(pz, sp[2]);
        float ndotl = dot_rn(nx, ny, nz, lx, ly, lz);
        float diffuse = 0.0f;
        if (ndotl > 0.0f) {
            // shadow ray towards the (directional) light; stop at the first occluder
            float al = dot_rn(lx, ly, lz, lx, ly, lz);
            bool lit = true;
            for (int s = 0; s < n_spheres; ++s) {
                if (s == hit) {
                    continue;
                }
                if (sphere_hit(px, py, pz, lx, ly, lz, al, s) > 0.0f) {
                    lit = false;
                    break;
                }
            }
            if (lit) {
                float lambert = ndotl * rsqrtf(nx * nx + ny * ny + nz * nz) * rsqrtf(al);
                float spec = lambert * lambert;
                spec = spec * spec;
                spec = spec * spec;
                diffuse = lambert + 0.25f * spec;
            }
        }
        float shade = ambient + diffuse;
        r = sp[4] * shade;
        g = sp[5] * shade;
        b = sp[6] * shade;
    }
    int o = (y * width + x) * 3;
    image[o] = r;
    image[o + 1] = g;
    image[o + 2] = b;
}
