"""LIB: LIBOR market model Monte-Carlo swaption portfolio (GPGPU-Sim distribution LIBOR
structure), TB (256,1).

Kernel ``libor_portfolio`` in ``kernels/lib.cu``: one thread per path, long per-thread
loops over time steps and forward rates held in per-thread local-memory arrays, model
constants in ``__constant__`` memory (set through ``module.get_global``), a payoff branch
that depends on the path. No shared memory, no barriers.
"""

from __future__ import annotations

import numpy as np

from golden.errors import SimtlabError
from golden.workloads.base import Tolerance, Workload

THREADS = 256
NN_MAX = 48               # sizes of the kernel's per-thread and constant arrays
NOPT_MAX = 16
DELTA = 0.25              # accrual period (years)
L0 = 0.05                 # initial forward rate
F32 = np.float32


def make_inputs(params, rng):
    paths, n, nmat, nopt = params["paths"], params["N"], params["Nmat"], params["Nopt"]
    if not (0 < nmat < n <= NN_MAX and 0 < nopt <= NOPT_MAX):
        raise SimtlabError(f"LIB: need 0 < Nmat < N <= {NN_MAX} and 0 < Nopt <= {NOPT_MAX}")
    maturities = np.linspace(1, n - nmat, nopt).round().astype(np.int32)
    swaprates = (0.045 + 0.005 * (np.arange(nopt) % 3)).astype(F32)
    lam = (0.2 + 0.02 * rng.standard_normal(n)).astype(F32)
    z = rng.standard_normal((nmat, paths)).astype(F32)
    return {"z": z, "lambda": lam, "maturities": maturities, "swaprates": swaprates}


def _padded(values, size, dtype):
    out = np.zeros(size, dtype)
    out[:values.size] = values
    return out


def launch(dev, module, inputs, params):
    z = inputs["z"]
    nmat, paths = z.shape
    module.get_global("c_lambda", F32).set(_padded(inputs["lambda"], NN_MAX, F32))
    module.get_global("c_maturities", np.int32).set(_padded(inputs["maturities"], NOPT_MAX, np.int32))
    module.get_global("c_swaprates", F32).set(_padded(inputs["swaprates"], NOPT_MAX, F32))
    d_z = dev.to_device(z)
    d_value = dev.empty((paths,), F32)
    module.get_function("libor_portfolio")(
        -(-paths // THREADS), THREADS,
        (d_z, d_value, np.int32(paths), np.int32(params["N"]), np.int32(nmat),
         np.int32(params["Nopt"]), F32(DELTA), F32(L0)))
    return {"value": d_value.get()}


def reference(inputs, params):
    """The same path simulation and valuation in float32, vectorised over paths."""
    z, lam = inputs["z"], inputs["lambda"]
    nmat, paths = z.shape
    n = params["N"]
    delta = F32(DELTA)
    rates = np.full((paths, n), F32(L0), F32)
    sqez = np.sqrt(delta)
    for step in range(nmat):
        zz = sqez * z[step]
        v = np.zeros(paths, F32)
        for i in range(step + 1, n):
            lam_i = lam[i - step - 1]
            con1 = delta * lam_i
            v = v + con1 * rates[:, i] / (F32(1.0) + delta * rates[:, i])
            rates[:, i] = rates[:, i] * np.exp(con1 * v + lam_i * (zz - F32(0.5) * con1))
    bond = np.zeros((paths, n), F32)
    annuity = np.zeros((paths, n), F32)
    b, s = np.ones(paths, F32), np.zeros(paths, F32)
    for k in range(nmat, n):
        b = b / (F32(1.0) + delta * rates[:, k])
        s = s + delta * b
        bond[:, k], annuity[:, k] = b, s
    value = np.zeros(paths, F32)
    for mat, rate in zip(inputs["maturities"], inputs["swaprates"]):
        m = mat + nmat - 1
        swapval = bond[:, m] + rate * annuity[:, m] - F32(1.0)
        value = np.where(swapval < 0, value + F32(-100.0) * swapval, value)
    for k in range(nmat):
        value = value / (F32(1.0) + delta * rates[:, k])
    return {"value": value.astype(F32)}


WORKLOAD = Workload(
    name="LIB",
    description="LIBOR market model Monte-Carlo swaption portfolio, one path per thread "
                "(GPGPU-Sim distribution LIBOR structure)",
    source="lib.cu",
    tb_dims=(THREADS, 1, 1),
    stands_for=("DARSIE Table 1: LIB [GPGPU-Sim dist.], TB (256,1)",
                "CAPRI Table 2: LIB LIBOR Monte Carlo (non-divergent)"),
    sizes={"small": {"paths": 1024, "N": 16, "Nmat": 8, "Nopt": 6},
           "default": {"paths": 16384, "N": 24, "Nmat": 12, "Nopt": 8},
           # paper: 448 TBs = 2.00 waves on pascal_1080ti (ptxas: 31 registers, 8 TBs/SM),
           # 7.47 on quadro_fx5800 (2 TBs/SM); the smallest input with 2 full waves on both.
           # Per-path loops are N x Nmat long: half of small's N and Nmat keep a run at 2.2M warp
           # instructions (the seeds give no input).
           "paper": {"paths": 448 * 256, "N": 8, "Nmat": 4, "Nopt": 4}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
    # expf and divisions over Nmat x N steps; payoffs are 100 x (B + r*S - 1), a
    # cancellation that turns float32 rounding of B and S into ~1e-5 absolute errors
    tolerance={"value": Tolerance(rtol=1e-4, atol=5e-4)},
)
