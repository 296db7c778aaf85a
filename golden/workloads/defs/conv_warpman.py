"""CONV-WARPMAN: the WarpMan chapter's ConvolutionTexture (CT), a version of CONV with the
CUDA SDK convolutionTexture's 16x12 thread blocks (``variant_of="CONV"``;
golden/workloads/base.py says how versions work).

WarpMan Table 5 (paper-facts §3.4) describes CT with 6 warps per TB, no shared memory and
7 TBs per SM, register-limited; §3.3 says it leaves 512 registers (1.6%) of the 32 k
unused, i.e. 4,608 registers per TB (Table 5's own 3,068 contradicts both, paper-facts
§3.4 ⚠). CONV keeps DARSIE Table 1's 16x16 TB. Kernels ``convolution_rows_ct`` then
``convolution_columns_ct`` in ``kernels/conv_warpman.cu``: CONV's separable 17-tap filter
with 24 registers per thread (given to ptxas with ``__maxnreg__``, spill-free). Inputs and
the numpy reference are CONV's, at CONV's sizes (512 x 512 at ``paper``: 32 x 43 = 1,376
TBs, 13.1 waves on gtx480_warpman).
"""

from __future__ import annotations

from golden.workloads.base import Workload
from golden.workloads.defs import conv

TB = (16, 12, 1)


WORKLOAD = Workload(
    name="CONV-WARPMAN",
    description="separable 17-tap convolution, rows then columns, in 16x12 TBs (CUDA SDK "
                "convolutionTexture, WarpMan Table 5's CT)",
    source="conv_warpman.cu",
    tb_dims=TB,
    stands_for=("WarpMan (dissertation ch. 3) Table 5: ConvolutionTexture (CT), 6 warps per "
                "TB (SDK 16x12), 7 TBs per SM, register-limited",),
    sizes={k: dict(v) for k, v in conv.WORKLOAD.sizes.items()},
    make_inputs=conv.make_inputs,
    launch=conv.separable_launch(TB, "convolution_rows_ct", "convolution_columns_ct"),
    reference=conv.reference,
    divergent=False,
    tolerance=dict(conv.WORKLOAD.tolerance),
    variant_of="CONV",
)
