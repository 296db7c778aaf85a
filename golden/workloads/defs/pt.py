"""PT: pathfinder dynamic programming over a grid (Rodinia pathfinder structure),
TB (1024,1).

Kernel ``pathfinder_rows`` in ``kernels/pt.cu``: 1024-thread blocks, shared-memory
pyramid of ``pyramid_height`` rows per launch with overlapping halos, edge clamping and a
shrinking set of active threads (divergence at the pyramid edges and the grid ends).
The host launches it ceil((rows-1)/pyramid_height) times, swapping the row buffers.
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Workload

BLOCK = 1024


def make_inputs(params, rng):
    """Wall weights 0..9, as Rodinia draws them (rand() % 10)."""
    return {"wall": rng.integers(0, 10, size=(params["rows"], params["cols"]), dtype=np.int32)}


def launch(dev, module, inputs, params):
    wall = inputs["wall"]
    rows, cols = wall.shape
    height = params["pyramid_height"]
    kernel = module.get_function("pathfinder_rows")
    d_wall = dev.to_device(wall)
    d_src = dev.to_device(wall[0].copy())
    d_dst = dev.zeros((cols,), np.int32)
    blocks = -(-cols // (BLOCK - 2 * height))
    for start in range(0, rows - 1, height):
        iteration = min(height, rows - 1 - start)
        kernel(blocks, BLOCK, (d_wall, d_src, d_dst, np.int32(cols), np.int32(start),
                               np.int32(iteration), np.int32(height)))
        d_src, d_dst = d_dst, d_src
    return {"cost": d_src.get()}


def reference(inputs, params):
    """Row-by-row minimum over the three upper neighbours, edges clamped."""
    wall = inputs["wall"]
    cost = wall[0].copy()
    for row in wall[1:]:
        left = np.concatenate(([cost[0]], cost[:-1]))
        right = np.concatenate((cost[1:], [cost[-1]]))
        cost = row + np.minimum(np.minimum(left, cost), right)
    return {"cost": cost.astype(np.int32)}


WORKLOAD = Workload(
    name="PT",
    description="min-cost path through a weight grid, shared-memory pyramid of rows per "
                "launch (Rodinia pathfinder structure)",
    source="pt.cu",
    tb_dims=(BLOCK, 1, 1),
    # the other seeds' PathFinder (256-thread TBs, WarpMan Table 5) is the PF workload
    stands_for=("DARSIE Table 1: PT pathfinder [Rodinia], TB (1024,1)",),
    sizes={"small": {"rows": 13, "cols": 3000, "pyramid_height": 4},
           "default": {"rows": 17, "cols": 60000, "pyramid_height": 4},
           # paper: 112 TBs x 1016 output columns = 2.00 waves on pascal_1080ti (2 TBs/SM);
           # 9 rows = 2 launches of 4 steps (DARSIE gives no input).
           "paper": {"rows": 9, "cols": 113792, "pyramid_height": 4}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
)
