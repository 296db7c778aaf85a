"""LPS: Jacobi sweeps of the 3-D Laplace equation (Dirichlet boundary), TB (32,4).

Kernel ``laplace3d_jacobi`` in ``kernels/lps.cu`` (standing in for the GPGPU-Sim
third-party 3D Laplace Solver of CAPRI Table 2): one thread per (i, j) column of a
32 x 4 tile, marching along z with the planes below and above in registers and the
current plane plus its one-point halo in shared memory. Tile-edge threads load the halo
(lanes 0 and 31 of every warp for x, the first and last warp for y) and domain-boundary
points keep their value: regular, patterned divergence that compaction cannot remove.
One launch per sweep, ping-ponging two grids.

Input: a grid with random interior values in [0, 1) and fixed boundary faces (a hot
z = 0 face at 1, the rest at 0 plus a ramp along x), seeded. The original's input is a
fixed grid of its own; ours differ in size and content (sizes below).
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Tolerance, Workload

BX, BY = 32, 4
F32 = np.float32


def make_inputs(params, rng):
    nx, ny, nz = params["nx"], params["ny"], params["nz"]
    if nx % BX or ny % BY or nz < 3:
        raise ConfigError(f"LPS: nx must be a multiple of {BX}, ny of {BY}, nz >= 3")
    u = rng.random((nz, ny, nx), dtype=F32)
    ramp = np.linspace(0.0, 0.5, nx, dtype=F32)
    u[:, 0, :] = ramp
    u[:, -1, :] = ramp
    u[:, :, 0] = 0.0
    u[:, :, -1] = 0.5
    u[-1] = 0.0
    u[0] = 1.0
    return {"u": u}


def launch(dev, module, inputs, params):
    u = inputs["u"]
    nz, ny, nx = u.shape
    d_src, d_dst = dev.to_device(u), dev.to_device(u)
    kernel = module.get_function("laplace3d_jacobi")
    for _ in range(params["sweeps"]):
        kernel((nx // BX, ny // BY, 1), (BX, BY, 1),
               (d_src, d_dst, np.int32(nx), np.int32(ny), np.int32(nz)))
        d_src, d_dst = d_dst, d_src
    return {"u": d_src.get()}


def reference(inputs, params):
    """The same sweeps in float32 with the kernel's summation order (x pair, y-1, y+1,
    z-1, z+1, then times float32(1/6))."""
    u = inputs["u"].copy()
    sixth = F32(1.0) / F32(6.0)
    for _ in range(params["sweeps"]):
        new = u.copy()
        s = u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:]
        s = s + u[1:-1, :-2, 1:-1]
        s = s + u[1:-1, 2:, 1:-1]
        s = s + u[:-2, 1:-1, 1:-1]
        s = s + u[2:, 1:-1, 1:-1]
        new[1:-1, 1:-1, 1:-1] = s * sixth
        u = new
    return {"u": u}


WORKLOAD = Workload(
    name="LPS",
    description="3-D Laplace Jacobi sweeps, 32x4 tiles marching in z, halo and boundary branches",
    source="lps.cu",
    tb_dims=(BX, BY, 1),
    stands_for=("CAPRI Table 2: LPS 3D Laplace Solver (divergent, 74% WPDOM SIMD utilisation)",),
    sizes={"small": {"nx": 64, "ny": 32, "nz": 16, "sweeps": 2},
           # default: 256 TBs, more than one wave of 30 SMs on quadro_fx5800
           "default": {"nx": 128, "ny": 256, "nz": 16, "sweeps": 2},
           # paper: 480 TBs per sweep (>= 2 waves on quadro_fx5800); the original's grid is
           # larger and its sweeps more; ours is sized for the simulator
           "paper": {"nx": 128, "ny": 480, "nz": 8, "sweeps": 2}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
    # float32 sums of six values in [0, 1] in the kernel's order, times float32(1/6): the
    # kernel and numpy round identically unless nvcc fuses an add into an FMA; 1e-6 covers
    # a few ulps of values <= 1 over the sweeps
    tolerance={"u": Tolerance(rtol=0.0, atol=1e-6)},
)
