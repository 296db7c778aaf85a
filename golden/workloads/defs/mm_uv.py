"""MM-UV: the UV chapter's Matrix multiply, a version of MM with the CUDA SDK matrixMul's
16x16 tiles at the sample's own input (``variant_of="MM"``; golden/workloads/base.py says
how versions work).

UV Table 3 (paper-facts §2.8) gives MM's input as "(128,80)" and 2M scalar instructions.
Read as the SDK matrixMul's default matrices (16x16 blocks; A is 5 x 3 blocks, B 3 x 8,
so C is 80 rows by 128 columns), that input cannot be tiled by the 32x32 TB that MM keeps
for DARSIE Table 1 (80 is no multiple of 32), so UV runs this version. Kernel
``matrix_mul_uv16`` in ``kernels/mm_uv.cu`` (the walk of ``mm_tiled.cuh``, registers as
ptxas allocates them). Inputs and the numpy reference are MM's. The paper size is Table
3's input: 5 x 8 = 40 TBs, under two waves on gtx285 (the two-wave rule is for benchmarks
whose paper is silent; issue 66).
"""

from __future__ import annotations

from golden.workloads.base import Workload
from golden.workloads.defs import mm

TILE = 16


WORKLOAD = Workload(
    name="MM-UV",
    description="C = A*B with 16x16 shared-memory tiles (CUDA SDK matrixMul at its own input, UV Table 3's MM)",
    source="mm_uv.cu",
    tb_dims=(TILE, TILE, 1),
    stands_for=("UV (dissertation ch. 2) Table 3: Matrix multiply (MM) (input (128,80): "
                "the SDK matrixMul's 80 x 48 by 48 x 128)",),
    sizes={"small": {"hA": 64, "wA": 48, "wB": 64},
           "default": {"hA": 160, "wA": 48, "wB": 256},
           # paper: UV Table 3's (128,80): C = 80 x 128 (the SDK's HA = 5, WA = 3, WB = 8
           # blocks of 16)
           "paper": {"hA": 80, "wA": 48, "wB": 128}},
    make_inputs=mm.make_inputs,
    launch=mm.tiled_launch("matrix_mul_uv16", TILE),
    reference=mm.reference,
    divergent=False,
    tolerance=dict(mm.WORKLOAD.tolerance),
    variant_of="MM",
)
