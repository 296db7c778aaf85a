"""NQU: N-Queens solution counting with one backtracking search per thread.

Kernel ``nqueens_count`` in ``kernels/nqu.cu``. The host enumerates every legal
placement of the first ``depth`` rows of an ``n`` x ``n`` board (as the three occupancy
bitmasks: columns, left diagonals, right diagonals, already shifted for the next row);
each thread counts the completions of one prefix with an iterative bitmask search whose
stack is in shared memory (16 KB per TB of 64 threads). Outputs: the count per prefix
and their total (global ``atomicAdd``).
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Workload

TB = 64          # NQ_TB in the kernel: the shared stack is laid out for this block size
MAX_ROWS_LEFT = 16


def _prefixes(n, depth):
    """Every legal placement of the first ``depth`` queens, as (cols, ldiag, rdiag) masks
    seen by row ``depth``, in lexicographic order of the queens' columns."""
    full = (1 << n) - 1
    out = []

    def place(row, cols, ldiag, rdiag):
        if row == depth:
            out.append((cols, ldiag, rdiag))
            return
        avail = full & ~(cols | ldiag | rdiag)
        while avail:
            bit = avail & -avail
            avail ^= bit
            place(row + 1, cols | bit, ((ldiag | bit) << 1) & full, (rdiag | bit) >> 1)

    place(0, 0, 0, 0)
    return out


def _count(n, rows_left, cols, ldiag, rdiag):
    """Completions of a prefix: plain recursive bitmask backtracking."""
    full = (1 << n) - 1
    avail = full & ~(cols | ldiag | rdiag)
    if rows_left == 1:
        return bin(avail).count("1")
    total = 0
    while avail:
        bit = avail & -avail
        avail ^= bit
        total += _count(n, rows_left - 1, cols | bit, ((ldiag | bit) << 1) & full,
                        (rdiag | bit) >> 1)
    return total


def make_inputs(params, rng):
    """Prefix masks for board ``n`` after ``depth`` rows (no randomness needed)."""
    n, depth = params["n"], params["depth"]
    if not 0 < depth < n or n - depth > MAX_ROWS_LEFT or n > 31:
        raise ConfigError(f"NQU: need 0 < depth < n <= 31 and n - depth <= {MAX_ROWS_LEFT}, "
                          f"got n={n}, depth={depth}")
    masks = np.array(_prefixes(n, depth), dtype=np.uint32).reshape(-1, 3)
    return {"cols": masks[:, 0].copy(), "ldiag": masks[:, 1].copy(),
            "rdiag": masks[:, 2].copy()}


def launch(dev, module, inputs, params):
    n_prefix = inputs["cols"].size
    d_cols, d_ldiag, d_rdiag = (dev.to_device(inputs[k]) for k in ("cols", "ldiag", "rdiag"))
    d_counts = dev.zeros((n_prefix,), np.int32)
    d_total = dev.zeros((1,), np.int32)
    kernel = module.get_function("nqueens_count")
    kernel(((n_prefix + TB - 1) // TB, 1, 1), (TB, 1, 1),
           (d_cols, d_ldiag, d_rdiag, np.int32(n_prefix), np.int32(params["n"]),
            np.int32(params["depth"]), d_counts, d_total))
    return {"counts": d_counts.get(), "total": d_total.get()}


def reference(inputs, params):
    n, depth = params["n"], params["depth"]
    counts = np.array([_count(n, n - depth, int(c), int(l), int(r))
                       for c, l, r in zip(inputs["cols"], inputs["ldiag"], inputs["rdiag"])],
                      dtype=np.int32)
    return {"counts": counts, "total": np.array([counts.sum()], dtype=np.int32)}


WORKLOAD = Workload(
    name="NQU",
    description="N-Queens counting: per-thread bitmask backtracking with a shared-memory stack",
    source="nqu.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("UV (dissertation ch. 2) Table 3: N-Queen (NQU)",
                "ILP (dissertation ch. 4) workloads: NQU (about 16 KB shared memory per TB)"),
    sizes={"small": {"n": 10, "depth": 5},
           "default": {"n": 11, "depth": 5},
           # paper: 7552 prefixes of 6 rows = 118 TBs: 2.62 waves on gtx480 (3 TBs/SM, shared
           # memory), 3.93 on gtx285 (1 TB/SM). UV Table 3 lists the input as "32", which is no
           # board size this kernel can count.
           "paper": {"n": 10, "depth": 6}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
)
