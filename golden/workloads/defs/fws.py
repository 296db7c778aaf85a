"""FWS: Floyd-Warshall shortest paths, one launch per pivot (Pannotia Floyd-Warshall
structure), TB (16,16).

Kernel ``floyd_warshall_step`` in ``kernels/fws.cu``. To keep the launch count modest the
workload runs the first ``pivots`` pivot steps k = 0 .. pivots-1 of the algorithm (the
full algorithm is ``pivots == nodes``); the reference runs exactly the same steps. The
relaxation branch is data dependent; loads of dist[i][k] and dist[k][j] are shared along
rows and columns of each block.
"""

from __future__ import annotations

import numpy as np

from golden.errors import SimtlabError
from golden.workloads.base import Workload

TB = (16, 16, 1)
INF = 1 << 28          # "no edge"; INF + INF still fits in int32


def make_inputs(params, rng):
    """Random directed graph: edge probability `density`, weights 1..100."""
    n = params["nodes"]
    if not 0 < params["pivots"] <= n:
        raise SimtlabError(f"FWS: pivots must be in [1, {n}], got {params['pivots']}")
    edge = rng.random((n, n)) < params["density"]
    np.fill_diagonal(edge, False)
    dist = np.where(edge, rng.integers(1, 101, (n, n)), INF).astype(np.int32)
    np.fill_diagonal(dist, 0)
    nxt = np.where(edge, np.arange(n)[None, :], -1).astype(np.int32)
    np.fill_diagonal(nxt, np.arange(n))
    return {"dist": dist, "next": nxt}


def launch(dev, module, inputs, params):
    n = params["nodes"]
    d_dist = dev.to_device(inputs["dist"])
    d_next = dev.to_device(inputs["next"])
    kernel = module.get_function("floyd_warshall_step")
    grid = (-(-n // TB[0]), -(-n // TB[1]))
    for k in range(params["pivots"]):
        kernel(grid, TB[:2], (d_dist, d_next, np.int32(n), np.int32(k)))
    return {"dist": d_dist.get(), "next": d_next.get()}


def reference(inputs, params):
    dist = inputs["dist"].copy()
    nxt = inputs["next"].copy()
    for k in range(params["pivots"]):
        via = dist[:, k:k + 1] + dist[k:k + 1, :]
        better = via < dist
        dist = np.where(better, via, dist)
        nxt = np.where(better, nxt[:, k:k + 1], nxt)
    return {"dist": dist.astype(np.int32), "next": nxt.astype(np.int32)}


WORKLOAD = Workload(
    name="FWS",
    description="Floyd-Warshall relaxation, one 2D launch per pivot, with path "
                "reconstruction matrix (Pannotia Floyd-Warshall structure)",
    source="fws.cu",
    tb_dims=TB,
    stands_for=("DARSIE Table 1: FWS Floyd-Warshall [Pannotia], TB (16,16)",),
    sizes={"small": {"nodes": 64, "pivots": 8, "density": 0.1},
           "default": {"nodes": 256, "pivots": 12, "density": 0.05},
           # paper: 22 x 22 = 484 TBs per pivot launch: 2.16 waves on pascal_1080ti (8 TBs/SM);
           # 8 pivot steps as in small (a full Floyd-Warshall would launch 352).
           "paper": {"nodes": 352, "pivots": 8, "density": 0.1}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
)
