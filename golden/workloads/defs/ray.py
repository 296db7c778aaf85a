"""RAY: ray casting of random spheres with directional-light shadows, one thread per pixel.

Kernel ``ray_cast`` in ``kernels/ray.cu``: TB (16, 12) = 6 warps (the warps per TB that
WarpMan Table 5 lists for RAY); per pixel a loop over all spheres keeps the nearest hit,
then a shadow ray tests the other spheres and stops at the first occluder. The scene is
a constant-memory table set through ``get_global``. Output: an RGB float32 image.

Every decision in the kernel is computed with IEEE-rounded float32 operations that
cannot be contracted, so this float32 numpy reference takes the same decisions pixel
for pixel; only the shading (rsqrtf, FMAs) needs a tolerance.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Tolerance, Workload

TB = (16, 12, 1)
MAX_SPHERES = 32
SPHERE_FLOATS = 8
EPS = np.float32(1.0e-3)
F32 = np.float32


def make_inputs(params, rng):
    """Scene table (n_spheres x 8: centre, radius, colour, unused): a large 'ground'
    sphere below the camera plus random spheres in front of it."""
    n = params["n_spheres"]
    if not 1 < n <= MAX_SPHERES:
        raise ConfigError(f"RAY: n_spheres must be in 2..{MAX_SPHERES}, got {n}")
    s = np.zeros((n, SPHERE_FLOATS), dtype=np.float32)
    s[0, :4] = (0.0, -101.5, 10.0, 100.0)
    s[1:, 0] = rng.uniform(-3.0, 3.0, n - 1)
    s[1:, 1] = rng.uniform(-1.0, 1.5, n - 1)
    s[1:, 2] = rng.uniform(4.0, 10.0, n - 1)
    s[1:, 3] = rng.uniform(0.4, 1.1, n - 1)
    s[:, 4:7] = rng.uniform(0.2, 1.0, (n, 3))
    light = np.array([-0.5, 0.8, -0.35])
    return {"spheres": s, "light": (light / np.linalg.norm(light)).astype(np.float32)}


def launch(dev, module, inputs, params):
    w, h = params["width"], params["height"]
    spheres = inputs["spheres"]
    table = np.zeros(MAX_SPHERES * SPHERE_FLOATS, dtype=np.float32)
    table[:spheres.size] = spheres.ravel()
    module.get_global("c_spheres").set(table)
    d_image = dev.zeros((h, w, 3), np.float32)
    lx, ly, lz = (F32(v) for v in inputs["light"])
    kernel = module.get_function("ray_cast")
    kernel(((w + TB[0] - 1) // TB[0], (h + TB[1] - 1) // TB[1], 1), TB,
           (d_image, np.int32(w), np.int32(h), np.int32(spheres.shape[0]),
            F32(params["pixel_scale"]), lx, ly, lz, F32(params["ambient"])))
    return {"image": d_image.get()}


def _dot(ax, ay, az, bx, by, bz):
    """(ax*bx + ay*by) + az*bz in float32, the kernel's dot_rn."""
    return (ax * bx + ay * by) + az * bz


def _sphere_hit(o, d, a, sphere):
    """The kernel's sphere_hit, vectorised: nearest root beyond EPS, or -1."""
    ocx, ocy, ocz = o[0] - sphere[0], o[1] - sphere[1], o[2] - sphere[2]
    b = _dot(ocx, ocy, ocz, d[0], d[1], d[2])
    c = _dot(ocx, ocy, ocz, ocx, ocy, ocz) - sphere[3] * sphere[3]
    disc = b * b - a * c
    sq = np.sqrt(np.maximum(disc, F32(0.0)))
    t1 = (-b - sq) / a
    t2 = (sq - b) / a
    t = np.where(t1 > EPS, t1, np.where(t2 > EPS, t2, F32(-1.0)))
    return np.where(disc <= F32(0.0), F32(-1.0), t).astype(np.float32)


