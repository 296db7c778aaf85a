"""KMEANS: k-means assignment, one thread per point, features feature-major (Rodinia kmeans).

Kernels in ``kernels/kmeans.cu``, 1D blocks of 256 threads. The host launches
``kmeans_transpose`` once (point-major to feature-major, Rodinia's ``invert_mapping``),
then ``iterations`` times: copies the centroids into ``__constant__`` memory, launches
``kmeans_assign`` (each thread finds the nearest centroid of its point; feature ``f`` of
point ``p`` is read at ``f * npoints + p``, so a warp reads one 128 B line per feature and
neighbouring warps read neighbouring lines) and recomputes each centroid as the mean of
its points on the host, as Rodinia does on the CPU. The initial centroids are the first
``nclusters`` points (Rodinia's choice).

Exactness: features are integers in [0, 64) (points scattered around ``nclusters`` seeded
centres) and the host rounds each new centroid to a multiple of 1/8, so every difference,
square and partial sum in the kernel is exact in float32 (at most 24 significant bits for
up to 64 features): memberships and centroids compare exactly, ties go to the lowest
centroid index in both the kernel (strict ``<``) and numpy (``argmin``). Rodinia's
kdd_cup input has normalised real-valued features instead, and it iterates until fewer
than 0.1% of the points move; we run a fixed number of iterations.

Sizes: ``paper`` keeps kdd_cup's 34 features and Rodinia's default 5 clusters but has
65,536 points (256 TBs, one assignment: 5.69 waves on gtx480) instead of kdd_cup's 494,020 (1,930 TBs), so that
a timing run takes minutes rather than an hour; the access pattern per TB is the same.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Workload

TB = 256
F32 = np.float32
MAX_CENTROID_WORDS = 2048      # KM_MAX_CENTROID_WORDS in the kernel
MAX_FEATURES = 64              # keeps every squared distance exact in float32
FEATURE_RANGE = 64             # features are integers 0 .. 63
CENTROID_STEP = 8              # centroids are multiples of 1/8


def make_inputs(params, rng):
    n, k, nf = params["npoints"], params["nclusters"], params["nfeatures"]
    if not (0 < nf <= MAX_FEATURES and 0 < k <= n and k * nf <= MAX_CENTROID_WORDS):
        raise ConfigError(f"KMEANS: need 0 < nfeatures <= {MAX_FEATURES}, 0 < nclusters <= "
                          f"npoints and nclusters * nfeatures <= {MAX_CENTROID_WORDS}; got "
                          f"npoints={n}, nclusters={k}, nfeatures={nf}")
    centres = rng.uniform(8, FEATURE_RANGE - 8, size=(k, nf))
    which = rng.integers(0, k, size=n)
    pts = np.rint(centres[which] + rng.normal(0.0, 6.0, size=(n, nf)))
    return {"points": np.clip(pts, 0, FEATURE_RANGE - 1).astype(F32)}


def update_centroids(points, membership, centroids):
    """Mean of each cluster's points (an empty cluster keeps its centroid), rounded to a
    multiple of 1/CENTROID_STEP; float32."""
    k, nf = centroids.shape
    counts = np.bincount(membership, minlength=k)
    sums = np.zeros((k, nf))
    np.add.at(sums, membership, points.astype(np.float64))
    new = centroids.astype(np.float64).copy()
    nz = counts > 0
    new[nz] = np.rint(sums[nz] / counts[nz, None] * CENTROID_STEP) / CENTROID_STEP
    return new.astype(F32)


def launch(dev, module, inputs, params):
    points = inputs["points"]
    n, nf = points.shape
    k = params["nclusters"]
    grid = (-(-n // TB), 1, 1)
    d_points = dev.to_device(points)
    d_features = dev.empty((nf, n), F32)
    d_member = dev.empty((n,), np.int32)
    c_table = module.get_global("c_centroids", F32)
    module.get_function("kmeans_transpose")(grid, (TB, 1, 1),
                                            (d_points, d_features, np.int32(n), np.int32(nf)))
    assign = module.get_function("kmeans_assign")
    centroids = points[:k].copy()
    membership = None
    for _ in range(params["iterations"]):
        table = np.zeros(MAX_CENTROID_WORDS, F32)
        table[:k * nf] = centroids.ravel()
        c_table.set(table)
        assign(grid, (TB, 1, 1), (d_features, d_member, np.int32(n), np.int32(k), np.int32(nf)))
        membership = d_member.get()
        centroids = update_centroids(points, membership, centroids)
    return {"membership": membership, "centroids": centroids}


def reference(inputs, params):
    """Exact squared distances in float64 (the kernel's float32 sums are exact too)."""
    points = inputs["points"]
    k = params["nclusters"]
    p64 = points.astype(np.float64)
    centroids = points[:k].copy()
    membership = None
    for _ in range(params["iterations"]):
        c64 = centroids.astype(np.float64)
        dist = ((p64[:, None, :] - c64[None, :, :]) ** 2).sum(axis=2)
        membership = np.argmin(dist, axis=1).astype(np.int32)
        centroids = update_centroids(points, membership, centroids)
    return {"membership": membership, "centroids": centroids}


WORKLOAD = Workload(
    name="KMEANS",
    description="k-means assignment: nearest of K constant-memory centroids per point, "
                "feature-major features (Rodinia kmeans)",
    source="kmeans.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("Locality (dissertation ch. 5): kmeans [Rodinia]",),
    sizes={"small": {"npoints": 4096, "nfeatures": 34, "nclusters": 5, "iterations": 2},
           "default": {"npoints": 32768, "nfeatures": 34, "nclusters": 5, "iterations": 2},
           # paper: 256 TBs; on gtx480 registers allow 3 TBs/SM for the assignment (5.69 waves)
           # and 5 for the transpose (3.41)
           "paper": {"npoints": 65536, "nfeatures": 34, "nclusters": 5, "iterations": 1}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    # the compare with the running minimum compiles to selects; only the bounds guard of
    # the last TB could split a warp
    divergent=False,
)
