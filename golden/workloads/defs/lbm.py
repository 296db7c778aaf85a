"""LBM: D3Q19 lattice-Boltzmann time steps of a lid-driven cavity, in Parboil lbm's shape.

Kernel ``performStreamCollide`` in ``kernels/lbm.cu`` (G-Scalar Table 2: Parboil lbm).
A TB per x-row of ``nx`` = 120 cells (Parboil's SIZE_X; 3.75 warps), grid (ny, nz), one
launch per time step with ping-pong grids. The grid is structure-of-arrays: 20 fields
(19 distributions in Parboil's direction order C N S E W T B NE NW SE SW NT NB ST SB ET EB
WT WB, then the flag word as float bits) of ``field`` floats, rows padded to 128 floats
and two margin planes before and after the lattice (Parboil's padding and margin).

Input, as Parboil's driver builds it (LBM_initializeGrid, LBM_loadObstacleFile,
LBM_initializeSpecialCellsForLDC): every cell (margins too) starts at the rest
equilibrium (1/3, 1/18, 1/36); the six faces of the box are OBSTACLE; the two lid layers
z = 1 and z = nz-2 (x, y away from the side walls by two cells) are ACCEL; an obstacle
shape from the input file is added. Parboil's file (120_120_150_ldc.of) is not available
here, so the shape is a sphere centred in the cavity, ``sphere_radius`` (a fraction of the
smaller cross-section side); it is part of the input, not a fitted parameter. No random
numbers are used: Parboil's input is deterministic.
"""

from __future__ import annotations

import numpy as np

from golden.errors import SimtlabError
from golden.workloads.base import Tolerance, Workload

F32 = np.float32
OBSTACLE, ACCEL = 1, 2
#: Parboil's constants: relaxation, lid velocity
OMEGA = F32(1.95)
LID_U = (F32(0.005), F32(0.002), F32(0.0))
#: D3Q19 directions in the kernel's (Parboil's) order: (ex, ey, ez)
DIRS = ((0, 0, 0), (0, 1, 0), (0, -1, 0), (1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1),
        (1, 1, 0), (-1, 1, 0), (1, -1, 0), (-1, -1, 0), (0, 1, 1), (0, 1, -1), (0, -1, 1),
        (0, -1, -1), (1, 0, 1), (1, 0, -1), (-1, 0, 1), (-1, 0, -1))
OPP = tuple(DIRS.index((-ex, -ey, -ez)) for ex, ey, ez in DIRS)
WEIGHT = tuple(F32(1 / 3) if sum(map(abs, d)) == 0 else F32(1 / 18) if sum(map(abs, d)) == 1
               else F32(1 / 36) for d in DIRS)
FLAGS = 19
ROW_PAD = 8        # Parboil pads each x-row by 8 floats (120 -> 128)
MARGIN_PLANES = 2  # and keeps two planes of margin before and after the lattice


def geometry(params):
    """(row, plane, field): padded row length, plane size and per-field length in floats."""
    nx, ny, nz = params["nx"], params["ny"], params["nz"]
    row = nx + ROW_PAD
    plane = row * ny
    return row, plane, plane * (nz + 2 * MARGIN_PLANES)


def cell_flags(params):
    """Flag word of every lattice cell, shape (nz, ny, nx), uint32 (OBSTACLE / ACCEL / 0)."""
    nx, ny, nz = params["nx"], params["ny"], params["nz"]
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    flags = np.zeros((nz, ny, nx), dtype=np.uint32)
    # the obstacle shape (LBM_loadObstacleFile), then the cavity (ForLDC): walls win over
    # the shape's flag, ACCEL is OR-ed onto cells that are not walls
    r = params["sphere_radius"] * min(ny, nz)
    sphere = ((x - (nx - 1) / 2) ** 2 + (y - (ny - 1) / 2) ** 2
              + (z - (nz - 1) / 2) ** 2) <= r * r
    flags[sphere] |= OBSTACLE
    wall = (x == 0) | (x == nx - 1) | (y == 0) | (y == ny - 1) | (z == 0) | (z == nz - 1)
    flags[wall] |= OBSTACLE
    lid = ~wall & ((z == 1) | (z == nz - 2)) & (x > 1) & (x < nx - 2) & (y > 1) & (y < ny - 2)
    flags[lid] |= ACCEL
    return flags


def lattice_cells(params):
    """Flat index (within one field) of every lattice cell, shape (nz, ny, nx)."""
    nx, ny, nz = params["nx"], params["ny"], params["nz"]
    row, plane, _ = geometry(params)
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    return (z + MARGIN_PLANES) * plane + y * row + x


