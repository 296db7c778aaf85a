"""FW: batched fast Walsh-Hadamard transform (CUDA SDK fastWalshTransform structure),
TB (256,1).

Kernels in ``kernels/fw.cu``: radix-4 (and one radix-2 when needed) butterfly launches in
global memory for the high index bits, then one shared-memory launch that transforms each
1024-element chunk with five barrier-separated radix-4 stages. Inputs are integers in
[-8, 8] stored as float32, so every partial sum is an integer below 2**24 and the float
result is exact: the outputs compare without tolerance.
"""

from __future__ import annotations

import numpy as np

from golden.errors import SimtlabError
from golden.workloads.base import Tolerance, Workload

THREADS = 256
ELEM_LOG2 = 10


def make_inputs(params, rng):
    log2n, batch = params["log2n"], params["batch"]
    if log2n < ELEM_LOG2:
        raise SimtlabError(f"FW: log2n must be at least {ELEM_LOG2}, got {log2n}")
    data = rng.integers(-8, 9, size=(batch, 1 << log2n)).astype(np.float32)
    return {"data": data}


def launch(dev, module, inputs, params):
    data = inputs["data"]
    batch, n = data.shape
    log2n = params["log2n"]
    d_data = dev.to_device(data)
    d_out = dev.empty(data.shape, np.float32)
    radix4 = module.get_function("fwt_global_radix4")
    radix2 = module.get_function("fwt_global_radix2")
    # high bits (>= ELEM_LOG2) in global memory, two at a time from the top
    bit = log2n - 2
    while bit >= ELEM_LOG2:
        quads = batch * n // 4
        radix4(-(-quads // THREADS), THREADS, (d_data, np.int32(1 << bit), np.int32(quads)))
        bit -= 2
    if bit + 1 == ELEM_LOG2:          # one bit left over
        pairs = batch * n // 2
        radix2(-(-pairs // THREADS), THREADS,
               (d_data, np.int32(1 << ELEM_LOG2), np.int32(pairs)))
    module.get_function("fwt_shared")(batch * n >> ELEM_LOG2, THREADS, (d_out, d_data))
    return {"spectrum": d_out.get()}


def reference(inputs, params):
    """Walsh-Hadamard transform as one 2-point butterfly along each index bit (float64)."""
    data = inputs["data"].astype(np.float64)
    batch, n = data.shape
    log2n = params["log2n"]
    x = data.reshape((batch,) + (2,) * log2n)
    for axis in range(1, log2n + 1):
        a = np.take(x, 0, axis=axis)
        b = np.take(x, 1, axis=axis)
        x = np.stack((a + b, a - b), axis=axis)
    return {"spectrum": x.reshape(batch, n).astype(np.float32)}


WORKLOAD = Workload(
    name="FW",
    description="batched Walsh-Hadamard transform: radix-4 global-memory stages then "
                "shared-memory radix-4 stages (CUDA SDK fastWalshTransform structure)",
    source="fw.cu",
    tb_dims=(THREADS, 1, 1),
    stands_for=("DARSIE Table 1: FW fastWalshTransform [CUDA SDK], TB (256,1)",),
    sizes={"small": {"log2n": 13, "batch": 2},
           "default": {"log2n": 16, "batch": 4},
           # paper: 7 transforms of 2^16 points: every launch has 448 TBs = 2.00 waves on
           # pascal_1080ti (8 TBs/SM); the length must be a power of two, the batch need not.
           "paper": {"log2n": 16, "batch": 7}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
    # integer-valued inputs: every sum is exact in float32 (|values| < 2**24)
    tolerance={"spectrum": Tolerance(rtol=0.0, atol=0.0)},
)
