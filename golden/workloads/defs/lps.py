"""LPS: Jacobi sweeps of the 3-D Laplace equation (Dirichlet boundary), TB (32,4).

Kernel ``laplace3d_jacobi`` in ``kernels/lps.cu`` (standing in for the 3D Laplace Solver
of GPGPU-Sim's ispass2009 benchmarks, CAPRI Table 2), written after the original's
algorithm: one thread per (i, j) column of a 32 x 4 block marches along z, computing each
point from its six neighbours in global memory; threads past the x or y edge of the
domain are inactive and domain-boundary points keep their value. The divergence is
regular and patterned (the same lanes in every plane): compaction cannot remove it.
One launch per sweep, ping-ponging two grids whose rows are padded to ``pitch`` floats.

Input (sizes below: ``paper`` keeps the original's NX = 100 and single sweep), with
random interior values in [0, 1) and fixed boundary faces (a hot z = 0 face at 1, the rest
at 0 plus a ramp along x), seeded; the original starts from 1 on the boundary and 0
inside (the values decide no branch).
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Tolerance, Workload

BX, BY = 32, 4
F32 = np.float32


def row_pitch(nx: int) -> int:
    """Floats per padded row: ``nx`` floats rounded up to 256 bytes (a 400-byte row of
    the original's 100-point grid takes 512 bytes, as cudaMallocPitch pads it)."""
    return -(-nx * 4 // 256) * 64


def make_inputs(params, rng):
    nx, ny, nz = params["nx"], params["ny"], params["nz"]
    if nx < 2 or ny < 2 or nz < 3:
        raise ConfigError(f"LPS: needs nx >= 2, ny >= 2 and nz >= 3 (got {nx}, {ny}, {nz})")
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
    pitch = row_pitch(nx)
    padded = np.zeros((nz, ny, pitch), dtype=F32)
    padded[:, :, :nx] = u
    d_src, d_dst = dev.to_device(padded), dev.to_device(padded)
    kernel = module.get_function("laplace3d_jacobi")
    for _ in range(params["sweeps"]):
        kernel((-(-nx // BX), -(-ny // BY), 1), (BX, BY, 1),
               (d_src, d_dst, np.int32(nx), np.int32(ny), np.int32(nz), np.int32(pitch)))
        d_src, d_dst = d_dst, d_src
    return {"u": np.ascontiguousarray(d_src.get()[:, :, :nx])}


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
    description="3-D Laplace Jacobi sweeps, one thread per (i, j) column marching in z, "
                "inactive and boundary lanes (ispass2009 LPS algorithm)",
    source="lps.cu",
    tb_dims=(BX, BY, 1),
    stands_for=("CAPRI Table 2: LPS 3D Laplace Solver (divergent, 74% WPDOM SIMD utilisation)",),
    sizes={"small": {"nx": 40, "ny": 30, "nz": 16, "sweeps": 2},
           # default: 4 x 64 = 256 TBs, more than one wave of 30 SMs on quadro_fx5800
           "default": {"nx": 100, "ny": 256, "nz": 16, "sweeps": 2},
           # paper: the original's default row width and sweep count (GPGPU-Sim's
           # ispass2009 LPS, laplace3d.cu: NX = NY = NZ = 100, REPEAT = 1, 32 x 4 blocks;
           # NX = 100 leaves 28 of 32 lanes of the last column of blocks inactive). CAPRI
           # does not state its input, so NY follows the two-wave rule (4 x 120 = 480 TBs,
           # 2.67 waves of 6 TBs/SM, register-limited, on quadro_fx5800's 30 SMs; the
           # original's 100 rows give 0.56) and NZ is 20 for the time budget (functional
           # SIMD utilisation 73.4%; 72.4% at NZ = 100)
           "paper": {"nx": 100, "ny": 480, "nz": 20, "sweeps": 1}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
    # float32 sums of six values in [0, 1] in the kernel's order, times float32(1/6): the
    # kernel and numpy round identically unless nvcc fuses an add into an FMA; 1e-6 covers
    # a few ulps of values <= 1 over the sweeps
    tolerance={"u": Tolerance(rtol=0.0, atol=1e-6)},
)
