"""MV: CSR sparse matrix-vector product, one thread per row.

Kernel ``spmv_csr`` in ``kernels/mv.cu``. Row lengths are drawn from a geometric
distribution (mean ``mean_nnz``, capped at ``max_nnz``), so lanes of a warp leave the
row loop at different trip counts; column indices are uniform, so ``x[col]`` gathers
scatter across memory.
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Tolerance, Workload

TB = 128


def make_inputs(params, rng):
    n = params["n_rows"]
    nnz = np.minimum(rng.geometric(1.0 / params["mean_nnz"], size=n), params["max_nnz"])
    row_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(nnz, out=row_ptr[1:])
    total = int(row_ptr[-1])
    col_idx = rng.integers(0, n, size=total)
    # CSR keeps each row's columns sorted
    row_of = np.repeat(np.arange(n), nnz)
    col_idx = col_idx[np.lexsort((col_idx, row_of))]
    return {"row_ptr": row_ptr.astype(np.int32),
            "col_idx": col_idx.astype(np.int32),
            "values": rng.uniform(-1.0, 1.0, size=total).astype(np.float32),
            "x": rng.uniform(-1.0, 1.0, size=n).astype(np.float32)}


def launch(dev, module, inputs, params):
    n = inputs["row_ptr"].size - 1
    args = [dev.to_device(inputs[k]) for k in ("row_ptr", "col_idx", "values", "x")]
    d_y = dev.zeros((n,), np.float32)
    kernel = module.get_function("spmv_csr")
    kernel(((n + TB - 1) // TB, 1, 1), (TB, 1, 1), (*args, d_y, np.int32(n)))
    return {"y": d_y.get()}


def reference(inputs, params):
    """y accumulated in float64 per row (np.add.reduceat over the CSR segments)."""
    row_ptr = inputs["row_ptr"].astype(np.int64)
    products = inputs["values"].astype(np.float64) * inputs["x"].astype(np.float64)[inputs["col_idx"]]
    sums = np.add.reduceat(np.append(products, 0.0), row_ptr[:-1])
    sums[row_ptr[:-1] == row_ptr[1:]] = 0.0          # reduceat's rule for empty rows
    return {"y": sums.astype(np.float32)}


WORKLOAD = Workload(
    name="MV",
    description="CSR SpMV y = A x, one thread per row, geometric row lengths",
    source="mv.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("G-Scalar Table 2: spmv (MV)",
                "ILP (dissertation ch. 4) workloads: MV"),
    sizes={"small": {"n_rows": 8192, "mean_nnz": 10, "max_nnz": 64},
           "default": {"n_rows": 65536, "mean_nnz": 10, "max_nnz": 64},
           # paper: 400 TBs = 2.00 waves on the 40-SM GPU-T of the heterogeneous-GPU study
           # (5 TBs/SM), 2.67 on gtx280_ilp (5 x 30) and 3.33 on gtx480 (8 x 15); the seeds
           # give no input.
           "paper": {"n_rows": 51200, "mean_nnz": 10, "max_nnz": 64}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
    # float32 sequential (fused) sums of at most 64 terms of magnitude <= 1
    tolerance={"y": Tolerance(rtol=1e-5, atol=1e-4)},
)
