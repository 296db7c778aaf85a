// RAY: Whitted-style ray tracing of mirror spheres in front of a slatted mirror screen
// (reflections and shadows), one thread per pixel.
//
// Stands in for RAY of UV Table 3, WarpMan Table 5, the ILP chapter and CAPRI Table 2
// (the GPGPU-Sim distribution ray tracer): 6 warps per TB (16 x 12 pixel tiles), the
// scene in constant memory (set by the host), and the recursion loop of the chapter's
// Fig. 22, `for (i = 0; i < nRec && n == i; i++)`, with its plane intersection: a ray
// that hits a reflective surface (a mirror sphere, or a slat of the screen: a plane
// facing the camera made of horizontal mirror slats with gaps between them) is shaded
// (with a shadow ray that stops at the first occluding sphere) and bounces on; a ray
// that misses everything (sky, seen through the gaps) or hits a matte sphere ends. How
// many passes over the scene a pixel makes depends on what it sees: warps looking
// through a gap finish after one pass, warps on a slat after two, and warps looking
// into the cluster of mirror spheres bounce up to nRec times (WarpMan §3.3's
// input-dependent warp-level divergence). Slats and gaps are a few pixel rows high, so
// most TBs hold warps of both kinds.
//
// Every quantity a branch or a later ray depends on (discriminants, distances, hit
// points, normals, reflected directions, the sign of N.L) is computed with explicitly
// rounded operations (__fadd_rn, __fsqrt_rn, ...), which forbid FMA contraction, so a
// float32 numpy reference takes exactly the same decisions and traces the same rays.
// Shading, which nothing depends on, uses ordinary arithmetic and rsqrtf.
#define RAY_MAX_SPHERES 32
#define RAY_SPHERE_FLOATS 8     // centre x, y, z, radius, colour r, g, b, reflectivity
#define RAY_EPS 1.0e-3f

#define RAY_SCREEN_FLOATS 8     // depth z, 1 / slat pitch, slat duty, reflectivity, colour r, g, b

__constant__ float c_spheres[RAY_MAX_SPHERES * RAY_SPHERE_FLOATS];
__constant__ float c_screen[RAY_SCREEN_FLOATS];

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

// diffuse and highlight term of the directional light l at point p with normal N (0 when
// the surface faces away or a sphere other than `self` occludes the shadow ray, which
// stops at the first occluder)
__device__ __forceinline__ float light_term(float px, float py, float pz,
                                            float nx, float ny, float nz,
                                            float lx, float ly, float lz,
                                            int self, int n_spheres)
{
    float ndotl = dot_rn(nx, ny, nz, lx, ly, lz);
    if (ndotl <= 0.0f) {
        return 0.0f;
    }
    float al = dot_rn(lx, ly, lz, lx, ly, lz);
    for (int s = 0; s < n_spheres; ++s) {
        if (s != self && sphere_hit(px, py, pz, lx, ly, lz, al, s) > 0.0f) {
            return 0.0f;
        }
    }
    float lambert = ndotl * rsqrtf(nx * nx + ny * ny + nz * nz) * rsqrtf(al);
    float spec = lambert * lambert;
    spec = spec * spec;
    spec = spec * spec;
    return lambert + 0.25f * spec;
}