def make_inputs(params, rng):
    """The initial grid (20, field) float32: rest equilibrium everywhere, flags in field 19."""
    if params["nx"] > 1024 or min(params["nx"], params["ny"], params["nz"]) < 5:
        raise SimtlabError("LBM: nx must be <= 1024 (one TB per row) and nx, ny, nz >= 5")
    _, _, field = geometry(params)
    grid = np.empty((20, field), dtype=F32)
    for q in range(19):
        grid[q] = WEIGHT[q]
    words = np.zeros(field, dtype=np.uint32)
    words[lattice_cells(params).ravel()] = cell_flags(params).ravel()
    grid[FLAGS] = words.view(F32)
    return {"grid": grid}


def launch(dev, module, inputs, params):
    row, plane, field = geometry(params)
    grid = inputs["grid"]
    d_src, d_dst = dev.to_device(grid), dev.to_device(grid)
    kernel = module.get_function("performStreamCollide")
    for _ in range(params["steps"]):
        kernel((params["ny"], params["nz"], 1), (params["nx"], 1, 1),
               (d_src, d_dst, np.int32(row), np.int32(plane), np.int32(field)))
        d_src, d_dst = d_dst, d_src
    return {"grid": d_src.get()}


def _step(src, dst, cells, offsets, flags):
    """One pull-stream + collide step on the lattice cells (float32, the kernel's order)."""
    f = [src[q, cells - offsets[q]] for q in range(19)]
    obstacle = (flags & OBSTACLE) != 0
    accel = (flags & ACCEL) != 0
    rho = f[0].copy()
    u = [np.full_like(rho, F32(-0.0)) for _ in range(3)]
    for q in range(1, 19):
        rho = rho + f[q]
    for q in range(19):
        for a in range(3):
            if DIRS[q][a] > 0:
                u[a] = u[a] + f[q]
            elif DIRS[q][a] < 0:
                u[a] = u[a] - f[q]
    with np.errstate(divide="ignore", invalid="ignore"):
        u = [np.where(accel, LID_U[a], u[a] / rho).astype(F32) for a in range(3)]
    u2m = F32(1.5) * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) - F32(1.0)
    omega_rho = OMEGA * rho
    keep = F32(1.0) - OMEGA
    for q in range(19):
        cu = np.full_like(rho, F32(-0.0))
        for a in range(3):
            if DIRS[q][a] > 0:
                cu = cu + u[a]
            elif DIRS[q][a] < 0:
                cu = cu - u[a]
        collided = keep * f[q] + WEIGHT[q] * omega_rho * (cu * (F32(4.5) * cu + F32(3.0)) - u2m)
        dst[q, cells] = np.where(obstacle, f[OPP[q]], collided)


def reference(inputs, params):
    row, plane, _ = geometry(params)
    cells = lattice_cells(params).ravel()
    offsets = [ex + ey * row + ez * plane for ex, ey, ez in DIRS]
    flags = inputs["grid"][FLAGS].view(np.uint32)[cells]
    src, dst = inputs["grid"].copy(), inputs["grid"].copy()
    for _ in range(params["steps"]):
        _step(src, dst, cells, offsets, flags)
        src, dst = dst, src
    return {"grid": src}


_BASE = {"nx": 120, "sphere_radius": 0.2}

WORKLOAD = Workload(
    name="LBM",
    description="Parboil lbm: D3Q19 lid-driven cavity, pull streaming, bounce-back, ACCEL lid, BGK",
    source="lbm.cu",
    tb_dims=(120, 1, 1),
    stands_for=("G-Scalar Table 2: lbm (LBM), Parboil",),
    sizes={"small": {**_BASE, "ny": 8, "nz": 8, "steps": 2},
           "default": {**_BASE, "ny": 16, "nz": 20, "steps": 4},
           # paper: Parboil's 'short' lattice is 120 x 120 x 150 (18,000 TBs per step, 100
           # steps); G-Scalar gives no input. Scaled for time: y and z and the step count by
           # 10 (the lid disturbance moves one cell per step, so steps / nz is Parboil's),
           # 180 TBs per step = 3 waves on gtx480 (4 TBs/SM: 64 registers per ptxas).
           "paper": {**_BASE, "ny": 12, "nz": 15, "steps": 10}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
    # float32; the kernel's FMA contraction vs. separate roundings here
    tolerance={"grid": Tolerance(rtol=1e-5, atol=1e-6)},
)
