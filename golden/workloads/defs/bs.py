"""BS: Black-Scholes call and put prices (CUDA SDK BlackScholes structure).

Kernel ``black_scholes`` in ``kernels/bs.cu``: a grid-stride loop over options (the grid
is smaller than the option count), logf/sqrtf for d1, expf and __fdividef in the
Abramowitz-Stegun cumulative normal, and the risk-free rate and volatility as uniform
kernel parameters.
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Tolerance, Workload

TB = 128
A1, A2, A3, A4, A5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
RSQRT2PI = 0.39894228040143267794


def make_inputs(params, rng):
    n = params["n_options"]
    return {"stock": rng.uniform(5.0, 30.0, n).astype(np.float32),
            "strike": rng.uniform(1.0, 100.0, n).astype(np.float32),
            "years": rng.uniform(0.25, 10.0, n).astype(np.float32)}


def launch(dev, module, inputs, params):
    n = inputs["stock"].size
    args = [dev.to_device(inputs[k]) for k in ("stock", "strike", "years")]
    d_call, d_put = dev.zeros((n,), np.float32), dev.zeros((n,), np.float32)
    kernel = module.get_function("black_scholes")
    kernel((params["grid"], 1, 1), (TB, 1, 1),
           (*args, d_call, d_put, np.int32(n), np.float32(params["riskfree"]),
            np.float32(params["volatility"])))
    return {"call": d_call.get(), "put": d_put.get()}


def _cnd(d):
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    c = RSQRT2PI * np.exp(-0.5 * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))))
    return np.where(d > 0, 1.0 - c, c)


def reference(inputs, params):
    """The same formulas in float64."""
    s, x, t = (inputs[k].astype(np.float64) for k in ("stock", "strike", "years"))
    r = float(np.float32(params["riskfree"]))
    v = float(np.float32(params["volatility"]))
    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t
    cnd1, cnd2 = _cnd(d1), _cnd(d2)
    discount = np.exp(-r * t)
    return {"call": (s * cnd1 - x * discount * cnd2).astype(np.float32),
            "put": (x * discount * (1.0 - cnd2) - s * (1.0 - cnd1)).astype(np.float32)}


WORKLOAD = Workload(
    name="BS",
    description="Black-Scholes option pricing: logf/sqrtf/expf/__fdividef, grid-stride loop",
    source="bs.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("ILP (dissertation ch. 4) workloads: BS (BlackScholes)",),
    sizes={"small": {"n_options": 16384, "grid": 32, "riskfree": 0.02, "volatility": 0.30},
           "default": {"n_options": 131072, "grid": 256, "riskfree": 0.02, "volatility": 0.30},
           # paper: 210 TBs = 2.00 waves on gtx480 (7 TBs/SM), 4 options per thread as in small
           # (the ILP chapter's Table 7 with the inputs survives only as an image).
           "paper": {"n_options": 107520, "grid": 210, "riskfree": 0.02, "volatility": 0.30}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
    # prices up to ~100 from float32 logf/expf (a few ulp) with cancellation in s*N(d1) - x*e*N(d2)
    tolerance={"call": Tolerance(rtol=1e-4, atol=2e-4), "put": Tolerance(rtol=1e-4, atol=2e-4)},
)
