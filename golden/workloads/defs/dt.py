"""DT: BC1/DXT1-like compression of an RGBA8 image, one 4x4 block per thread.

Kernel ``dxt1_compress`` in ``kernels/dt.cu``: bounding-box RGB565 endpoints, a 4-entry
palette, and per pixel the nearest palette entry by squared RGB distance (first on a tie).
A TB of 64 threads compresses 64 consecutive blocks of one 4-pixel strip (grid
``(width / 256, height / 4)``). The image is synthetic: 16x16 tiles that are flat
(one colour, so the block's endpoints coincide and the thread skips the palette search:
a data-dependent branch), smooth gradients, or noise. Output per block: two uint32 words
(endpoints ``c0 | c1 << 16``, 2-bit indices), compared exactly.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Workload

TB = 64                 # DT_TB in the kernel: blocks (threads) per TB
STRIP = 4 * TB          # pixels of image width per TB
TILE = 16               # side of the synthetic image's flat / gradient / noise tiles


def make_inputs(params, rng):
    h, w = params["height"], params["width"]
    if w % STRIP or h % TILE or w % TILE:
        raise ConfigError(f"DT: width must be a multiple of {STRIP} and height of {TILE}, "
                          f"got {w}x{h}")
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    kind = rng.integers(0, 3, size=(h // TILE, w // TILE)).repeat(TILE, 0).repeat(TILE, 1)
    flat = rng.integers(0, 256, size=(h // TILE, w // TILE, 3)).repeat(TILE, 0).repeat(TILE, 1)
    phase = rng.uniform(0, 2 * np.pi, size=3)
    gradient = np.stack([127.5 + 127.5 * np.sin(x / (37.0 + 13 * c) + y / (53.0 - 7 * c) + phase[c])
                         for c in range(3)], axis=-1)
    noise = np.clip(gradient + rng.normal(0.0, 40.0, size=(h, w, 3)), 0, 255)
    rgb = np.where((kind == 0)[..., None], flat,
                   np.where((kind == 1)[..., None], gradient, noise)).astype(np.uint32)
    alpha = rng.integers(0, 256, size=(h, w), dtype=np.uint32)     # ignored by BC1 colour
    image = rgb[..., 0] | (rgb[..., 1] << 8) | (rgb[..., 2] << 16) | (alpha << 24)
    return {"image": image.astype(np.uint32)}


def launch(dev, module, inputs, params):
    h, w = inputs["image"].shape
    d_img = dev.to_device(inputs["image"])
    d_out = dev.zeros((h // 4, w // 4, 2), np.uint32)
    module.get_function("dxt1_compress")((w // STRIP, h // 4, 1), (TB, 1, 1),
                                         (d_img, d_out, np.int32(w)))
    return {"blocks": d_out.get()}


def _pack565(r, g, b):
    return ((r >> 3) << 11) | ((g >> 2) << 5) | (b >> 3)


def _unpack565(c):
    r, g, b = (c >> 11) & 31, (c >> 5) & 63, c & 31
    return np.stack([(r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2)], axis=-1)


def reference(inputs, params):
    img = inputs["image"].astype(np.int64)
    h, w = img.shape
    # (block row, block col, pixel 0..15 in row-major order within the block, channel)
    blocks = img.reshape(h // 4, 4, w // 4, 4).transpose(0, 2, 1, 3).reshape(h // 4, w // 4, 16)
    rgb = np.stack([(blocks >> (8 * c)) & 255 for c in range(3)], axis=-1)
    hi, lo = rgb.max(axis=2), rgb.min(axis=2)
    c0 = _pack565(hi[..., 0], hi[..., 1], hi[..., 2])
    c1 = _pack565(lo[..., 0], lo[..., 1], lo[..., 2])
    p0, p1 = _unpack565(c0), _unpack565(c1)
    pal = np.stack([p0, p1, (2 * p0 + p1) // 3, (p0 + 2 * p1) // 3], axis=2)  # (.., 4, 3)
    dist = ((rgb[:, :, :, None, :] - pal[:, :, None, :, :]) ** 2).sum(axis=-1)  # (.., 16, 4)
    best = dist.argmin(axis=-1)                       # first minimum, as the kernel's "<"
    indices = (best << (2 * np.arange(16))).sum(axis=-1)
    indices[c0 == c1] = 0                             # flat block: the kernel skips the search
    out = np.stack([c0 | (c1 << 16), indices], axis=-1)
    return {"blocks": out.astype(np.uint32)}


WORKLOAD = Workload(
    name="DT",
    description="BC1/DXT1-like 4x4 block colour compression, one block per thread",
    source="dt.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("ILP (dissertation ch. 4) workloads: DT (dxtc, <= 16 warps per SM)",
                "UV (dissertation ch. 2) Table 3: dxtc (DT) (input 1024)"),
    sizes={"small": {"width": 256, "height": 128},
           "default": {"width": 512, "height": 512},
           # paper: 4 x 64 = 256 TBs = 2.84 waves on gtx280_ilp and gtx285 (3 TBs/SM: the
           # PTX register estimate, 72 per thread); at most 8 TBs/SM (2.13 waves, 16 warps)
           # would still fill both twice. UV Table 3's input "1024" is read as the width.
           "paper": {"width": 1024, "height": 256}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
)
