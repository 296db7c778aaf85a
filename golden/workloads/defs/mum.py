"""MUM: longest exact match of reads against a reference, through its suffix array.

Kernel ``mum_match`` in ``kernels/mum.cu`` (standing in for MUMmerGPU): one read per
thread, a binary search over the suffix array in which every probe compares characters
up to the first mismatch, then the common-prefix lengths with the two suffixes around
the insertion point. Outputs per read: the length of the longest prefix of the read
that occurs in the reference and one position where it occurs.

Reference: random A/C/G/T (coded 1..4) followed by a 0 sentinel. Reads: half are
substrings of the reference with ~6 % point mutations (long, variable matches), half are
random (short matches), shuffled together.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from golden.workloads.base import Workload

TB = 128


def suffix_array(text):
    """Suffix array by prefix doubling (ranks of 2^k-prefixes, numpy lexsort per round).
    ``text`` holds codes >= 1; a suffix that ends first sorts first."""
    n = text.size
    rank = text.astype(np.int64)
    k = 1
    while True:
        second = np.zeros(n, dtype=np.int64)
        second[:n - k] = rank[k:] if k < n else second[:0]
        order = np.lexsort((second, rank))
        key_first, key_second = rank[order], second[order]
        new_group = np.ones(n, dtype=np.int64)
        new_group[1:] = (key_first[1:] != key_first[:-1]) | (key_second[1:] != key_second[:-1])
        new_rank = np.empty(n, dtype=np.int64)
        new_rank[order] = np.cumsum(new_group)
        rank = new_rank
        if rank.max() == n:
            return order.astype(np.int32)
        k *= 2


def make_inputs(params, rng):
    n, qlen, n_queries = params["ref_len"], params["query_len"], params["n_queries"]
    ref = rng.integers(1, 5, size=n, dtype=np.uint8)
    n_from_ref = n_queries // 2
    starts = rng.integers(0, n - qlen + 1, size=n_from_ref)
    from_ref = ref[starts[:, None] + np.arange(qlen)]
    mutate = rng.random(from_ref.shape) < params["mutation_rate"]
    # a mutation replaces the base by one of the three others
    shifted = (from_ref - 1 + rng.integers(1, 4, size=from_ref.shape, dtype=np.uint8)) % 4 + 1
    from_ref = np.where(mutate, shifted, from_ref).astype(np.uint8)
    random_reads = rng.integers(1, 5, size=(n_queries - n_from_ref, qlen), dtype=np.uint8)
    queries = np.concatenate([from_ref, random_reads])[rng.permutation(n_queries)]
    return {"ref": np.append(ref, np.uint8(0)),            # 0 sentinel after the text
            "suffix_array": suffix_array(ref),
            "queries": np.ascontiguousarray(queries)}


def launch(dev, module, inputs, params):
    ref_len = inputs["ref"].size - 1
    n_queries, qlen = inputs["queries"].shape
    d_ref, d_sa = dev.to_device(inputs["ref"]), dev.to_device(inputs["suffix_array"])
    d_queries = dev.to_device(inputs["queries"])
    d_len, d_pos = dev.zeros((n_queries,), np.int32), dev.zeros((n_queries,), np.int32)
    kernel = module.get_function("mum_match")
    kernel(((n_queries + TB - 1) // TB, 1, 1), (TB, 1, 1),
           (d_ref, d_sa, np.int32(ref_len), d_queries, np.int32(qlen), np.int32(n_queries),
            d_len, d_pos))
    return {"match_len": d_len.get(), "match_pos": d_pos.get()}


def _common_prefix(a, b):
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def reference(inputs, params):
    """Per read: bisect over the sorted suffixes cut to the read length (bytes compare
    like the kernel: a suffix that ends early is smaller), then the better neighbour."""
    text = inputs["ref"][:-1].tobytes()
    sa = inputs["suffix_array"].tolist()
    qlen = inputs["queries"].shape[1]
    lens, poss = [], []
    for row in inputs["queries"]:
        query = row.tobytes()
        lo = bisect_left(sa, query, key=lambda start: text[start:start + qlen])
        best_len, best_pos = -1, -1
        if lo < len(sa):
            best_pos = sa[lo]
            best_len = _common_prefix(text[best_pos:best_pos + qlen], query)
        if lo > 0:
            length = _common_prefix(text[sa[lo - 1]:sa[lo - 1] + qlen], query)
            if length > best_len:
                best_len, best_pos = length, sa[lo - 1]
        lens.append(best_len)
        poss.append(best_pos)
    return {"match_len": np.array(lens, dtype=np.int32), "match_pos": np.array(poss, dtype=np.int32)}


WORKLOAD = Workload(
    name="MUM",
    description="read matching: suffix-array binary search with early-exit string compares per thread",
    source="mum.cu",
    tb_dims=(TB, 1, 1),
    # MUM++ (MUMmerGPU++) has its own stand-in, MUMPP (mumpp.py: suffix-tree walk)
    stands_for=("CAPRI Table 2: MUM MUMmerGPU (divergent, 23% WPDOM SIMD utilisation)",),
    sizes={"small": {"ref_len": 4096, "n_queries": 2048, "query_len": 24, "mutation_rate": 0.06},
           "default": {"ref_len": 65536, "n_queries": 16384, "query_len": 32,
                       "mutation_rate": 0.06},
           # paper: 240 TBs = 2.00 waves on quadro_fx5800 (4 TBs/SM); CAPRI gives no input.
           "paper": {"ref_len": 4096, "n_queries": 30720, "query_len": 24, "mutation_rate": 0.06}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
)
