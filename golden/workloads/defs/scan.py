"""Scan: inclusive prefix sum of int32 values (Blelloch scan per 2048-element segment).

Kernels ``scan_blocks`` and ``scan_add_offsets`` in ``kernels/scan.cu``, three launches
of 512-thread TBs: segment scans (one TB per 2048 elements, 8448 B of shared memory, so one
TB = 16 warps per SM on the ILP chapter's GPU), one TB scanning the segment totals, and a
pass adding each segment's offset. Values are small non-negative integers, so sums stay far
from int32 overflow and the output compares exactly.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Workload

TB = 512          # SCAN_TB in the kernel
SEG = 4 * TB      # SCAN_SEG: elements per segment (TB)


def make_inputs(params, rng):
    n = params["n"]
    if not 0 < n <= SEG * SEG:
        raise ConfigError(f"Scan: need 0 < n <= {SEG * SEG} (one TB scans the segment totals), got {n}")
    return {"x": rng.integers(0, 100, size=n, dtype=np.int32)}


def launch(dev, module, inputs, params):
    n = inputs["x"].size
    segs = -(-n // SEG)
    d_x = dev.to_device(inputs["x"])
    d_out = dev.zeros((n,), np.int32)
    d_sums = dev.zeros((segs,), np.int32)
    d_scanned = dev.zeros((segs,), np.int32)
    d_total = dev.zeros((1,), np.int32)
    k_scan = module.get_function("scan_blocks")
    k_add = module.get_function("scan_add_offsets")
    k_scan((segs, 1, 1), (TB, 1, 1), (d_x, d_out, d_sums, np.int32(n)))
    if segs > 1:
        k_scan((1, 1, 1), (TB, 1, 1), (d_sums, d_scanned, d_total, np.int32(segs)))
        k_add((segs - 1, 1, 1), (TB, 1, 1), (d_out, d_scanned, np.int32(n)))
    return {"prefix": d_out.get()}


def reference(inputs, params):
    return {"prefix": np.cumsum(inputs["x"], dtype=np.int64).astype(np.int32)}


WORKLOAD = Workload(
    name="SCAN",
    description="inclusive int32 prefix sum: Blelloch scan per 2048-element TB + offset pass",
    source="scan.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("ILP (dissertation ch. 4) workloads: Scan (<= 16 warps per SM)",),
    sizes={"small": {"n": 10_000},
           "default": {"n": 100_000},
           # paper: 82 segment TBs = 2.73 waves on gtx280_ilp and 2.05 on the 40-SM GPU-T
           # of the heterogeneous-GPU study (1 TB/SM: shared memory and registers); the
           # offset pass (81 TBs, 2 TBs/SM) and the one-TB scan of the totals are a small
           # share of the warp instructions. The last segment is partial.
           "paper": {"n": 166_000}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    # only by thread index: tree levels with fewer than 32 pairs idle part of one warp
    # (like SR1's reduction tree); no data-dependent branch
    divergent=False,
)
