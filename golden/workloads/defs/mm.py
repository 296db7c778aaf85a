"""MM: tiled dense matrix multiply (CUDA SDK matrixMul structure), TB (32,32).

Kernel ``matrix_mul`` in ``kernels/mm.cu``: one 32x32 block per 32x32 tile of C, shared
memory tiles of A and B, a barrier before and after the 32 fused multiply-adds of each
tile step. The shared-memory loads of the tiles are the unstructured redundancy DARSIE's
§6.1 discusses for MM. WarpMan's MM (Table 5: 16x16 tiles) is the version MM-WARPMAN
(``mm_warpman.py``), UV's (Table 3: the SDK sample's own input) MM-UV (``mm_uv.py``).
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Tolerance, Workload

TILE = 32


def make_inputs(params, rng):
    """A (hA x wA) and B (wA x wB), uniform in [0, 1) like the SDK sample."""
    h_a, w_a, w_b = params["hA"], params["wA"], params["wB"]
    return {"A": rng.random((h_a, w_a), dtype=np.float32),
            "B": rng.random((w_a, w_b), dtype=np.float32)}


def tiled_launch(kernel_name: str, tile: int):
    """The launch of a TILE x TILE tiled multiply kernel ``kernel_name`` (MM's, and the
    versions of MM that other papers describe with other tiles)."""
    def launch(dev, module, inputs, params):
        a, b = inputs["A"], inputs["B"]
        h_a, w_a = a.shape
        w_b = b.shape[1]
        d_a, d_b = dev.to_device(a), dev.to_device(b)
        d_c = dev.empty((h_a, w_b), np.float32)
        kernel = module.get_function(kernel_name)
        kernel((w_b // tile, h_a // tile), (tile, tile),
               (d_c, d_a, d_b, np.int32(w_a), np.int32(w_b)))
        return {"C": d_c.get()}
    return launch


launch = tiled_launch("matrix_mul", TILE)


def reference(inputs, params):
    """C = A @ B accumulated in float64 and rounded to float32."""
    c = inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)
    return {"C": c.astype(np.float32)}


WORKLOAD = Workload(
    name="MM",
    description="C = A*B with 32x32 shared-memory tiles (CUDA SDK matrixMul structure)",
    source="mm.cu",
    tb_dims=(TILE, TILE, 1),
    stands_for=("DARSIE Table 1: MM MatrixMul [CUDA SDK], TB (32,32)",
                "ILP (dissertation ch. 4) workloads: MM",
                "G-Scalar Table 2: sgemm (MM)"),
    sizes={"small": {"hA": 64, "wA": 64, "wB": 64},
           "default": {"hA": 256, "wA": 128, "wB": 256},
           # paper: C is 352 x 352 = 11 x 11 = 121 TBs: 2.16 waves on pascal_1080ti (2 TBs/SM),
           # 8.07 on gtx480, 4.03 on gtx285; inner dimension 64 as small (cost per TB grows with
           # it). UV Table 3's (128,80) is the version MM-UV (16x16 tiles).
           "paper": {"hA": 352, "wA": 64, "wB": 352}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
    # float32 sums of wA positive products in a different order than the float64 reference
    tolerance={"C": Tolerance(rtol=1e-5, atol=1e-5)},
)
