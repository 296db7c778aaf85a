"""NW: Needleman-Wunsch global alignment score matrices, one launch per tile anti-diagonal.

Kernel ``nw_tile_diagonal`` in ``kernels/nw.cu``. The ``(n+1) x (n+1)`` matrix of each
sequence pair is cut into 32x32 tiles; the host launches the kernel once per anti-diagonal
of tiles (``2 n / 32 - 1`` launches) with a grid of as many TBs as the diagonal has tiles
(times ``pairs``): it grows from 1 to ``n / 32`` and shrinks back, so many launches have
few TBs, as the ILP chapter says of NW (``num_blocks = i/NUM_THREAD + 1``). A TB of 32
threads holds its tile's scores and substitution scores in 8452 B of shared memory (one
TB per SM on the chapter's 16 KB SMs) and sweeps the tile's cell anti-diagonals with a
barrier per step. Scores are int32 and compare exactly.

``pairs`` aligns several independent pairs per launch (``blockIdx.y``); only ``paper``
uses it, so that the launches doing most of the work fill the GPU twice without a huge
matrix: ``small`` and ``default`` align one pair, like the chapter's NW.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Workload

TILE = 32          # NW_T in the kernel; also the TB size
ALPHABET = 24      # NW_ALPHABET: residue codes 0..23 (the 20 amino acids, B, Z, X, *)
GAP = 10


def make_inputs(params, rng):
    n, pairs = params["n"], params["pairs"]
    if n % TILE or n <= 0 or pairs <= 0:
        raise ConfigError(f"NW: n must be a positive multiple of {TILE}, got n={n}, pairs={pairs}")
    # symmetric substitution scores in BLOSUM's range: mostly negative off the diagonal
    m = rng.integers(-4, 4, size=(ALPHABET, ALPHABET))
    sub = np.triu(m) + np.triu(m, 1).T
    np.fill_diagonal(sub, rng.integers(4, 12, size=ALPHABET))
    return {"seq_a": rng.integers(0, ALPHABET, size=(pairs, n), dtype=np.int32),
            "seq_b": rng.integers(0, ALPHABET, size=(pairs, n), dtype=np.int32),
            "sub": sub.astype(np.int32)}


def initial_scores(pairs, n, gap=GAP):
    """Score matrices with the first row and column set (-gap * index), zeros elsewhere."""
    s = np.zeros((pairs, n + 1, n + 1), np.int32)
    edge = -gap * np.arange(n + 1, dtype=np.int32)
    s[:, 0, :] = edge
    s[:, :, 0] = edge
    return s


def launch(dev, module, inputs, params):
    pairs, n = inputs["seq_a"].shape
    tiles = n // TILE
    d_score = dev.to_device(initial_scores(pairs, n))
    d_a, d_b, d_sub = (dev.to_device(inputs[k]) for k in ("seq_a", "seq_b", "sub"))
    kernel = module.get_function("nw_tile_diagonal")
    for diag in range(2 * tiles - 1):
        first = max(0, diag - tiles + 1)
        count = min(diag, tiles - 1) - first + 1
        kernel((count, pairs, 1), (TILE, 1, 1),
               (d_score, d_a, d_b, d_sub, np.int32(n), np.int32(diag), np.int32(first),
                np.int32(GAP)))
    return {"score": d_score.get()}


def reference(inputs, params):
    """The same recurrence, one cell anti-diagonal at a time (vectorised over the pairs)."""
    a, b, sub = inputs["seq_a"], inputs["seq_b"], inputs["sub"].astype(np.int64)
    pairs, n = a.shape
    s = initial_scores(pairs, n).astype(np.int64)
    rows = np.arange(pairs)[:, None]
    for d in range(2, 2 * n + 1):
        i = np.arange(max(1, d - n), min(n, d - 1) + 1)
        j = d - i
        s[:, i, j] = np.maximum(s[:, i - 1, j - 1] + sub[a[rows, i - 1], b[rows, j - 1]],
                                np.maximum(s[:, i - 1, j], s[:, i, j - 1]) - GAP)
    return {"score": s.astype(np.int32)}


WORKLOAD = Workload(
    name="NW",
    description="Needleman-Wunsch scores: 32x32 shared-memory tiles, a launch per tile anti-diagonal",
    source="nw.cu",
    tb_dims=(TILE, 1, 1),
    stands_for=("ILP (dissertation ch. 4) workloads: NW (a launch per anti-diagonal, "
                "few TBs per launch)",
                "Locality (dissertation ch. 5): nw [Rodinia]"),
    sizes={"small": {"n": 128, "pairs": 1},
           "default": {"n": 512, "pairs": 1},
           # paper: 40 pairs of 256 residues, 15 launches of 40..320 TBs (1 TB/SM on
           # gtx280_ilp, 5 on gtx480_coarse, shared memory): the launches of >= 160 TBs (2.13
           # waves on gtx480_coarse) do 81% of the work; one pair would need n >= 4256 for
           # two waves on gtx280_ilp.
           "paper": {"n": 256, "pairs": 40}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    # the wavefront's active band (cells of row t on step k exist for 0 <= k - t < 32)
    # splits the warp on 62 of a tile's 63 steps: divergence by thread index, like BIN's
    divergent=True,
)
