"""PFLT: particle-filter object tracking over video frames, TB (128,1) (Rodinia
particlefilter structure).

Kernels in ``kernels/pflt.cu``, four launches per frame: ``pf_likelihood`` (move each
particle by (+1, -2) plus noise, sum (I-100)^2 - (I-228)^2 over a disk of pixels, multiply
the weight by a tabulated exponential of that sum; block scan of the weights),
``pf_block_scan`` (one block: prefix of the block totals), ``pf_normalise`` (weights /
total and the CDF) and ``pf_resample`` (u_j = u1 + j/n; binary-search loop for the
first CDF entry >= u_j; copy that particle, reset its weight).

Differences from Rodinia: the likelihood is the integer sum, and exp() is a 256-entry
``__constant__`` table indexed by that sum (Rodinia calls exp in double precision);
Rodinia normalises and builds the CDF partly serially and resamples with a linear
search, ours uses block scans and a binary search. Every float operation then has a
fixed order, so the reference reproduces weights, CDF and resampling choices exactly.
Frames (ours): a 128 x 128 uint8 video of a disk of value 228 (radius 5) moving by
(+1, -2) per frame on a background of 100, plus Gaussian noise; particles start at the
disk's first centre; the per-frame noises and u1 come from the seed.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Workload

TB = 128
MAX_DISK, TABLE, SHIFT = 128, 256, 13
RADIUS = 5
SIZE = 128
F32 = np.float32


def disk_offsets():
    d = np.arange(-RADIUS, RADIUS + 1)
    dx, dy = np.meshgrid(d, d)
    keep = dx * dx + dy * dy <= RADIUS * RADIUS
    return dx[keep].astype(np.int32), dy[keep].astype(np.int32)


def expo_table():
    return np.exp((np.arange(TABLE) - TABLE // 2) / 16.0).astype(F32)


def make_inputs(params, rng):
    n, frames = params["particles"], params["frames"]
    if n % TB:
        raise ConfigError(f"PFLT: particles must be a multiple of {TB}")
    start = np.array([SIZE / 2 - 8, SIZE / 2 + 8])
    yy, xx = np.mgrid[0:SIZE, 0:SIZE]
    video = np.empty((frames, SIZE, SIZE), np.uint8)
    for f in range(frames):
        cx, cy = start[0] + f, start[1] - 2 * f
        img = np.where((xx - cx) ** 2 + (yy - cy) ** 2 <= RADIUS ** 2, 228.0, 100.0)
        video[f] = np.clip(img + 5.0 * rng.standard_normal(img.shape), 0, 255).astype(np.uint8)
    return {"video": video,
            "x0": np.full(n, start[0], F32), "y0": np.full(n, start[1], F32),
            "noise_x": (5.0 * rng.standard_normal((frames, n))).astype(F32),
            "noise_y": (2.0 * rng.standard_normal((frames, n))).astype(F32),
            "u1": (rng.random(frames) / n).astype(F32)}


def launch(dev, module, inputs, params):
    video = inputs["video"]
    frames, height, width = video.shape
    n = inputs["x0"].size
    nb = n // TB
    per_thread = -(-nb // TB)
    dx, dy = disk_offsets()
    pad = np.zeros(MAX_DISK, np.int32)
    module.get_global("c_disk_dx", np.int32).set(np.concatenate([dx, pad[dx.size:]]))
    module.get_global("c_disk_dy", np.int32).set(np.concatenate([dy, pad[dy.size:]]))
    module.get_global("c_expo", F32).set(expo_table())
    d_x, d_y = dev.to_device(inputs["x0"]), dev.to_device(inputs["y0"])
    d_x2, d_y2 = dev.zeros((n,), F32), dev.zeros((n,), F32)
    d_w = dev.to_device(np.full(n, F32(1.0) / F32(n), F32))
    d_bs, d_off = dev.zeros((nb,), F32), dev.zeros((nb + 1,), F32)
    d_cdf = dev.zeros((n,), F32)
    d_chosen = dev.zeros((frames, n), np.int32)
    like = module.get_function("pf_likelihood")
    scan = module.get_function("pf_block_scan")
    norm = module.get_function("pf_normalise")
    resample = module.get_function("pf_resample")
    block = (TB, 1, 1)
    for f in range(frames):
        d_frame = dev.to_device(video[f])
        d_nx, d_ny = dev.to_device(inputs["noise_x"][f]), dev.to_device(inputs["noise_y"][f])
        like((nb, 1, 1), block, (d_x, d_y, d_nx, d_ny, d_frame, d_w, d_bs, np.int32(n),
                                 np.int32(width), np.int32(height), np.int32(dx.size)))
        scan((1, 1, 1), block, (d_bs, d_off, np.int32(nb), np.int32(per_thread)))
        norm((nb, 1, 1), block, (d_w, d_off, d_cdf, np.int32(n), np.int32(nb)))
        # row f of the (frames, n) choices, as a view of the same allocation
        chosen_f = type(d_chosen)(dev, d_chosen.ptr + f * n * 4, (n,), np.int32)
        resample((nb, 1, 1), block, (d_cdf, d_x, d_y, d_x2, d_y2, chosen_f, d_w,
                                     inputs["u1"][f], np.int32(n)))
        d_x, d_x2, d_y, d_y2 = d_x2, d_x, d_y2, d_y
    return {"x": d_x.get(), "y": d_y.get(), "chosen": d_chosen.get(), "cdf": d_cdf.get()}


def _block_scan(s):
    """Inclusive Hillis-Steele scan along the last axis (length TB), as the kernel does."""
    s = s.copy()
    d = 1
    while d < s.shape[-1]:
        s[..., d:] = s[..., d:] + s[..., :-d]
        d *= 2
    return s


def _lower_bound(cdf, u):
    """The kernel's binary-search loop, vectorised over the particles."""
    n = cdf.size
    lo, hi = np.zeros(u.size, np.int64), np.full(u.size, n, np.int64)
    while (lo < hi).any():
        active = lo < hi
        mid = (lo + hi) >> 1
        go = cdf[np.minimum(mid, n - 1)] < u
        lo = np.where(active & go, mid + 1, lo)
        hi = np.where(active & ~go, mid, hi)
    return np.minimum(lo, n - 1)


