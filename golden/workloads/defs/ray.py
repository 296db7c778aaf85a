"""RAY: Whitted-style ray tracing of mirror spheres in front of a slatted mirror screen,
one thread per pixel.

Kernel ``ray_trace`` in ``kernels/ray.cu``: TB (16, 12) = 6 warps (the warps per TB that
WarpMan Table 5 lists for RAY). Per pixel, up to ``n_rec`` passes (the recursion loop of
the chapter's Fig. 22, ``for (i = 0; i < nRec && n == i; i++)``): the screen plane and a
loop over all spheres give the nearest hit; a hit is shaded (coloured ambient and
directional light, a shadow ray that stops at the first occluding sphere), and a hit on
a reflective surface bounces the ray on; a miss (sky) or a matte sphere ends it. The
scene is constant memory set through ``get_global``. Output: an RGB float32 image.

The scene is uneven on purpose (WarpMan §3.3: RAY's per-warp work depends on its input):
the screen at z = ``screen_depth`` is made of horizontal mirror slats ``slat_rows`` pixel
rows high every ``pitch_rows`` rows (rows measured where the screen is seen head-on;
edges fall between warps' rows), so a warp sees sky through a gap (one pass, the cheap
warps) or a slat (shade, bounce, sky: two passes), and most 12-row TBs hold both; a
cluster of mirror spheres in front of the screen makes rays bounce between spheres and
slats up to ``n_rec`` times. At ``paper`` (256 x 384 = 512 TBs, §3.3) that gives the
chapter's warp-instruction histogram (52.5% of warps below 500 instructions, 29.6% at
1,000-1,500, 1.9% at 3,500-4,000; ours in docs/warpman-standins.md).

Every decision and every traced ray in the kernel is computed with IEEE-rounded float32
operations that cannot be contracted, so this float32 numpy reference takes the same
decisions pixel for pixel; only the shading (rsqrtf, FMAs) needs a tolerance.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Tolerance, Workload

TB = (16, 12, 1)
MAX_SPHERES = 32
SPHERE_FLOATS = 8
SCREEN_FLOATS = 8
EPS = np.float32(1.0e-3)
F32 = np.float32


def make_inputs(params, rng):
    """Scene: ``spheres`` (n_spheres x 8: centre, radius, colour, reflectivity), a cluster
    in front of the screen (centres drawn uniformly in ``cluster_centre +-
    cluster_spread``), mirrors with probability ``mirror_share`` (reflectivity 0.5-0.9),
    matte otherwise; ``screen`` (8 floats: depth z, 1 / slat pitch, slat duty, slat
    reflectivity, colour): a plane facing the camera made of horizontal mirror slats
    with gaps between them; the directional ``light``."""
    n = params["n_spheres"]
    if not 1 <= n <= MAX_SPHERES:
        raise ConfigError(f"RAY: n_spheres must be in 1..{MAX_SPHERES}, got {n}")
    if params["n_rec"] < 1:
        raise ConfigError(f"RAY: n_rec must be at least 1, got {params['n_rec']}")
    s = np.zeros((n, SPHERE_FLOATS), dtype=np.float32)
    centre, spread = np.asarray(params["cluster_centre"]), np.asarray(params["cluster_spread"])
    s[:, 0:3] = centre + rng.uniform(-1.0, 1.0, (n, 3)) * spread
    s[:, 3] = rng.uniform(*params["radius"], n)
    s[:, 4:7] = rng.uniform(0.3, 1.0, (n, 3))
    mirror = rng.random(n) < params["mirror_share"]
    s[:, 7] = np.where(mirror, rng.uniform(0.5, 0.9, n), 0.0)
    # slats and gaps measured in pixel rows where the screen is seen head-on (rays
    # through pixel centres land half a row from every slat edge)
    rows, slat = params["pitch_rows"], params["slat_rows"]
    if not 0 < slat < rows:
        raise ConfigError(f"RAY: need 0 < slat_rows < pitch_rows, got {slat}, {rows}")
    pitch = rows * 2.0 * params["screen_depth"] * params["pixel_scale"]
    screen = np.zeros(SCREEN_FLOATS, dtype=np.float32)
    screen[:7] = (params["screen_depth"], 1.0 / pitch, slat / rows,
                  params["screen_reflectivity"], 0.55, 0.5, 0.45)
    light = np.array([-0.5, 0.8, -0.35])
    return {"spheres": s, "screen": screen,
            "light": (light / np.linalg.norm(light)).astype(np.float32)}


def launch(dev, module, inputs, params):
    w, h = params["width"], params["height"]
    spheres = inputs["spheres"]
    table = np.zeros(MAX_SPHERES * SPHERE_FLOATS, dtype=np.float32)
    table[:spheres.size] = spheres.ravel()
    module.get_global("c_spheres").set(table)
    module.get_global("c_screen").set(inputs["screen"])
    d_image = dev.zeros((h, w, 3), np.float32)
    kernel = module.get_function("ray_trace")
    kernel(((w + TB[0] - 1) // TB[0], (h + TB[1] - 1) // TB[1], 1), TB,
           (d_image, np.int32(w), np.int32(h), np.int32(spheres.shape[0]),
            np.int32(params["n_rec"]), F32(params["pixel_scale"]),
            *(F32(c) for c in inputs["light"]),
            *(F32(c) for k in ("light_colour", "ambient", "zenith", "horizon") for c in params[k])))
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
    spheres, screen = inputs["spheres"], inputs["screen"]
    lx, ly, lz = inputs["light"]
    scale = F32(params["pixel_scale"])
    ambient, light_rgb = np.asarray(params["ambient"]), np.asarray(params["light_colour"])
    zenith, horizon = np.asarray(params["zenith"]), np.asarray(params["horizon"])
    ys, xs = np.mgrid[0:h, 0:w]
    dx = (2 * xs - w + 1).astype(np.float32) * scale
    dy = (h - 1 - 2 * ys).astype(np.float32) * scale
    dz = np.ones_like(dx)
    ox, oy, oz = (np.zeros_like(dx) for _ in range(3))
    colour = np.zeros((h, w, 3))
    weight = np.ones((h, w, 3))
    active = np.ones((h, w), dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(params["n_rec"]):
            if not active.any():
                break
            a = _dot(dx, dy, dz, dx, dy, dz)
            n = spheres.shape[0]
            t_screen = (screen[0] - oz) / dz
            u = (oy + t_screen * dy) * screen[1]
            on_screen = (dz > 0) & (t_screen > EPS) & ((u - np.floor(u)) < screen[2])
            t_best = np.where(on_screen, t_screen, F32(3.0e38)).astype(np.float32)
            hit = np.where(on_screen, n, -1)
            for s in range(n):
                t = _sphere_hit((ox, oy, oz), (dx, dy, dz), a, spheres[s])
                closer = (t > 0) & (t < t_best)
                t_best = np.where(closer, t, t_best)
                hit = np.where(closer, s, hit)
            miss = active & (hit < 0)
            v = 0.5 + 0.5 * dy / np.sqrt(a.astype(np.float64))
            sky = horizon + (zenith - horizon) * v[..., None]
            colour += np.where(miss[..., None], weight * sky, 0.0)

            on = active & (hit >= 0)
            fl = hit == n
            sp = spheres[np.clip(hit, 0, n - 1)]
            t_hit = np.where(on, t_best, F32(0.0))
            px, py, pz = ox + t_hit * dx, oy + t_hit * dy, oz + t_hit * dz
            nx = np.where(fl, F32(0.0), px - sp[..., 0])
            ny = np.where(fl, F32(0.0), py - sp[..., 1])
            nz = np.where(fl, F32(-1.0), pz - sp[..., 2])
            refl32 = np.where(fl, screen[3], sp[..., 7])
            rgb = np.where(fl[..., None], screen[4:7], sp[..., 4:7])
            n_len = np.sqrt(nx.astype(np.float64) ** 2 + ny.astype(np.float64) ** 2
                            + nz.astype(np.float64) ** 2)
            al = _dot(lx, ly, lz, lx, ly, lz)
            ndotl = _dot(nx, ny, nz, lx, ly, lz)
            lit = on & (ndotl > 0)
            for s in range(n):
                occluded = _sphere_hit((px, py, pz), (lx, ly, lz), al, spheres[s]) > 0
                lit &= ~(occluded & (hit != s))
            lambert = ndotl / n_len / np.sqrt(np.float64(al))
            diffuse = np.where(lit, lambert + 0.25 * lambert ** 8, 0.0)
            shade = ambient + light_rgb * diffuse[..., None]
            refl = refl32.astype(np.float64)
            colour += np.where(on[..., None], weight * rgb * (1.0 - refl)[..., None] * shade, 0.0)

            bounce = on & (refl32 > 0)
            weight = np.where(bounce[..., None], weight * refl[..., None] * rgb, weight)
            k = (F32(2.0) * _dot(dx, dy, dz, nx, ny, nz)) / _dot(nx, ny, nz, nx, ny, nz)
            dx = np.where(bounce, dx - k * nx, dx)
            dy = np.where(bounce, dy - k * ny, dy)
            dz = np.where(bounce, dz - k * nz, dz)
            ox, oy, oz = (np.where(bounce, p, o) for p, o in ((px, ox), (py, oy), (pz, oz)))
            active = bounce
    return {"image": colour.astype(np.float32)}


_SCENE = {"n_rec": 5, "ambient": (0.1, 0.1, 0.12), "light_colour": (1.0, 0.95, 0.85),
          "zenith": (0.3, 0.5, 0.9), "horizon": (0.1, 0.2, 0.5),
          "screen_depth": 9.0, "pitch_rows": 10, "slat_rows": 4, "screen_reflectivity": 0.6,
          "cluster_centre": (0.0, -0.3, 6.0), "cluster_spread": (1.0, 0.8, 1.2),
          "radius": (0.4, 0.8), "mirror_share": 0.75}

WORKLOAD = Workload(
    name="RAY",
    description="ray tracing, mirror spheres and a slatted mirror screen: up to 5 bounces, "
                "nearest-hit loop and early-exit shadow loop per pass",
    source="ray.cu",
    tb_dims=TB,
    stands_for=("UV (dissertation ch. 2) Table 3: Ray tracing (RAY)",
                "WarpMan (dissertation ch. 3) Table 5: RayTracing (RAY), 6 warps per TB",
                "ILP (dissertation ch. 4) workloads: Ray",
                "CAPRI Table 2: RAY Ray Tracing (non-divergent class, 91% SIMD utilisation)"),
    sizes={"small": {"width": 128, "height": 96, "n_spheres": 10,
                     "pixel_scale": 1.0 / 96, **_SCENE},
           "default": {"width": 256, "height": 192, "n_spheres": 10,
                       "pixel_scale": 1.0 / 192, **_SCENE},
           # paper: 16 x 32 = 512 TBs, the TB count of WarpMan §3.3 (>= 11 waves on every GPU
           # the suite runs it on). UV Table 3's (512,512) would be 1,376 TBs and ~7M warp
           # instructions per run, beyond the time budget.
           "paper": {"width": 256, "height": 384, "n_spheres": 10,
                     "pixel_scale": 1.0 / 384, **_SCENE}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
    # decisions are exact; shading uses rsqrt.approx and FMAs
    tolerance={"image": Tolerance(rtol=2e-5, atol=2e-5)},
)
