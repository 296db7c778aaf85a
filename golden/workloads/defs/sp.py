"""SP: batched scalar products by the CUDA SDK scalarProd algorithm, in double.

Kernel ``scalar_prod`` in ``kernels/sp.cu``, the algorithm of the SDK's scalarProd (UV
Table 3's ScalarProduct, the ILP chapter's SCP), written from its description: the grid
strides over vector pairs; a pair is first reduced by ``ACCUM_N`` = 1,024 partial
accumulators in shared memory, accumulator ``k`` summing the products at positions ``k``,
``k + ACCUM_N``, ... and each thread serving accumulators ``tid``, ``tid + 256``, ...;
then a tree halves the accumulators (barrier, then ``accum[k] += accum[k + stride]`` for
every ``k < stride``, the threads striding over ``k``) until thread 0 writes
``accum[0]``. The SDK accumulates in float; we keep double (products of float32 inputs
are exact, so only the order of the sum differs from numpy). Exercises f64 arithmetic,
f32->f64 conversion and double-word shared memory (8 KB per TB).
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Tolerance, Workload

TB = 256


def make_inputs(params, rng):
    """``n_vectors`` pairs of float32 vectors of ``length`` elements, uniform in [0, 1)."""
    shape = (params["n_vectors"], params["length"])
    return {"a": rng.random(shape, dtype=np.float32), "b": rng.random(shape, dtype=np.float32)}


def launch(dev, module, inputs, params):
    n_vectors, length = inputs["a"].shape
    d_a, d_b = dev.to_device(inputs["a"]), dev.to_device(inputs["b"])
    d_result = dev.zeros((n_vectors,), np.float64)
    kernel = module.get_function("scalar_prod")
    kernel((params["grid"], 1, 1), (TB, 1, 1),
           (d_a, d_b, d_result, np.int32(n_vectors), np.int32(length)))
    return {"dot": d_result.get()}


def reference(inputs, params):
    """Products of float32 inputs are exact in float64, so only the order of the sum
    differs from the kernel."""
    a = inputs["a"].astype(np.float64)
    b = inputs["b"].astype(np.float64)
    return {"dot": np.einsum("ij,ij->i", a, b)}


WORKLOAD = Workload(
    name="SP",
    description="batched dot products (SDK scalarProd): 1,024 strided double accumulators + shared-memory tree",
    source="sp.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("UV (dissertation ch. 2) Table 3: ScalarProduct (SP)",
                "ILP (dissertation ch. 4) workloads: SCP (scalarProd)"),
    # grid < n_vectors, so each TB handles several vector pairs (grid-stride loop)
    sizes={"small": {"n_vectors": 64, "length": 1024, "grid": 32},
           "default": {"n_vectors": 256, "length": 4096, "grid": 128},
           # paper: UV Table 3 (seed 002 ch. 2): ScalarProduct 524288 elements = 128 vectors of
           # 4096; 128 TBs: 2.13 waves on gtx480 and gtx285.
           "paper": {"n_vectors": 128, "length": 4096, "grid": 128}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
    # positive terms: a sum of n terms in any order is within n * 2^-53 relative
    tolerance={"dot": Tolerance(rtol=1e-11, atol=0.0)},
)
