"""SN: bitonic sorting network on key/value segments in shared memory.

Kernel ``bitonic_sort_segments`` in ``kernels/sn.cu`` (CUDA SDK sortingNetworks
structure): TBs of 512 threads (16 warps) each sort one 1024-pair segment ascending in
8 KB of shared memory, 55 compare-exchange stages separated by ``__syncthreads()``. The
swap is taken only for out-of-order pairs: a data-dependent branch in every stage.
Keys are distinct (so the result does not depend on how the network orders ties);
values are the keys' original positions.
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Workload

TB = 512
SEGMENT = 2 * TB


def make_inputs(params, rng):
    total = params["n_segments"] * SEGMENT
    keys = rng.choice(np.iinfo(np.uint32).max + 1, size=total, replace=False).astype(np.uint32)
    return {"keys": keys, "values": np.arange(total, dtype=np.uint32)}


def launch(dev, module, inputs, params):
    n_segments = inputs["keys"].size // SEGMENT
    d_keys, d_vals = dev.to_device(inputs["keys"]), dev.to_device(inputs["values"])
    d_keys_out = dev.empty(inputs["keys"].shape, np.uint32)
    d_vals_out = dev.empty(inputs["values"].shape, np.uint32)
    kernel = module.get_function("bitonic_sort_segments")
    kernel((n_segments, 1, 1), (TB, 1, 1), (d_keys, d_vals, d_keys_out, d_vals_out))
    return {"keys": d_keys_out.get(), "values": d_vals_out.get()}


def reference(inputs, params):
    keys = inputs["keys"].reshape(-1, SEGMENT)
    values = inputs["values"].reshape(-1, SEGMENT)
    order = np.argsort(keys, axis=1, kind="stable")
    return {"keys": np.take_along_axis(keys, order, axis=1).ravel(),
            "values": np.take_along_axis(values, order, axis=1).ravel()}


WORKLOAD = Workload(
    name="SN",
    description="bitonic sort of 1024-element key/value segments in shared memory, 16 warps per TB",
    source="sn.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("WarpMan (dissertation ch. 3) Table 5: SortingNetworks (SN), 8 KB shared, 16 warps per TB",),
    sizes={"small": {"n_segments": 8},
           "default": {"n_segments": 64},
           # paper: 90 TBs = 6 waves on gtx480 (1 TB/SM, register limited), 2.00 at WarpMan's
           # 64 k-register point (3 TBs/SM).
           "paper": {"n_segments": 90}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
)
