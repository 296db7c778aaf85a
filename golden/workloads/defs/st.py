"""ST: 3-D 7-point Jacobi stencil, one thread per (x, y) column walking z, TBs of (32, 32).

Kernel ``stencil7_zwalk`` in ``kernels/st.cu`` (Parboil stencil's 2-D-block register
tiling): a thread whose column (i, j) is in the grid's interior walks z = 1 .. nz - 2
with the points below / at / above its plane in registers and writes
``c1 * (sum of the six face neighbours) - c0 * centre``; every other thread leaves at
once. The boundary is never written: both ping-pong buffers start as copies of the input
(as in Parboil), so it keeps its values. One launch per time step. The grid is stored
``[z][y][x]``; Parboil's constants c0 = 1/6, c1 = 1/36.

Why this shape (one workload for both papers that name ST):

* **WarpMan Table 5 / §3.3** (dissertation ch. 3): 0 shared memory, 32 warps per TB,
  1 TB per SM limited by threads and registers, 64 TBs; two warp types, "fewer than 50
  instructions or about 1,250", and in TB 0 all 32 warps busy at first, then only 8
  running for a long time (RTRU 70.1%, mean 81.7%); the chapter's Fig. 24 shows the
  cause, the interior guard ``i > 0 && j > 0 && i < nx - 1 && j < ny - 1`` leaving
  threads with large ids idle. Our ``paper`` input is a slab 2,048 x 10 x 50: 64 TBs
  of 32 x 32 threads in one TB row, each warp one row y, so rows 1..8 (8 warps) walk z
  and the other 24 warps (row 0, rows 9..31 past the grid) return after ~20 instructions;
  nz = 50 gives the long warps about 1,250 instructions. The seeds give no input.
* **G-Scalar Table 2** (Parboil stencil) publishes no per-benchmark property beyond the
  name; the kernel is Parboil's algorithm (z walk, register tiling, 32-bit indices).
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Tolerance, Workload

TB = (32, 32, 1)


def make_inputs(params, rng):
    shape = (params["nz"], params["ny"], params["nx"])
    return {"grid": rng.random(shape, dtype=np.float32)}


def launch(dev, module, inputs, params):
    grid = inputs["grid"]
    nz, ny, nx = grid.shape
    # both buffers start as the input: the kernel writes interior points only
    d_src, d_dst = dev.to_device(grid), dev.to_device(grid)
    kernel = module.get_function("stencil7_zwalk")
    blocks = ((nx + TB[0] - 1) // TB[0], (ny + TB[1] - 1) // TB[1], 1)
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
        # the kernel's order of additions: ((x-1 + x+1) + (y-1 + y+1)) + (z-1 + z+1)
        nbr = (((g[1:-1, 1:-1, :-2] + g[1:-1, 1:-1, 2:]) + (g[1:-1, :-2, 1:-1] + g[1:-1, 2:, 1:-1]))
               + (g[:-2, 1:-1, 1:-1] + g[2:, 1:-1, 1:-1]))
        out[1:-1, 1:-1, 1:-1] = c1 * nbr - c0 * g[1:-1, 1:-1, 1:-1]
        g = out
    return {"grid": g}


_C = {"c0": 1.0 / 6.0, "c1": 1.0 / 36.0}

WORKLOAD = Workload(
    name="ST",
    description="3-D 7-point Jacobi stencil, one thread per column walking z, TB (32,32)",
    source="st.cu",
    tb_dims=TB,
    stands_for=("G-Scalar Table 2: stencil (ST), Parboil",
                "WarpMan (dissertation ch. 3) Table 5: Stencil (ST)"),
    # every size: one TB row whose rows 1..ny-2 are interior (ny - 2 long warps per TB)
    sizes={"small": {"nx": 62, "ny": 10, "nz": 12, "steps": 2, **_C},
           "default": {"nx": 512, "ny": 10, "nz": 32, "steps": 2, **_C},
           # paper: 64 TBs (WarpMan §3.3), 1 TB per SM -> 4.27 waves on 15 SMs; long warps
           # ~1,250 instructions (nz = 50). One time step: each launch is alike.
           "paper": {"nx": 2048, "ny": 10, "nz": 50, "steps": 1, **_C}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
    tolerance={"grid": Tolerance(rtol=1e-5, atol=1e-6)},
)
