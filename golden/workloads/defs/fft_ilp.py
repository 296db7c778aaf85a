"""FFT-ILP: the ILP chapter's FFT, a version of FFT at the chapter's size and occupancy
(``variant_of="FFT"``; golden/workloads/base.py says how versions work).

The chapter (paper-facts §4.1) states that FFT runs 16 warps per SM, 8 TBs of 64x1, and
has only 128 TBs in total (§4.4), so the SMs starve for TBs; §4.5 gives its thread count as
16,384, which 128 TBs of 64 threads are not (8,192): we follow the TB count, which the ILP
study's argument rests on, and the fidelity table keeps the thread count out of tolerance
with that reason. FFT keeps the 1,024 TBs that UV and CAPRI run at
``paper`` size, and ptxas gives its kernel 46 registers per thread (5 TBs on the
chapter's 16,384-register SM). Kernel ``fft256_radix4_ilp`` in ``kernels/fft_ilp.cu``:
FFT's batched 256-point radix-4 Stockham FFT with 32 registers per thread, the most with
which 8 TBs of 64 threads fit 16,384 registers (given to ptxas with ``__maxnreg__``,
spill-free). Its ``paper`` size is the chapter's 128 TBs: 0.53 waves on gtx280_ilp, as
the chapter states (not the two-wave rule). Inputs and the numpy reference are FFT's.
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Workload
from golden.workloads.defs import fft

N, TB = fft.N, fft.TB


def launch(dev, module, inputs, params):
    batch = inputs["x"].shape[0]
    d_x = dev.to_device(inputs["x"])
    d_tw = dev.to_device(fft.twiddles())
    d_out = dev.zeros((batch, N, 2), np.float32)
    module.get_function("fft256_radix4_ilp")((batch, 1, 1), (TB, 1, 1), (d_x, d_tw, d_out))
    return {"X": d_out.get()}


WORKLOAD = Workload(
    name="FFT-ILP",
    description="batched 256-point complex FFT, radix-4 Stockham, at the ILP chapter's "
                "128 TBs and 8 TBs per SM",
    source="fft_ilp.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("ILP (dissertation ch. 4) workloads: FFT (64x1 TBs, 8 TBs = 16 warps per SM, "
                "128 TBs in all, no conditional branches)",),
    sizes={"small": {"batch": 32},
           "default": {"batch": 128},
           # paper: the chapter's 128 TBs of 64 threads (§4.4; 8,192 threads)
           "paper": {"batch": 128}},
    make_inputs=fft.make_inputs,
    launch=launch,
    reference=fft.reference,
    divergent=False,
    tolerance=dict(fft.WORKLOAD.tolerance),
    variant_of="FFT",
)
