"""MQ: MRI Q-matrix (Parboil mri-q structure): sin/cos sums over k-space samples.

Two kernels in ``kernels/mq.cu``: ``compute_phi_mag`` (|phi|^2 per k-space sample), then
``compute_q`` once per chunk of 128 samples, which the host packs with the magnitudes
read back from the device into the ``__constant__`` array ``c_ksamples`` before each
launch (as Parboil does). Every lane of a warp reads the same sample in the same
iteration, so the loop's operands are warp-uniform; cosf/sinf compile to the full
range-reduction sequence (with a local-memory Payne-Hanek path for huge arguments).
The branches inside that sequence that pick the polynomial and the sign by the
argument's quadrant differ between lanes: that is the kernel's data-dependent divergence.
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Tolerance, Workload

TB = 256
CHUNK = 128       # MQ_CHUNK: constant-memory samples per launch


def make_inputs(params, rng):
    nk, nv = params["n_samples"], params["n_voxels"]
    return {"kx": rng.uniform(-4, 4, nk).astype(np.float32),
            "ky": rng.uniform(-4, 4, nk).astype(np.float32),
            "kz": rng.uniform(-4, 4, nk).astype(np.float32),
            "phi_r": rng.uniform(-1, 1, nk).astype(np.float32),
            "phi_i": rng.uniform(-1, 1, nk).astype(np.float32),
            "x": rng.uniform(-1, 1, nv).astype(np.float32),
            "y": rng.uniform(-1, 1, nv).astype(np.float32),
            "z": rng.uniform(-1, 1, nv).astype(np.float32)}


def launch(dev, module, inputs, params):
    nk, nv = inputs["kx"].size, inputs["x"].size
    d_phi_r, d_phi_i = dev.to_device(inputs["phi_r"]), dev.to_device(inputs["phi_i"])
    d_phi_mag = dev.zeros((nk,), np.float32)
    module.get_function("compute_phi_mag")(
        ((nk + TB - 1) // TB, 1, 1), (TB, 1, 1), (d_phi_r, d_phi_i, d_phi_mag, np.int32(nk)))
    phi_mag = d_phi_mag.get()

    d_x, d_y, d_z = (dev.to_device(inputs[k]) for k in ("x", "y", "z"))
    d_qr, d_qi = dev.zeros((nv,), np.float32), dev.zeros((nv,), np.float32)
    samples = module.get_global("c_ksamples")
    compute_q = module.get_function("compute_q")
    for start in range(0, nk, CHUNK):
        count = min(CHUNK, nk - start)
        table = np.zeros((CHUNK, 4), dtype=np.float32)
        table[:count] = np.stack([inputs["kx"][start:start + count], inputs["ky"][start:start + count],
                                  inputs["kz"][start:start + count], phi_mag[start:start + count]],
                                 axis=1)
        samples.set(table.ravel())
        compute_q(((nv + TB - 1) // TB, 1, 1), (TB, 1, 1),
                  (d_x, d_y, d_z, d_qr, d_qi, np.int32(nv), np.int32(count)))
    return {"phi_mag": phi_mag, "q_r": d_qr.get(), "q_i": d_qi.get()}


def reference(inputs, params):
    """Sums in float64 (the kernel accumulates in float32 with FMAs)."""
    phi_mag = inputs["phi_r"] * inputs["phi_r"] + inputs["phi_i"] * inputs["phi_i"]
    k = np.stack([inputs[c] for c in ("kx", "ky", "kz")]).astype(np.float64)
    v = np.stack([inputs[c] for c in ("x", "y", "z")]).astype(np.float64)
    arg = 2.0 * np.pi * (v.T @ k)                       # (voxels, samples)
    m = phi_mag.astype(np.float64)
    return {"phi_mag": phi_mag,
            "q_r": (np.cos(arg) @ m).astype(np.float32),
            "q_i": (np.sin(arg) @ m).astype(np.float32)}


WORKLOAD = Workload(
    name="MQ",
    description="MRI-Q: per-voxel sums of |phi|^2 cos/sin(2 pi k.x), k-space chunks in constant memory",
    source="mq.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("G-Scalar Table 2: mri-q (MQ), Parboil",),
    sizes={"small": {"n_samples": 136, "n_voxels": 512},
           "default": {"n_samples": 256, "n_voxels": 4096},
           # paper: 120 TBs of compute_q = 2.00 waves on gtx480 (ptxas: 30 registers, 4 TBs/SM,
           # the smallest input with 2 full waves); every TB loops over
           # all samples, so 32 samples (one constant-memory chunk) keep a run at 1.7M warp
           # instructions (G-Scalar gives no input).
           "paper": {"n_samples": 32, "n_voxels": 120 * TB}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
    # |phi|^2: one FMA vs two roundings; Q: arguments up to ~75 rad rounded to float32
    # (~5e-6 rad each), summed over up to a few hundred samples of weight <= 2
    tolerance={"phi_mag": Tolerance(rtol=2e-7, atol=0.0),
               "q_r": Tolerance(rtol=1e-4, atol=2e-3),
               "q_i": Tolerance(rtol=1e-4, atol=2e-3)},
)