def reference(inputs, params):
    w, h = params["width"], params["height"]
    spheres = inputs["spheres"]
    lx, ly, lz = (F32(v) for v in inputs["light"])
    scale, ambient = F32(params["pixel_scale"]), params["ambient"]
    ys, xs = np.mgrid[0:h, 0:w]
    dx = (2 * xs - w + 1).astype(np.float32) * scale
    dy = (h - 1 - 2 * ys).astype(np.float32) * scale
    dz = np.ones_like(dx)
    zero = np.zeros_like(dx)
    a = _dot(dx, dy, dz, dx, dy, dz)

    t_best = np.full(dx.shape, F32(3.0e38))
    hit = np.full(dx.shape, -1)
    for s in range(spheres.shape[0]):
        t = _sphere_hit((zero, zero, zero), (dx, dy, dz), a, spheres[s])
        closer = (t > 0) & (t < t_best)
        t_best = np.where(closer, t, t_best)
        hit = np.where(closer, s, hit)

    sp = spheres[np.maximum(hit, 0)]
    t_hit = np.where(hit >= 0, t_best, F32(0.0))       # sky pixels: any finite value
    px, py, pz = t_hit * dx, t_hit * dy, t_hit * dz
    nx, ny, nz = px - sp[..., 0], py - sp[..., 1], pz - sp[..., 2]
    ndotl = _dot(nx, ny, nz, lx, ly, lz)
    al = _dot(lx, ly, lz, lx, ly, lz)
    lit = (hit >= 0) & (ndotl > 0)
    for s in range(spheres.shape[0]):
        occluded = _sphere_hit((px, py, pz), (lx, ly, lz), al, spheres[s]) > 0
        lit &= ~(occluded & (hit != s))

    n_len = np.sqrt(nx.astype(np.float64) ** 2 + ny.astype(np.float64) ** 2 + nz.astype(np.float64) ** 2)
    lambert = ndotl / n_len / np.sqrt(np.float64(al))
    diffuse = np.where(lit, lambert + 0.25 * lambert ** 8, 0.0)
    shade = ambient + diffuse
    v = 0.5 + 0.5 * dy / np.sqrt(a.astype(np.float64))
    sky = np.stack([0.1 + 0.2 * v, 0.2 + 0.3 * v, 0.5 + 0.4 * v], axis=-1)
    surface = sp[..., 4:7] * shade[..., None]
    image = np.where((hit >= 0)[..., None], surface, sky)
    return {"image": image.astype(np.float32)}


WORKLOAD = Workload(
    name="RAY",
    description="ray casting of spheres: nearest-hit loop and early-exit shadow loop per pixel",
    source="ray.cu",
    tb_dims=TB,
    stands_for=("UV (dissertation ch. 2) Table 3: Ray tracing (RAY)",
                "WarpMan (dissertation ch. 3) Table 5: RayTracing (RAY), 6 warps per TB",
                "ILP (dissertation ch. 4) workloads: Ray",
                "CAPRI Table 2: RAY Ray Tracing (non-divergent class, 91% SIMD utilisation)"),
    sizes={"small": {"width": 128, "height": 96, "n_spheres": 10,
                     "pixel_scale": 1.0 / 96, "ambient": 0.1},
           "default": {"width": 256, "height": 192, "n_spheres": 12,
                       "pixel_scale": 1.0 / 192, "ambient": 0.1},
           # paper: 16 x 15 = 240 TBs: >= 2 waves on every GPU the main job runs it on, up to
           # WarpMan's 64 k-register point (8 TBs/SM x 15 SMs). UV Table 3's (512,512) would be
           # 1376 TBs and 5.5M warp instructions per run, beyond the time budget.
           "paper": {"width": 256, "height": 180, "n_spheres": 10,
                     "pixel_scale": 1.0 / 180, "ambient": 0.1}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
    # decisions are exact; shading uses rsqrt.approx and FMAs
    tolerance={"image": Tolerance(rtol=2e-5, atol=2e-5)},
)