extern "C" __global__ void ray_trace(float* image,
                                     int width,
                                     int height,
                                     int n_spheres,
                                     int n_rec,
                                     float pixel_scale,
                                     float lx, float ly, float lz,
                                     float light_r, float light_g, float light_b,
                                     float ambient_r, float ambient_g, float ambient_b,
                                     float zenith_r, float zenith_g, float zenith_b,
                                     float horizon_r, float horizon_g, float horizon_b)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    // pinhole camera at the origin looking down +z, image plane at z = 1
    float ox = 0.0f, oy = 0.0f, oz = 0.0f;
    float dx = __fmul_rn((float)(2 * x - width + 1), pixel_scale);
    float dy = __fmul_rn((float)(height - 1 - 2 * y), pixel_scale);
    float dz = 1.0f;
    float r = 0.0f, g = 0.0f, b = 0.0f;        // colour gathered so far
    float wr = 1.0f, wg = 1.0f, wb = 1.0f;     // weight of the current ray

    int n = 0;                                  // surfaces hit so far
    for (int i = 0; i < n_rec && n == i; ++i) {
        float a = dot_rn(dx, dy, dz, dx, dy, dz);
        // the screen plane z = c_screen[0] (index n_spheres), then the spheres
        float t_best = 3.0e38f;
        int hit = -1;
        if (dz > 0.0f) {
            // the screen: mirror slats where frac(y / pitch) < duty, gaps between
            float t = __fdiv_rn(__fsub_rn(c_screen[0], oz), dz);
            float u = __fmul_rn(__fadd_rn(oy, __fmul_rn(t, dy)), c_screen[1]);
            if (t > RAY_EPS && __fsub_rn(u, floorf(u)) < c_screen[2]) {
                t_best = t;
                hit = n_spheres;
            }
        }
        for (int s = 0; s < n_spheres; ++s) {
            float t = sphere_hit(ox, oy, oz, dx, dy, dz, a, s);
            if (t > 0.0f && t < t_best) {
                t_best = t;
                hit = s;
            }
        }
        if (hit < 0) {
            // sky: horizon to zenith colour by the ray's elevation, seen through the
            // mirrors so far
            float v = 0.5f + 0.5f * dy * rsqrtf(a);
            r += wr * (horizon_r + (zenith_r - horizon_r) * v);
            g += wg * (horizon_g + (zenith_g - horizon_g) * v);
            b += wb * (horizon_b + (zenith_b - horizon_b) * v);
            continue;                           // n stays i: the loop ends
        }
        ++n;
        float px = __fadd_rn(ox, __fmul_rn(t_best, dx));
        float py = __fadd_rn(oy, __fmul_rn(t_best, dy));
        float pz = __fadd_rn(oz, __fmul_rn(t_best, dz));
        float nx, ny, nz, cr, cg, cb, refl;
        if (hit == n_spheres) {
            // a slat of the screen, facing the camera
            nx = 0.0f;
            ny = 0.0f;
            nz = -1.0f;
            refl = c_screen[3];
            cr = c_screen[4];
            cg = c_screen[5];
            cb = c_screen[6];
        } else {
            const float* sp = &c_spheres[hit * RAY_SPHERE_FLOATS];
            nx = __fsub_rn(px, sp[0]);
            ny = __fsub_rn(py, sp[1]);
            nz = __fsub_rn(pz, sp[2]);
            refl = sp[7];
            cr = sp[4];
            cg = sp[5];
            cb = sp[6];
        }
        float diffuse = light_term(px, py, pz, nx, ny, nz, lx, ly, lz, hit, n_spheres);
        // coloured ambient and light; the mirror share of the surface is left to the bounce
        float matte = 1.0f - refl;
        r += wr * cr * matte * (ambient_r + light_r * diffuse);
        g += wg * cg * matte * (ambient_g + light_g * diffuse);
        b += wb * cb * matte * (ambient_b + light_b * diffuse);
        if (refl <= 0.0f) {
            break;                              // a matte surface ends the ray
        }
        wr *= refl * cr;
        wg *= refl * cg;
        wb *= refl * cb;
        // mirror direction: d - (2 d.N / N.N) N
        float k = __fdiv_rn(__fmul_rn(2.0f, dot_rn(dx, dy, dz, nx, ny, nz)),
                            dot_rn(nx, ny, nz, nx, ny, nz));
        dx = __fsub_rn(dx, __fmul_rn(k, nx));
        dy = __fsub_rn(dy, __fmul_rn(k, ny));
        dz = __fsub_rn(dz, __fmul_rn(k, nz));
        ox = px;
        oy = py;
        oz = pz;
    }
    int o = (y * width + x) * 3;
    image[o] = r;
    image[o + 1] = g;
    image[o + 2] = b;
}
