"""MUMPP: maximal exact matches of reads through a path-compressed suffix tree
(MUMmerGPU++ structure), TB (128,1).

Kernel ``mumpp_match`` in ``kernels/mumpp.cu``: one read per thread; for every
``stride``-th offset of the read (``n_offsets`` of them) a walk from the root of the
reference's suffix tree follows the child for the next read character and extends the
match along that child's compressed edge (a ``(start, length)`` slice of the reference)
until a mismatch, the edge's end or the read's end. Per (read, offset) it reports the
match length and the leftmost reference position of that match; per read, how many
matches reach ``min_match``. Where MUM (``mum.py``) does a binary search over a suffix
array with one match per read, this is a pointer-chasing tree walk with a variable-length
extension loop nested in a variable-length edge loop, and several matches per read.

Tree layout (ours): nodes numbered in construction order (root 0), a 4-slot child table
per node (A C G T; -1 when absent), the edge into each node and the smallest suffix
start below it. MUMmerGPU++ lays its tree out in 2-D textures with its own node order and
reports every maximal match of a minimum length; ours reports one match per offset.
Inputs as MUM: a random A/C/G/T reference; half the reads are mutated substrings (6 %
point mutations), half random. The tree is built from the suffix array and its LCP array
(Kasai) with a stack; the reference output comes from the suffix array alone (bisection),
not from the tree.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import numpy as np

from golden.workloads.base import Workload
from golden.workloads.defs.mum import make_inputs as mum_inputs

TB = 128


def lcp_array(text: np.ndarray, sa: np.ndarray) -> np.ndarray:
    """lcp[i] = common prefix of suffixes sa[i-1] and sa[i] (lcp[0] = 0), Kasai et al."""
    n = text.size
    t = text.tolist()
    s = sa.tolist()
    rank = [0] * n
    for i, p in enumerate(s):
        rank[p] = i
    lcp = [0] * n
    h = 0
    for p in range(n):
        r = rank[p]
        if r > 0:
            q = s[r - 1]
            while p + h < n and q + h < n and t[p + h] == t[q + h]:
                h += 1
            lcp[r] = h
            if h:
                h -= 1
        else:
            h = 0
    return np.array(lcp, np.int64)


def suffix_tree(text: np.ndarray, sa: np.ndarray):
    """Path-compressed suffix tree of ``text`` (codes 1..4) from its suffix array.

    Returns ``children`` (nodes x 4, int32), ``edge_start``, ``edge_len`` (the edge into
    each node; 0 for the root) and ``leftmost`` (smallest suffix start below each node).
    A suffix that is a prefix of others ends at an internal node (its '$' leaf is
    implicit and counted in ``leftmost``).
    """
    n = text.size
    lcp = lcp_array(text, sa).tolist()
    depth, low, parent = [0], [n], [-1]
    stack = [0]

    def new_node(d, m):
        depth.append(d)
        low.append(m)
        parent.append(-1)
        return len(depth) - 1

    def attach(p, c):
        parent[c] = p
        if low[c] < low[p]:
            low[p] = low[c]

    for i, s in enumerate(sa.tolist()):
        ell = lcp[i]
        while depth[stack[-1]] > ell:
            node = stack.pop()
            if depth[stack[-1]] >= ell:
                attach(stack[-1], node)
            else:
                inner = new_node(ell, n)
                attach(inner, node)
                stack.append(inner)
        stack.append(new_node(n - s, s))
    while len(stack) > 1:
        node = stack.pop()
        attach(stack[-1], node)
    depth_a, low_a, parent_a = np.array(depth), np.array(low), np.array(parent)
    count = depth_a.size
    edge_start = np.zeros(count, np.int32)
    edge_len = np.zeros(count, np.int32)
    children = np.full((count, 4), -1, np.int32)
    kids = np.arange(1, count)
    edge_start[kids] = low_a[kids] + depth_a[parent_a[kids]]
    edge_len[kids] = depth_a[kids] - depth_a[parent_a[kids]]
    first = text[edge_start[kids]].astype(np.int64) - 1
    children[parent_a[kids], first] = kids
    return children, edge_start, edge_len, low_a.astype(np.int32)


def make_inputs(params, rng):
    base = mum_inputs(params, rng)
    ref = base["ref"]
    children, edge_start, edge_len, leftmost = suffix_tree(ref[:-1], base["suffix_array"])
    return {"ref": ref, "suffix_array": base["suffix_array"], "queries": base["queries"],
            "children": children, "edge_start": edge_start, "edge_len": edge_len,
            "leftmost": leftmost}


def _offsets(params):
    return (params["query_len"] - params["min_match"]) // params["stride"] + 1


def launch(dev, module, inputs, params):
    n_queries, qlen = inputs["queries"].shape
    n_off = _offsets(params)
    args = [dev.to_device(inputs[k]) for k in
            ("ref", "children", "edge_start", "edge_len", "leftmost", "queries")]
    d_len = dev.zeros((n_queries, n_off), np.int32)
    d_pos = dev.zeros((n_queries, n_off), np.int32)
    d_long = dev.zeros((n_queries,), np.int32)
    module.get_function("mumpp_match")(
        (-(-n_queries // TB), 1, 1), (TB, 1, 1),
        (*args, np.int32(qlen), np.int32(n_queries), np.int32(params["stride"]),
         np.int32(params["min_match"]), np.int32(n_off), d_len, d_pos, d_long))
    return {"match_len": d_len.get(), "match_pos": d_pos.get(), "n_long": d_long.get()}


def _common_prefix(a, b):
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def reference(inputs, params):
    """Per (read, offset): bisect the suffix array for the longest prefix of the read's
    tail that occurs, then the smallest start among the suffixes with that prefix."""
    text = inputs["ref"][:-1].tobytes()
    sa = inputs["suffix_array"].tolist()
    n_queries, qlen = inputs["queries"].shape
    stride, n_off = params["stride"], _offsets(params)
    lens = np.zeros((n_queries, n_off), np.int32)
    poss = np.full((n_queries, n_off), -1, np.int32)
    for qi, row in enumerate(inputs["queries"]):
        whole = row.tobytes()
        for slot in range(n_off):
            p = whole[slot * stride:]
            m = len(p)
            lo = bisect_left(sa, p, key=lambda s: text[s:s + m])
            best = 0
            for k in (lo - 1, lo):
                if 0 <= k < len(sa):
                    best = max(best, _common_prefix(text[sa[k]:sa[k] + m], p))
            lens[qi, slot] = best
            if best:
                pre = p[:best]
                a = bisect_left(sa, pre, key=lambda s: text[s:s + best])
                b = bisect_right(sa, pre, key=lambda s: text[s:s + best])
                poss[qi, slot] = min(sa[a:b])
    n_long = (lens >= params["min_match"]).sum(axis=1).astype(np.int32)
    return {"match_len": lens, "match_pos": poss, "n_long": n_long}


WORKLOAD = Workload(
    name="MUMPP",
    description="read matching: path-compressed suffix-tree walk with per-edge match "
                "extension, several matches per read (MUMmerGPU++ structure)",
    source="mumpp.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("CAPRI Table 2: MUM++ MUMmerGPU++ (divergent, 28% WPDOM SIMD utilisation)",),
    sizes={"small": {"ref_len": 4096, "n_queries": 2048, "query_len": 24,
                     "mutation_rate": 0.06, "stride": 6, "min_match": 10},
           # default: 256 TBs, more than one wave of 30 SMs on quadro_fx5800
           "default": {"ref_len": 65536, "n_queries": 32768, "query_len": 32,
                       "mutation_rate": 0.06, "stride": 8, "min_match": 12},
           # paper: 480 TBs (>= 2 waves on quadro_fx5800); CAPRI gives no input, and
           # MUMmerGPU++'s reads and genomes are far larger
           "paper": {"ref_len": 4096, "n_queries": 61440, "query_len": 24,
                     "mutation_rate": 0.06, "stride": 6, "min_match": 10}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
)
