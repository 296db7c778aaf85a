"""BTREE: B+ tree exact look-ups and range queries, one TB per query (Rodinia b+tree).

Kernels ``btree_find`` and ``btree_range`` in ``kernels/btree.cu`` (Rodinia's findK and
findRangeK structure), TBs of 256 threads, one launch each. The tree is built on the host
from ``nkeys`` distinct sorted keys: leaves hold 128..256 keys (seeded sizes, like a tree
grown by inserts), inner nodes 128..256 children, the root fewer; node records are
2 * 257 ints in BFS order, root first. A TB walks one query from the root to a leaf, one
node per level, thread ``t`` testing key slot ``t`` (a warp reads 32 neighbouring keys of
the node), the matching thread passing the child id through per-query global words
(Rodinia's ``currKnode``/``offset``) between barriers. Every TB reads the root and the
few upper nodes, so the top of the tree is shared by all TBs of an SM; leaves are spread.

Queries: look-ups are 3/4 keys of the tree (value = the record's int32 value) and 1/4
random keys (mostly absent: value -1); a range query starts at a key of the tree and
ends up to ``max_span`` keys later (1/8 of the ends are moved one past a key, usually
absent: length 0). Outputs are int32 and compare exactly.

Sizes: ``paper`` has Rodinia's default tree of 1,000,000 keys (``mil.txt``) but fanout 256
(Rodinia's default order 508 gives TBs of 508 threads) and 2,000 look-ups plus 1,200 range
queries of up to 3,000 keys instead of the command file's 10,000 and 6,000, so that a
timing run stays in minutes.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Workload

F = 256                      # BT_F: keys per node = threads per TB
NODE_INTS = 2 * (F + 1)      # BT_NODE_INTS
MIN_FILL = F // 2
KEY_RANGE = 1 << 30
INT_MIN, INT_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max


def _chunk_sizes(m, rng):
    """Split ``m`` items into runs of MIN_FILL..F (a lone run may be smaller)."""
    sizes, rem = [], m
    while rem > F:
        s = int(rng.integers(MIN_FILL, F + 1))
        if rem - s < MIN_FILL:
            s = rem - MIN_FILL
        sizes.append(s)
        rem -= s
    sizes.append(rem)
    return sizes


def build_tree(keys, rng):
    """Node records ``(nodes, NODE_INTS)`` int32 in BFS order and the inner height."""
    # each level: list of (first key, node keys, node pointers); leaves point at records
    level = []
    start = 0
    for s in _chunk_sizes(keys.size, rng):
        level.append((keys[start:start + s], np.arange(start, start + s)))
        start += s
    levels = [level]
    while len(level) > 1:
        parents, start = [], 0
        for s in _chunk_sizes(len(level), rng):
            kids = range(start, start + s)        # indices into the level below
            firsts = np.array([INT_MIN] + [level[c][0][0] for c in kids[1:]], np.int64)
            parents.append((firsts, np.array(kids)))
            start += s
        # a parent's first key (for its own parent) is its first child's first key
        parents = [(np.concatenate([[level[p[1][0]][0][0]], p[0][1:]]), p[1]) for p in parents]
        levels.append(parents)
        level = parents
    levels.reverse()                              # root first
    base = np.cumsum([0] + [len(lv) for lv in levels])
    tree = np.empty((base[-1], NODE_INTS), np.int64)
    tree[:, :F + 1] = INT_MAX
    tree[:, F + 1:] = -1
    for depth, lv in enumerate(levels):
        inner = depth < len(levels) - 1
        for i, (node_keys, ptrs) in enumerate(lv):
            row = tree[base[depth] + i]
            row[:node_keys.size] = node_keys
            if inner:
                row[0] = INT_MIN
            row[F + 1:F + 1 + ptrs.size] = ptrs + (base[depth + 1] if inner else 0)
    return tree.astype(np.int32), len(levels) - 1


def make_inputs(params, rng):
    n, nf, nr = params["nkeys"], params["finds"], params["ranges"]
    span = params["max_span"]
    if n < 1 or nf < 1 or nr < 1 or not 1 <= span <= n:
        raise ConfigError(f"BTREE: need nkeys, finds, ranges >= 1 and 1 <= max_span <= nkeys; "
                          f"got {params}")
    pool = np.unique(rng.integers(0, KEY_RANGE, size=n + n // 8 + 16))
    keys = np.sort(rng.choice(pool, size=n, replace=False)).astype(np.int64)
    tree, height = build_tree(keys, rng)
    present = rng.random(nf) < 0.75
    finds = np.where(present, keys[rng.integers(0, n, size=nf)],
                     rng.integers(0, KEY_RANGE, size=nf))
    first = rng.integers(0, n, size=nr)
    last = np.minimum(first + rng.integers(0, span, size=nr), n - 1)
    ends = keys[last] + (rng.random(nr) < 0.125)
    return {"tree": tree, "height": np.array([height], np.int32),
            "records": rng.integers(0, 1 << 31, size=n, dtype=np.int64).astype(np.int32),
            "keys": keys.astype(np.int32),
            "finds": finds.astype(np.int32),
            "starts": keys[first].astype(np.int32), "ends": ends.astype(np.int32)}


def launch(dev, module, inputs, params):
    height = np.int32(inputs["height"][0])
    nf, nr = inputs["finds"].size, inputs["starts"].size
    d_tree, d_records = dev.to_device(inputs["tree"]), dev.to_device(inputs["records"])
    d_finds = dev.to_device(inputs["finds"])
    d_values = dev.to_device(np.full(nf, -1, np.int32))
    node_of, next_of = dev.zeros((nf,), np.int32), dev.zeros((nf,), np.int32)
    module.get_function("btree_find")((nf, 1, 1), (F, 1, 1),
                                      (d_tree, d_records, node_of, next_of, d_finds,
                                       d_values, height))
    d_starts, d_ends = dev.to_device(inputs["starts"]), dev.to_device(inputs["ends"])
    paths = [dev.zeros((nr,), np.int32) for _ in range(4)]
    d_rec_start = dev.to_device(np.full(nr, -1, np.int32))
    d_rec_len = dev.zeros((nr,), np.int32)
    module.get_function("btree_range")((nr, 1, 1), (F, 1, 1),
                                       (d_tree, *paths, d_starts, d_ends, d_rec_start,
                                        d_rec_len, height))
    return {"values": d_values.get(), "rec_start": d_rec_start.get(), "rec_len": d_rec_len.get()}


def reference(inputs, params):
    """Binary search in the sorted keys (record i holds the i-th smallest key)."""
    keys = inputs["keys"]

    def find(q):
        i = np.searchsorted(keys, q)
        ok = i < keys.size
        ok[ok] = keys[i[ok]] == q[ok]
        return i, ok

    i, ok = find(inputs["finds"])
    values = np.where(ok, inputs["records"][np.minimum(i, keys.size - 1)], -1).astype(np.int32)
    s, s_ok = find(inputs["starts"])
    e, e_ok = find(inputs["ends"])
    rec_start = np.where(s_ok, s, -1).astype(np.int32)
    rec_len = np.where(s_ok & e_ok, e - s + 1, 0).astype(np.int32)
    return {"values": values, "rec_start": rec_start, "rec_len": rec_len}


WORKLOAD = Workload(
    name="BTREE",
    description="B+ tree look-ups and range queries, a TB per query walking node arrays "
                "(Rodinia b+tree findK / findRangeK)",
    source="btree.cu",
    tb_dims=(F, 1, 1),
    stands_for=("Locality (dissertation ch. 5): b+tree [Rodinia]",),
    sizes={"small": {"nkeys": 50000, "finds": 64, "ranges": 32, "max_span": 1000},
           "default": {"nkeys": 200000, "finds": 512, "ranges": 256, "max_span": 3000},
           # paper: 2,000 + 1,200 TBs, one query each: 33.3 and 26.7 waves on gtx480 (registers
           # allow 4 and 3 TBs/SM)
           "paper": {"nkeys": 1000000, "finds": 2000, "ranges": 1200, "max_span": 3000}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    # one thread of 256 brackets the key at each level: the store of the child id diverges
    divergent=True,
)
