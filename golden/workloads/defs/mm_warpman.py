"""MM-WARPMAN: the WarpMan chapter's MatrixMultiply, a version of MM with the CUDA SDK
matrixMul's 16x16 tiles (``variant_of="MM"``; golden/workloads/base.py says how versions work).

WarpMan Table 5 (paper-facts §3.4) describes MM with 8 warps per TB, 2 KB of shared memory
per TB, 6,144 registers per TB and 5 TBs per SM, register-limited (the chapter's worked
example in §3.2); MM keeps DARSIE Table 1's 32x32 TB, which other papers depend on. Kernel
``matrix_mul_sdk16`` in ``kernels/mm_warpman.cu``: one 16x16 block per 16x16 tile of C, the
two 16x16 shared tiles (2 KB), 24 registers per thread (Table 5's 6,144 / 256, given to
ptxas with ``__maxnreg__``, spill-free). Inputs and the numpy reference are MM's, at MM's
sizes (the chapter uses the SDK's default input, which it does not state).
"""

from __future__ import annotations

from golden.workloads.base import Workload
from golden.workloads.defs import mm

TILE = 16


WORKLOAD = Workload(
    name="MM-WARPMAN",
    description="C = A*B with 16x16 shared-memory tiles (CUDA SDK matrixMul, WarpMan Table 5's MM)",
    source="mm_warpman.cu",
    tb_dims=(TILE, TILE, 1),
    stands_for=("WarpMan (dissertation ch. 3) Table 5: MatrixMultiply (MM), 8 warps per TB "
                "(SDK 16x16 tiles), 5 TBs per SM, register-limited",),
    # MM's inputs: paper 352 x 64 x 352 = 22 x 22 = 484 TBs, 6.45 waves on gtx480_warpman
    # (5 TBs/SM x 15 SMs)
    sizes={k: dict(v) for k, v in mm.WORKLOAD.sizes.items()},
    make_inputs=mm.make_inputs,
    launch=mm.tiled_launch("matrix_mul_sdk16", TILE),
    reference=mm.reference,
    divergent=False,
    tolerance=dict(mm.WORKLOAD.tolerance),
    variant_of="MM",
)
