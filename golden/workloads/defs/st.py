"""ST: 3-D 7-point Jacobi stencil on shared-memory tiles, thread blocks of (8, 8, 4).

Kernel ``stencil7`` in ``kernels/st.cu``: each TB stages its tile plus a one-point halo
(loaded by the threads on the tile faces) in shared memory; interior points become
``c0 * centre + c1 * (sum of the six face neighbours)``, boundary points are copied.
One launch per time step, ping-pong buffers. The grid is stored ``[z][y][x]``.
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Tolerance, Workload

TB = (8, 8, 4)


def make_inputs(params, rng):
    shape = (params["nz"], params["ny"], params["nx"])
    return {"grid": rng.random(shape, dtype=np.float32)}


def launch(dev, module, inputs, params):
    grid = inputs["grid"]
    nz, ny, nx = grid.shape
    d_src, d_dst = dev.to_device(grid), dev.empty(grid.shape, np.float32)
    kernel = module.get_function("stencil7")
    blocks = tuple((n + t - 1) // t for n, t in zip((nx, ny, nz), TB))
    for _ in range(params["steps"]):
        kernel(blocks, TB, (d_src, d_dst, np.int32(nx), np.int32(ny), np.int32(nz),
                            np.float32(params["c0"]), np.float32(params["c1"])))
        d_src, d_dst = d_dst, d_src
    return {"grid": d_src.get()}


def reference(inputs, params):
    g = inputs["grid"]
    c0, c1 = np.float32(params["c0"]), np.float32(params["c1"])
    for _ in range(params["steps"]):
        out = g.copy()
        nbr = (g[1:-1, 1:-1, :-2] + g[1:-1, 1:-1, 2:] + g[1:-1, :-2, 1:-1]
               + g[1:-1, 2:, 1:-1] + g[:-2, 1:-1, 1:-1] + g[2:, 1:-1, 1:-1])
        out[1:-1, 1:-1, 1:-1] = c0 * g[1:-1, 1:-1, 1:-1] + c1 * nbr
        g = out
    return {"grid": g}


WORKLOAD = Workload(
    name="ST",
    description="3-D 7-point Jacobi stencil, shared-memory tile with halo, TB (8,8,4)",
    source="st.cu",
    tb_dims=TB,
    stands_for=("G-Scalar Table 2: stencil (ST), Parboil",
                "WarpMan (dissertation ch. 3) Table 5: Stencil (ST)"),
    # sizes not multiples of the tile, so edge TBs are partly outside the grid
    sizes={"small": {"nx": 30, "ny": 24, "nz": 14, "steps": 2, "c0": 0.4, "c1": 0.1},
           "default": {"nx": 64, "ny": 62, "nz": 30, "steps": 3, "c0": 0.4, "c1": 0.1},
           # paper: 8 x 8 x 3 = 192 TBs = 3.2 waves on gtx480 (4 TBs/SM), 2.13 at WarpMan's
           # 64 k-register point (6 TBs/SM); the seeds give no input.
           "paper": {"nx": 64, "ny": 62, "nz": 12, "steps": 2, "c0": 0.4, "c1": 0.1}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
    tolerance={"grid": Tolerance(rtol=1e-5, atol=1e-6)},
)
