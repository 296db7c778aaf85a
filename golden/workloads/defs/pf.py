"""PF: PathFinder dynamic programming over a grid of wall costs, several rows per launch.

Kernel ``pathfinder_rows`` in ``kernels/pf.cu`` (Rodinia pathfinder structure): TBs of
256 threads (8 warps, 2 KB of shared memory) keep a 256-column window; one launch
advances ``min(halo, rows left)`` rows, and each TB emits its 256 - 2*halo inner
columns. ``cost[r][c] = wall[r][c] + min(cost[r-1][c-1..c+1])`` with neighbours outside
the grid ignored; the output is the last row of costs.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Workload

TB = 256


def make_inputs(params, rng):
    return {"wall": rng.integers(0, 10, size=(params["rows"], params["cols"]), dtype=np.int32)}


def launch(dev, module, inputs, params):
    wall = inputs["wall"]
    rows, cols = wall.shape
    halo = params["halo"]
    if not 0 < halo < TB // 2:
        raise ConfigError(f"PF: halo must be in 1..{TB // 2 - 1}, got {halo}")
    out_cols = TB - 2 * halo
    d_wall = dev.to_device(wall)
    d_src = dev.to_device(wall[0].copy())
    d_dst = dev.empty((cols,), np.int32)
    kernel = module.get_function("pathfinder_rows")
    for start in range(0, rows - 1, halo):
        steps = min(halo, rows - 1 - start)
        kernel(((cols + out_cols - 1) // out_cols, 1, 1), (TB, 1, 1),
               (d_wall, d_src, d_dst, np.int32(cols), np.int32(start), np.int32(steps),
                np.int32(halo)))
        d_src, d_dst = d_dst, d_src
    return {"cost": d_src.get()}


def reference(inputs, params):
    wall = inputs["wall"]
    cost = wall[0].copy()
    for r in range(1, wall.shape[0]):
        left = np.concatenate([cost[:1], cost[:-1]])     # column 0 has no left neighbour
        right = np.concatenate([cost[1:], cost[-1:]])    # last column has no right one
        cost = wall[r] + np.minimum(np.minimum(left, cost), right)
    return {"cost": cost}


WORKLOAD = Workload(
    name="PF",
    description="PathFinder DP: min of three upper neighbours plus wall cost, pyramid of rows per launch",
    source="pf.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("UV (dissertation ch. 2) Table 3: PathFinder (PF)",
                "WarpMan (dissertation ch. 3) Table 5: PathFinder (PF), 2 KB shared, 8 warps per TB",
                "G-Scalar Table 2: pathfinder (PF), Rodinia",
                "Locality (dissertation ch. 5): pathfinder [Rodinia]"),
    sizes={"small": {"rows": 41, "cols": 4096, "halo": 10},
           "default": {"rows": 65, "cols": 32768, "halo": 16},
           # paper: UV Table 3 (seed 002 ch. 2): PathFinder 100000 columns, 424 TBs: 5.65 waves on
           # gtx480, 7.07 on gtx285; 11 rows = one launch of 10 steps.
           "paper": {"rows": 11, "cols": 100000, "halo": 10}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
)
