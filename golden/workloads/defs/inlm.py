"""INLM: non-local-means image denoising (CUDA SDK imageDenoising NLM structure),
TB (16,16).

Kernel ``nlm_denoise`` in ``kernels/inlm.cu``: one thread per pixel, a 5x5 search window
times a 3x3 patch distance (clamp-to-edge global reads where the sample uses a texture),
exponential weights, a per-pixel data-dependent choice of blend factor. Pixels are
integer-valued floats (an 8-bit image), so the patch distances are exact; the weights use
``__expf`` and carry a tolerance.
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Tolerance, Workload

TB = (16, 16, 1)
WIN_R, BLK_R = 2, 1
F32 = np.float32
INV_WIN_AREA = F32(1.0) / F32((2 * WIN_R + 1) ** 2)
WEIGHT_THRESHOLD = F32(0.10)
LERP_THRESHOLD = F32(0.10)
NOISE = 1.0 / 2500.0      # 1 / (expected patch distance of two noisy copies of one patch)
LERP_C = 0.2              # blend factor of the SDK sample


def make_inputs(params, rng):
    """An 8-bit style image: smooth shapes plus Gaussian noise (sigma 12), rounded."""
    h, w = params["height"], params["width"]
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    clean = 128.0 + 70.0 * np.sin(x / 9.0 + y / 13.0) + 40.0 * ((x - w / 2) ** 2 + (y - h / 2) ** 2 < (h / 3) ** 2)
    noisy = np.clip(np.rint(clean + rng.normal(0.0, 12.0, size=(h, w))), 0, 255)
    return {"image": noisy.astype(F32)}


def launch(dev, module, inputs, params):
    image = inputs["image"]
    h, w = image.shape
    d_src = dev.to_device(image)
    d_dst = dev.empty((h, w), F32)
    grid = (-(-w // TB[0]), -(-h // TB[1]))
    module.get_function("nlm_denoise")(
        grid, TB[:2], (d_dst, d_src, np.int32(w), np.int32(h), F32(NOISE), F32(LERP_C)))
    return {"denoised": d_dst.get()}


def reference(inputs, params):
    """Same window/patch loops in float32, vectorised over pixels (edge padding = clamp)."""
    src = inputs["image"]
    h, w = src.shape
    r = WIN_R + BLK_R
    padded = np.pad(src, r, mode="edge")

    def shifted(dx, dy):          # fetch(ix + dx, iy + dy) for every pixel
        return padded[r + dy:r + dy + h, r + dx:r + dx + w]

    noise, lerp_c = F32(NOISE), F32(LERP_C)
    sum_weights = np.zeros((h, w), F32)
    colour = np.zeros((h, w), F32)
    fcount = np.zeros((h, w), F32)
    for i in range(-WIN_R, WIN_R + 1):
        for j in range(-WIN_R, WIN_R + 1):
            dist = np.zeros((h, w), F32)
            for n in range(-BLK_R, BLK_R + 1):
                for m in range(-BLK_R, BLK_R + 1):
                    d = shifted(j + m, i + n) - shifted(m, n)
                    dist = dist + d * d
            weight = np.exp(-(dist * noise + F32(i * i + j * j) * INV_WIN_AREA))
            colour = colour + shifted(j, i) * weight
            sum_weights = sum_weights + weight
            fcount = fcount + np.where(weight > WEIGHT_THRESHOLD, INV_WIN_AREA, F32(0.0))
    colour = colour * (F32(1.0) / sum_weights)
    lerp_q = np.where(fcount > LERP_THRESHOLD, lerp_c, F32(1.0) - lerp_c)
    return {"denoised": (src + (colour - src) * lerp_q).astype(F32)}


WORKLOAD = Workload(
    name="INLM",
    description="non-local-means denoising, 5x5 window of 3x3 patch distances per pixel "
                "(CUDA SDK imageDenoising NLM structure, global memory for the texture)",
    source="inlm.cu",
    tb_dims=TB,
    stands_for=("DARSIE Table 1: INLM ImageDenoisingNLM [CUDA SDK], TB (16,16)",),
    sizes={"small": {"height": 32, "width": 32},
           "default": {"height": 128, "width": 128},
           # paper: 17 x 17 = 289 TBs: 2.06 waves on pascal_1080ti (5 TBs/SM, register limited);
           # the smallest square image with 2 waves (~17k warp instructions per TB).
           "paper": {"height": 272, "width": 272}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,      # the per-pixel choices compile to selects, not branches
    # __expf (ex2.approx) vs numpy exp: a few ulp per weight; pixel values up to 255
    tolerance={"denoised": Tolerance(rtol=1e-5, atol=1e-3)},
)
