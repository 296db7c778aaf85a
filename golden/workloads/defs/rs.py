"""RS: LSD radix sort of key/value pairs, 4-bit digits (CUDA SDK radixSort structure).

Kernels in ``kernels/rs.cu``, all with 512-thread TBs, on pairs stored as ``uint2``
``{key, value}``; per 4-bit digit (``key_bits / 4`` passes, least significant first)
three launches:

1. ``rs_local_sort`` (the main kernel, one TB per 512-pair tile, 4,224 B of shared
   memory): four stable 1-bit splits of the tile as in the SDK's radixSortBlocks. Each
   split ranks the pairs whose bit is 0 with a warp ballot; the 16 per-warp counts are
   scanned by warp 0 in shared memory between ``__syncthreads()``, then the tile is
   permuted in shared memory; the TB writes the sorted tile and, per digit, the length and start of the digit's run
   in the tile (digit-major tables);
2. ``rs_scan_counts`` (one TB): exclusive scan of the 16 x ``n_tiles`` count table, the
   global offset of every (digit, tile) run;
3. ``rs_scatter``: each pair to its run's offset plus its rank in the run.

The SDK sample has the same steps (radixSortBlocks, findRadixOffsets, a CUDPP scan,
reorderData) with 4 pairs per thread in 256-thread TBs; here one pair per thread. Keys
are uniform over ``[0, 2**key_bits)`` (with repeats), values are the pairs' original
positions; the output must equal a stable numpy sort exactly (keys and values).

WarpMan Table 5 stand-ins: RadixSort (RS): 16 warps per TB (512 threads) as in Table 5;
shared memory per TB 4,224 B (the 4 KB tile plus 128 B of counters) against Table 5's
4 KB. Table 5's 11,776 registers per TB (23 per thread) come from nvcc's allocation; the
timing model's PTX liveness estimate (``simtlab list --occupancy``) gives 30 per thread,
15,360 per TB: 2 TBs per SM, register-limited, as in Table 5 (with 6.25% of the register
file unused instead of 28.1%). A keys-only, 1-bit-scan variant with exactly 4 KB of
shared memory estimated 21 registers per thread, which fits 3 TBs per SM (thread-limited),
so it was not used.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Workload

TB = 512
RADIX_BITS = 4
RADIX = 1 << RADIX_BITS


def make_inputs(params, rng):
    n, bits = params["n"], params["key_bits"]
    if n <= 0 or n % TB:
        raise ConfigError(f"RS: n must be a positive multiple of {TB}, got {n}")
    if bits % RADIX_BITS or not 0 < bits <= 32:
        raise ConfigError(f"RS: key_bits must be a multiple of {RADIX_BITS} in 4..32, got {bits}")
    return {"keys": rng.integers(0, 1 << bits, size=n, dtype=np.uint64).astype(np.uint32),
            "values": np.arange(n, dtype=np.uint32)}


def launch(dev, module, inputs, params):
    n = inputs["keys"].size
    n_tiles = n // TB
    pairs = np.stack([inputs["keys"], inputs["values"]], axis=1)      # uint2 {key, value}
    d_src = dev.to_device(pairs)
    d_dst = dev.empty(pairs.shape, np.uint32)
    d_tile = dev.empty(pairs.shape, np.uint32)
    d_counts = dev.empty((RADIX * n_tiles,), np.uint32)
    d_starts = dev.empty((RADIX * n_tiles,), np.uint32)
    d_offsets = dev.empty((RADIX * n_tiles,), np.uint32)
    local_sort = module.get_function("rs_local_sort")
    scan = module.get_function("rs_scan_counts")
    scatter = module.get_function("rs_scatter")
    for shift in range(0, params["key_bits"], RADIX_BITS):
        local_sort((n_tiles, 1, 1), (TB, 1, 1),
                   (d_src, d_tile, d_counts, d_starts, np.int32(shift)))
        scan((1, 1, 1), (TB, 1, 1), (d_counts, d_offsets, np.int32(RADIX * n_tiles)))
        scatter((n_tiles, 1, 1), (TB, 1, 1),
                (d_tile, d_offsets, d_starts, d_dst, np.int32(shift)))
        d_src, d_dst = d_dst, d_src
    out = d_src.get()
    return {"keys": out[:, 0].copy(), "values": out[:, 1].copy()}


def reference(inputs, params):
    order = np.argsort(inputs["keys"], kind="stable")
    return {"keys": inputs["keys"][order], "values": inputs["values"][order]}


WORKLOAD = Workload(
    name="RS",
    description="LSD radix sort of key/value pairs, 4-bit digits: per-tile split sort, count scan, scatter",
    source="rs.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("WarpMan (dissertation ch. 3) Table 5: RadixSort (RS), 4 KB shared, 16 warps per TB",),
    sizes={"small": {"n": 8 * TB, "key_bits": 16},
           "default": {"n": 64 * TB, "key_bits": 32},
           # paper: 90 tiles (90 TBs of rs_local_sort and rs_scatter per pass) = 3.00 waves on
           # gtx480 at 2 TBs/SM (2.00 at WarpMan's 64 k-register point, 3 TBs/SM), 8 passes of 32-bit keys. The SDK sample sorts 1,048,576
           # pairs (2,048 such tiles), beyond the time budget.
           "paper": {"n": 90 * TB, "key_bits": 32}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
)