def reference(inputs, params):
    video = inputs["video"]
    frames, height, width = video.shape
    x, y = inputs["x0"].copy(), inputs["y0"].copy()
    n = x.size
    nb = n // TB
    k = -(-nb // TB)
    dx, dy = disk_offsets()
    expo = expo_table()
    w = np.full(n, F32(1.0) / F32(n), F32)
    chosen = np.zeros((frames, n), np.int32)
    j = np.arange(n)
    for f in range(frames):
        x = (x + F32(1.0)) + inputs["noise_x"][f]
        y = (y - F32(2.0)) + inputs["noise_y"][f]
        cx, cy = np.rint(x).astype(np.int64), np.rint(y).astype(np.int64)
        ix = np.clip(cx[:, None] + dx[None, :], 0, width - 1)
        iy = np.clip(cy[:, None] + dy[None, :], 0, height - 1)
        v = video[f][iy, ix].astype(np.int64)
        lik = ((v - 100) ** 2 - (v - 228) ** 2).sum(axis=1)
        b = np.clip((lik >> SHIFT) + TABLE // 2, 0, TABLE - 1)
        w = w * expo[b]
        local = _block_scan(w.reshape(nb, TB))
        bs = local[:, -1]
        chunks = np.zeros(TB * k, F32)
        chunks[:nb] = bs
        chunks = chunks.reshape(TB, k)
        parts = np.add.accumulate(chunks, axis=1, dtype=F32)[:, -1]
        incl = _block_scan(parts)
        excl = np.concatenate([[F32(0.0)], incl[:-1]]).astype(F32)
        running = np.add.accumulate(np.concatenate([excl[:, None], chunks], axis=1),
                                    axis=1, dtype=F32)
        offsets = running[:, :k].ravel()[:nb]
        total = incl[-1]
        cdf = ((offsets[:, None] + local) / total).astype(F32).ravel()
        u = inputs["u1"][f] + (j.astype(F32) / F32(n))
        pick = _lower_bound(cdf, u)
        chosen[f] = pick
        x, y = x[pick], y[pick]
        w = np.full(n, F32(1.0) / F32(n), F32)
    return {"x": x, "y": y, "chosen": chosen, "cdf": cdf}


WORKLOAD = Workload(
    name="PFLT",
    description="particle filter: disk likelihood per particle, block-scan normalisation and "
                "CDF, binary-search resampling (Rodinia particlefilter structure)",
    source="pflt.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("CAPRI Table 2: PFLT Particlefilter (non-divergent, 99% WPDOM SIMD "
                "utilisation)",),
    sizes={"small": {"particles": 2048, "frames": 3},
           # default: 256 TBs per particle launch, more than one wave of 30 SMs
           "default": {"particles": 32768, "frames": 2},
           # paper: 512 TBs per particle launch (>= 2 waves on quadro_fx5800); Rodinia's
           # default is 1000 particles over 10 frames of 128 x 128 (a fraction of one wave)
           "paper": {"particles": 65536, "frames": 2}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
    # no tolerance: every float operation (adds, products with table entries, scans in a
    # fixed order, correctly rounded divisions) is reproduced in the same order, so x, y,
    # cdf and the resampling choices compare exactly
)
