"""VA: float32 vector add, one element per thread.

Kernel ``vec_add`` in ``kernels/va.cu``: ``c[i] = a[i] + b[i]`` for ``i < n``, 256-thread
TBs, grid ``ceil(n / 256)``. The index math and bound check are the same in every warp of a
TB (the UV chapter's inter-warp-uniform instructions); only the last TB can be partial.
float32 addition is correctly rounded on the device and in numpy, so the output compares
exactly.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Workload

TB = 256


def make_inputs(params, rng):
    n = params["n"]
    if n <= 0:
        raise ConfigError(f"VA: need n > 0, got {n}")
    return {"a": rng.uniform(-1.0, 1.0, size=n).astype(np.float32),
            "b": rng.uniform(-1.0, 1.0, size=n).astype(np.float32)}


def launch(dev, module, inputs, params):
    n = inputs["a"].size
    d_a = dev.to_device(inputs["a"])
    d_b = dev.to_device(inputs["b"])
    d_c = dev.zeros((n,), np.float32)
    module.get_function("vec_add")((-(-n // TB), 1, 1), (TB, 1, 1), (d_a, d_b, d_c, np.int32(n)))
    return {"c": d_c.get()}


def reference(inputs, params):
    return {"c": inputs["a"] + inputs["b"]}


WORKLOAD = Workload(
    name="VA",
    description="float32 vector add c = a + b, one element per thread",
    source="va.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("UV (dissertation ch. 2) Table 3: Vector add (VA) (input (512,512))",),
    # small and default end in a partial TB (the bound check masks part of one warp)
    sizes={"small": {"n": 10_000},
           "default": {"n": 100_000},
           # paper: UV Table 3's "(512,512)" read as 512 x 512 = 262,144 elements: 1,024
           # TBs = 8.5 waves on gtx285 (4 TBs of 256 threads per SM, thread-limited)
           "paper": {"n": 512 * 512}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
)
