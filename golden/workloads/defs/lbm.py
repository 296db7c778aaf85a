"""LBM: D2Q9 lattice-Boltzmann time steps with obstacles, walls and an inflow column.

Kernel ``lbm_step`` in ``kernels/lbm.cu``: a TB per lattice row of ``nx`` = 120 cells
(Parboil lbm's SIZE_X; 3.75 warps, so the last warp of every TB is partial), one launch
per time step with ping-pong buffers. Cell flags (uint8): 0 fluid, 1 obstacle (random
discs plus the top and bottom walls), 2 inflow (the left column). Distributions are
stored structure-of-arrays: ``f[q, y, x]``.
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Tolerance, Workload

FLUID, OBSTACLE, INFLOW = 0, 1, 2
EX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
EY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
OPP = np.array([0, 3, 4, 1, 2, 7, 8, 5, 6])
W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4, dtype=np.float32)


def _equilibrium(rho, ux, uy):
    """BGK equilibrium f_eq[q] for density and velocity fields (float32)."""
    usq = np.float32(1.5) * (ux * ux + uy * uy)
    feq = np.empty((9,) + rho.shape, dtype=np.float32)
    for q in range(9):
        cu = np.float32(3.0) * (np.float32(EX[q]) * ux + np.float32(EY[q]) * uy)
        feq[q] = W[q] * rho * (np.float32(1.0) + cu + np.float32(0.5) * cu * cu - usq)
    return feq


def make_inputs(params, rng):
    nx, ny = params["nx"], params["ny"]
    flags = np.zeros((ny, nx), dtype=np.uint8)
    yy, xx = np.mgrid[0:ny, 0:nx]
    for _ in range(params["n_obstacles"]):
        cx, cy = rng.uniform(10, nx - 4), rng.uniform(3, ny - 3)
        r = rng.uniform(2.0, 6.0)
        flags[(xx - cx) ** 2 + (yy - cy) ** 2 <= r * r] = OBSTACLE
    flags[:, 0] = INFLOW
    flags[0, :] = OBSTACLE
    flags[-1, :] = OBSTACLE
    rho = (1.0 + 0.01 * rng.standard_normal((ny, nx))).astype(np.float32)
    ux = np.full((ny, nx), params["inflow_u"], dtype=np.float32)
    uy = (0.01 * rng.standard_normal((ny, nx))).astype(np.float32)
    return {"flags": flags, "f": _equilibrium(rho, ux, uy)}


def launch(dev, module, inputs, params):
    f, flags = inputs["f"], inputs["flags"]
    ny, nx = flags.shape
    d_src, d_dst = dev.to_device(f), dev.empty(f.shape, np.float32)
    d_flags = dev.to_device(flags)
    kernel = module.get_function("lbm_step")
    for _ in range(params["steps"]):
        kernel((ny, 1, 1), (nx, 1, 1),
               (d_src, d_dst, d_flags, np.int32(nx), np.int32(ny),
                np.float32(params["omega"]), np.float32(params["inflow_u"])))
        d_src, d_dst = d_dst, d_src
    return {"f": d_src.get()}


def _step(src, flags, omega, inflow_u):
    """One pull-stream + collide step, vectorised over the lattice."""
    obstacle = flags == OBSTACLE
    f = np.empty_like(src)
    for q in range(9):
        shift = (int(EY[q]), int(EX[q]))
        pulled = np.roll(src[q], shift, axis=(0, 1))          # value at (y - ey, x - ex)
        upstream_solid = np.roll(obstacle, shift, axis=(0, 1))
        f[q] = np.where(upstream_solid, src[OPP[q]], pulled)
    rho = np.zeros_like(src[0])
    ux = np.zeros_like(src[0])
    uy = np.zeros_like(src[0])
    for q in range(9):
        rho += f[q]
        ux += f[q] * np.float32(EX[q])
        uy += f[q] * np.float32(EY[q])
    inflow = flags == INFLOW
    inv_rho = np.float32(1.0) / rho
    ux = np.where(inflow, np.float32(inflow_u), ux * inv_rho).astype(np.float32)
    uy = np.where(inflow, np.float32(0.0), uy * inv_rho).astype(np.float32)
    dst = f - np.float32(omega) * (f - _equilibrium(rho, ux, uy))
    dst[:, obstacle] = src[OPP][:, obstacle]                   # bounce back in place
    return dst


def reference(inputs, params):
    f = inputs["f"]
    for _ in range(params["steps"]):
        f = _step(f, inputs["flags"], params["omega"], params["inflow_u"])
    return {"f": f}


WORKLOAD = Workload(
    name="LBM",
    description="D2Q9 lattice Boltzmann: pull streaming, bounce-back obstacles, inflow, BGK collision",
    source="lbm.cu",
    tb_dims=(120, 1, 1),
    stands_for=("G-Scalar Table 2: lbm (LBM), Parboil",),
    sizes={"small": {"nx": 120, "ny": 64, "n_obstacles": 6, "steps": 2,
                     "omega": 1.2, "inflow_u": 0.05},
           "default": {"nx": 120, "ny": 512, "n_obstacles": 40, "steps": 4,
                       "omega": 1.2, "inflow_u": 0.05},
           # paper: ny = 150 rows (Parboil's lattice depth; G-Scalar gives no input) = 150 TBs =
           # 2.00 waves on gtx480 (5 TBs/SM).
           "paper": {"nx": 120, "ny": 150, "n_obstacles": 6, "steps": 2,
                     "omega": 1.2, "inflow_u": 0.05}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
    # float32 with FMA contraction in the kernel vs. separate roundings here
    tolerance={"f": Tolerance(rtol=1e-5, atol=1e-6)},
)
