"""CP: direct Coulomb summation on a lattice slice (GPGPU-Sim distribution CP / cenergy
structure), TB (16,8).

Kernel ``cenergy`` in ``kernels/cp.cu``: atoms in ``__constant__`` float4 memory loaded in
chunks of 64 through ``module.get_global`` (one launch per chunk, each adding into the
grid), 4 lattice points per thread spaced one block width apart, ``rsqrtf`` per
atom and point. The per-atom loads and dy arithmetic are uniform across a block row.
"""

from __future__ import annotations

import numpy as np

from golden.errors import SimtlabError
from golden.workloads.base import Tolerance, Workload

TB = (16, 8, 1)
UNROLLX = 4
MAXATOMS = 64
GRIDSPACING = 0.1         # Angstrom between lattice points
F32 = np.float32


def make_inputs(params, rng):
    """Atoms spread over the slice's area, 0.5..4 A above it, charges in [-1, 1]."""
    nx, ny, n_atoms = params["nx"], params["ny"], params["atoms"]
    if nx % (TB[0] * UNROLLX) or ny % TB[1]:
        raise SimtlabError(f"CP: nx must be a multiple of {TB[0] * UNROLLX} and ny of {TB[1]}")
    atoms = np.empty((n_atoms, 4), F32)
    atoms[:, 0] = rng.uniform(0.0, nx * GRIDSPACING, n_atoms)
    atoms[:, 1] = rng.uniform(0.0, ny * GRIDSPACING, n_atoms)
    atoms[:, 2] = rng.uniform(0.5, 4.0, n_atoms)             # height above the slice
    atoms[:, 3] = rng.uniform(-1.0, 1.0, n_atoms)
    return {"atoms": atoms}


def constant_chunk(atoms):
    """Host-side layout of one chunk for the kernel: (x, y, dz^2, q), padded to MAXATOMS."""
    chunk = np.zeros((MAXATOMS, 4), F32)
    chunk[:len(atoms), 0:2] = atoms[:, 0:2]
    chunk[:len(atoms), 2] = atoms[:, 2] * atoms[:, 2]
    chunk[:len(atoms), 3] = atoms[:, 3]
    return chunk


def launch(dev, module, inputs, params):
    nx, ny = params["nx"], params["ny"]
    atoms = inputs["atoms"]
    d_grid = dev.zeros((ny, nx), F32)
    consts = module.get_global("atominfo", F32)
    kernel = module.get_function("cenergy")
    grid = (nx // (TB[0] * UNROLLX), ny // TB[1])
    for start in range(0, len(atoms), MAXATOMS):
        chunk = atoms[start:start + MAXATOMS]
        consts.set(constant_chunk(chunk))
        kernel(grid, TB[:2], (np.int32(len(chunk)), F32(GRIDSPACING), d_grid))
    return {"energy": d_grid.get()}


def reference(inputs, params):
    """sum_atoms q / distance in float64 at lattice point (x, y) = spacing * (i, j)."""
    nx, ny = params["nx"], params["ny"]
    atoms = inputs["atoms"].astype(np.float64)
    h = np.float64(F32(GRIDSPACING))
    x = h * np.arange(nx)[None, :]
    y = h * np.arange(ny)[:, None]
    energy = np.zeros((ny, nx))
    for ax, ay, az, q in atoms:
        energy += q / np.sqrt((x - ax) ** 2 + (y - ay) ** 2 + az * az)
    return {"energy": energy.astype(F32)}


WORKLOAD = Workload(
    name="CP",
    description="direct Coulomb potential on a lattice slice, atoms in constant memory, "
                "4 points per thread (GPGPU-Sim CP / cenergy structure)",
    source="cp.cu",
    tb_dims=TB,
    stands_for=("DARSIE Table 1: CP [GPGPU-Sim dist.], TB (16,8)",),
    sizes={"small": {"nx": 128, "ny": 32, "atoms": 128},
           "default": {"nx": 256, "ny": 128, "atoms": 256},
           # paper: 16 x 56 = 896 TBs = 2.00 waves on pascal_1080ti (16 TBs/SM). Each TB loops over
           # every atom, so 16 atoms (small: 128) keep a run at 1.4M warp instructions.
           "paper": {"nx": 1024, "ny": 448, "atoms": 16}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
    # rsqrt.approx (2 ulp) and float32 accumulation of +/- terms vs a float64 reference
    tolerance={"energy": Tolerance(rtol=1e-5, atol=2e-5)},
)
