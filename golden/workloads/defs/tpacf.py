"""TPACF: two-point angular correlation histogram (binary search per pair, atomics).

Kernel ``tpacf_hist`` in ``kernels/tpacf.cu``: a 2-D grid of (i-tile, j-tile) blocks of
128 threads, j-points staged in shared memory, every pair i < j binned by a binary
search over the bin edges in ``__constant__`` memory (set with ``get_global``),
shared-memory ``atomicAdd`` per pair and global ``atomicAdd`` per bin per block.

Points: half clustered around random centres (so the small-angle bins fill, as with
galaxy catalogues), half uniform on the sphere. Bin edges: cosines of angles spaced
logarithmically from ``min_deg`` to ``max_deg``, descending. Bin b counts the pairs
whose cosine has exactly b edges above it (bin 0: closer than ``min_deg``).
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Workload

TB = 128
MAX_EDGES = 64     # ACF_MAX_EDGES: size of the constant-memory edge table


def make_inputs(params, rng):
    n = params["n_points"]
    n_clustered = n // 2
    centres = rng.standard_normal((params["n_clusters"], 3))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    owner = rng.integers(0, params["n_clusters"], size=n_clustered)
    clustered = centres[owner] + 0.05 * rng.standard_normal((n_clustered, 3))
    uniform = rng.standard_normal((n - n_clustered, 3))
    points = np.concatenate([clustered, uniform])
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    points = points[rng.permutation(n)].astype(np.float32)
    if not 0 < params["n_edges"] <= MAX_EDGES:
        raise ConfigError(f"TPACF: n_edges must be in 1..{MAX_EDGES}, got {params['n_edges']}")
    angles = np.logspace(np.log10(params["min_deg"]), np.log10(params["max_deg"]),
                         params["n_edges"])
    edges = np.cos(np.radians(angles)).astype(np.float32)
    return {"x": points[:, 0].copy(), "y": points[:, 1].copy(), "z": points[:, 2].copy(),
            "edges": edges}


def launch(dev, module, inputs, params):
    n = inputs["x"].size
    n_edges = inputs["edges"].size
    table = np.zeros(MAX_EDGES, dtype=np.float32)
    table[:n_edges] = inputs["edges"]
    module.get_global("c_edges").set(table)
    d_x, d_y, d_z = (dev.to_device(inputs[k]) for k in ("x", "y", "z"))
    d_hist = dev.zeros((n_edges + 1,), np.uint32)
    tiles = (n + TB - 1) // TB
    kernel = module.get_function("tpacf_hist")
    kernel((tiles, tiles, 1), (TB, 1, 1),
           (d_x, d_y, d_z, np.int32(n), np.int32(n_edges), d_hist))
    return {"hist": d_hist.get()}


def reference(inputs, params):
    """All pairs i < j at once; the dot product is rounded exactly as the kernel's
    __fmul_rn/__fadd_rn sequence ((x*x' + y*y') + z*z' in float32)."""
    x, y, z, edges = inputs["x"], inputs["y"], inputs["z"], inputs["edges"]
    i, j = np.triu_indices(x.size, k=1)
    dot = (x[i] * x[j] + y[i] * y[j]) + z[i] * z[j]
    bins = np.searchsorted(-edges, -dot, side="left")      # edges strictly above dot
    return {"hist": np.bincount(bins, minlength=edges.size + 1).astype(np.uint32)}


WORKLOAD = Workload(
    name="TPACF",
    description="angular-correlation pair histogram: binary search per pair, shared+global atomics",
    source="tpacf.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("CAPRI Table 2: TPACF Two-Point Angular Correlation (divergent)",
                "G-Scalar Table 2: tpacf (ACF), Parboil"),
    sizes={"small": {"n_points": 320, "n_clusters": 8, "n_edges": 20,
                     "min_deg": 0.5, "max_deg": 150.0},
           "default": {"n_points": 1280, "n_clusters": 24, "n_edges": 20,
                       "min_deg": 0.5, "max_deg": 150.0},
           # paper: 21 x 21 = 441 TBs: 2.10 waves on quadro_fx5800 (ptxas: 17 registers, 7
           # TBs/SM; 20 x 20 would be 1.90), 3.68 on gtx480 (8 TBs/SM); the seeds give no input. ~21k warp instructions per TB (128 x 128 pairs).
           "paper": {"n_points": 21 * TB, "n_clusters": 8, "n_edges": 20,
                     "min_deg": 0.5, "max_deg": 150.0}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
)
