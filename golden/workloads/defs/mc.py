"""MC: Monte Carlo pricing of European call options (CUDA SDK MonteCarlo structure).

Kernel ``monte_carlo_partials`` in ``kernels/mc.cu``: grid (``blocks_per_option``,
``n_options``) of 384-thread TBs. Every option is priced from the same ``path_n``
standard normal samples, drawn on the host and passed in as an array (the SDK draws them
on the GPU first). As in the SDK, the host preprocesses each option into float32
``{S, X, MuByT = (R - V*V/2)*T, VBySqrtT = V*sqrt(T)}``; the payoff of sample ``r`` is
``max(S * __expf(VBySqrtT*r + MuByT) - X, 0)``. Thread ``g`` of an option's
``blocks_per_option * 384`` threads takes samples ``g, g + stride, ...`` and writes its
own sum of payoffs and of squared payoffs to global memory as one float2 (no shared
memory, no barrier); ``launch`` then finishes on the host as the SDK does: the call value
``exp(-R*T) * mean`` and the 95% confidence width ``exp(-R*T) * 1.96 * stddev /
sqrt(path_n)``. When ``path_n`` is not a multiple of the stride, some threads take one
sample more, so the warps of a TB finish at slightly different times.

Option data follow the SDK sample: S uniform in [5, 50), X in [10, 25), T in [1, 5),
R = 0.06, V = 0.10.

WarpMan Table 5 stand-ins: MonteCarlo (MC): 12 warps per TB (384 threads) and no shared
memory as in Table 5. Table 5's 7,680 registers per TB (20 per thread) come from nvcc's
allocation; the timing model's PTX liveness estimate (``simtlab list --occupancy``) also
gives 20 per thread (7,680 per TB, 4 TBs per SM, thread- and register-limited as in
Table 5), helped by the SDK-style float4 option table, the float2 output and ``#pragma
unroll 1`` on the path loop.
"""

from __future__ import annotations

import math

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Tolerance, Workload

TB = 384
RISKFREE = 0.06
VOLATILITY = 0.10


def make_inputs(params, rng):
    n_opt, path_n = params["n_options"], params["path_n"]
    if n_opt <= 0 or path_n <= 1:
        raise ConfigError(f"MC: need n_options > 0 and path_n > 1, got {n_opt}, {path_n}")
    return {"samples": rng.standard_normal(path_n).astype(np.float32),
            "spot": rng.uniform(5.0, 50.0, n_opt).astype(np.float32),
            "strike": rng.uniform(10.0, 25.0, n_opt).astype(np.float32),
            "years": rng.uniform(1.0, 5.0, n_opt).astype(np.float32)}


def _finish(partial_sum, partial_sq, years, path_n):
    """Call value and confidence width per option from the per-thread partial sums."""
    total = partial_sum.astype(np.float64).sum(axis=1)
    total_sq = partial_sq.astype(np.float64).sum(axis=1)
    # the discount through the C library's scalar exp, not numpy's: numpy dispatches exp to
    # CPU-specific SIMD code (AVX-512 or not) whose last bit differs between hosts, and the
    # outputs must not depend on the machine that simulates them
    discount = np.array([math.exp(-RISKFREE * float(y)) for y in years], dtype=np.float64)
    mean = total / path_n
    stddev = np.sqrt(np.maximum(total_sq - total * total / path_n, 0.0) / (path_n - 1))
    return discount * mean, discount * 1.96 * stddev / np.sqrt(path_n)


def option_table(inputs):
    """The SDK's host-side preprocessing: float32 {S, X, MuByT, VBySqrtT} per option."""
    t = inputs["years"].astype(np.float64)
    table = np.stack([inputs["spot"], inputs["strike"],
                      (RISKFREE - 0.5 * VOLATILITY * VOLATILITY) * t,
                      VOLATILITY * np.sqrt(t)], axis=1)
    return table.astype(np.float32)


def launch(dev, module, inputs, params):
    n_opt, path_n, blocks = params["n_options"], params["path_n"], params["blocks_per_option"]
    threads = blocks * TB
    d_samples = dev.to_device(inputs["samples"])
    d_options = dev.to_device(option_table(inputs))
    d_partial = dev.zeros((n_opt, threads, 2), np.float32)
    module.get_function("monte_carlo_partials")(
        (blocks, n_opt, 1), (TB, 1, 1), (d_samples, np.int32(path_n), d_options, d_partial))
    partial = d_partial.get()
    partial_sum, partial_sq = partial[..., 0].copy(), partial[..., 1].copy()
    value, confidence = _finish(partial_sum, partial_sq, inputs["years"], path_n)
    return {"partial_sum": partial_sum, "partial_sq": partial_sq,
            "call_value": value, "confidence": confidence}


def reference(inputs, params):
    """Per-thread partial sums in float64 from the same float32 option table (rounded to
    float32), then the same finish."""
    n_opt, path_n, blocks = params["n_options"], params["path_n"], params["blocks_per_option"]
    threads = blocks * TB
    r = np.zeros(-(-path_n // threads) * threads)
    r[:path_n] = inputs["samples"].astype(np.float64)
    used = np.zeros_like(r, dtype=bool)
    used[:path_n] = True
    r, used = r.reshape(-1, threads), used.reshape(-1, threads)       # [iteration, thread]
    s, x, mu_by_t, v_by_sqrt_t = (c[:, None, None] for c in option_table(inputs).astype(np.float64).T)
    payoff = np.maximum(s * np.exp(v_by_sqrt_t * r[None] + mu_by_t) - x, 0.0) * used[None]
    partial_sum = payoff.sum(axis=1)
    partial_sq = (payoff * payoff).sum(axis=1)
    value, confidence = _finish(partial_sum, partial_sq, inputs["years"], path_n)
    return {"partial_sum": partial_sum.astype(np.float32),
            "partial_sq": partial_sq.astype(np.float32),
            "call_value": value, "confidence": confidence}


WORKLOAD = Workload(
    name="MC",
    description="Monte Carlo option pricing: per-thread payoff sums over shared normal samples",
    source="mc.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("WarpMan (dissertation ch. 3) Table 5: MonteCarlo (MC), 12 warps per TB, no shared memory",),
    # path_n is never a multiple of the stride (blocks_per_option x 384): uneven threads
    sizes={"small": {"n_options": 4, "blocks_per_option": 2, "path_n": 3000},
           "default": {"n_options": 16, "blocks_per_option": 8, "path_n": 25_600},
           # paper: 64 x 4 = 256 TBs (4.27 waves on gtx480 at 4 TBs/SM); the SDK sample prices
           # 256 options over 262,144 paths each, 4x the options and 16x the paths
           # (about 64x the work), beyond the time budget.
           "paper": {"n_options": 64, "blocks_per_option": 4, "path_n": 16_000}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
    # __expf and float32 accumulation (FMA-contracted) against a float64 reference
    tolerance={"partial_sum": Tolerance(rtol=2e-5, atol=1e-4),
               "partial_sq": Tolerance(rtol=2e-5, atol=1e-3),
               "call_value": Tolerance(rtol=1e-5, atol=1e-5),
               "confidence": Tolerance(rtol=1e-4, atol=1e-6)},
)
