"""BFS: frontier-queue breadth-first search on an irregular graph, one launch per level.

Kernel ``bfs_expand`` in ``kernels/bfs.cu``: a thread per vertex of the current
frontier walks its CSR adjacency list, claims unvisited neighbours with ``atomicCAS`` on
their level and appends them to the next frontier through an ``atomicAdd`` on a global
counter. The host reads that counter after each launch to size the next grid, so
launches shrink and grow with the frontier (the few-TB launches the ILP chapter notes
for NW, and the irregular BFS of UV Table 3 / CAPRI Table 2).

The graph comes from a seeded generator: out-degrees are geometric (many vertices of
degree 1-3, a tail of hubs), targets uniform, so the level count grows like log(n).
Only the level array is an output: the order of a frontier depends on atomic order,
the level of every vertex does not.
"""

from __future__ import annotations

import numpy as np

from golden.errors import LaunchError
from golden.workloads.base import Workload

TB = 256


def make_inputs(params, rng):
    """CSR graph: ``row_ptr`` (n+1,) and ``col_idx`` (edges,), int32."""
    n = params["n_nodes"]
    degree = rng.geometric(1.0 / params["mean_degree"], size=n)
    degree = np.minimum(degree, params["max_degree"]).astype(np.int64)
    row_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=row_ptr[1:])
    col_idx = rng.integers(0, n, size=int(row_ptr[-1]), dtype=np.int64)
    return {"row_ptr": row_ptr.astype(np.int32), "col_idx": col_idx.astype(np.int32)}


def launch(dev, module, inputs, params):
    row_ptr, col_idx = inputs["row_ptr"], inputs["col_idx"]
    n = row_ptr.size - 1
    source = params["source"]
    level = np.full(n, -1, dtype=np.int32)
    level[source] = 0
    d_row_ptr, d_col_idx = dev.to_device(row_ptr), dev.to_device(col_idx)
    d_level = dev.to_device(level)
    frontier = np.zeros(n, dtype=np.int32)
    frontier[0] = source
    d_frontier = dev.to_device(frontier)
    d_next = dev.zeros((n,), np.int32)
    d_next_size = dev.zeros((1,), np.int32)
    kernel = module.get_function("bfs_expand")
    frontier_size, cur = 1, 0
    while frontier_size > 0:
        if cur >= params["max_levels"]:
            raise LaunchError(f"BFS did not finish within {params['max_levels']} levels")
        d_next_size.set(np.zeros(1, dtype=np.int32))
        grid = (frontier_size + TB - 1) // TB
        kernel((grid, 1, 1), (TB, 1, 1),
               (d_row_ptr, d_col_idx, d_level, d_frontier, np.int32(frontier_size),
                d_next, d_next_size, np.int32(cur)))
        frontier_size = int(d_next_size.get()[0])
        d_frontier, d_next = d_next, d_frontier
        cur += 1
    return {"level": d_level.get()}


def reference(inputs, params):
    """Level-synchronous BFS with numpy: gather all edges of the frontier at once."""
    row_ptr = inputs["row_ptr"].astype(np.int64)
    col_idx = inputs["col_idx"]
    n = row_ptr.size - 1
    level = np.full(n, -1, dtype=np.int32)
    frontier = np.array([params["source"]], dtype=np.int64)
    level[frontier] = 0
    cur = 0
    while frontier.size:
        starts, ends = row_ptr[frontier], row_ptr[frontier + 1]
        lengths = ends - starts
        total = int(lengths.sum())
        # edge positions of every frontier vertex, concatenated
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        neighbours = col_idx[offsets + np.arange(total)]
        new = np.unique(neighbours[level[neighbours] < 0])
        level[new] = cur + 1
        frontier = new.astype(np.int64)
        cur += 1
    return {"level": level}


WORKLOAD = Workload(
    name="BFS",
    description="frontier-queue BFS over a random CSR graph, atomicCAS claims, one launch per level",
    source="bfs.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("UV (dissertation ch. 2) Table 3: BFS (input 4096)",
                "CAPRI Table 2: BFS Breadth First Search (divergent)",
                "Locality (dissertation ch. 5): bfs [Rodinia]"),
    sizes={"small": {"n_nodes": 4096, "mean_degree": 5, "max_degree": 48,
                     "source": 0, "max_levels": 64},
           "default": {"n_nodes": 65536, "mean_degree": 6, "max_degree": 64,
                       "source": 0, "max_levels": 64},
           # paper: 2^19 nodes; levels of >= 220 TBs (2.44 waves at 3 TBs/SM on gtx285 and
           # quadro_fx5800, 90 TBs per wave) do 80% of the work (seeds 0-5: >= 2.37; level sizes
           # depend on the random graph, 2^18 nodes gives 1.8-2.4). UV Table 3's input (4096
           # nodes, = small) launches at most 7 TBs per level, far below one wave.
           "paper": {"n_nodes": 524288, "mean_degree": 5, "max_degree": 48,
                     "source": 0, "max_levels": 64}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
)
