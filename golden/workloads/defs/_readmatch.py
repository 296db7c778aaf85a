"""Shared inputs and references of the read-matching stand-ins MUM and MUMPP (CAPRI
Table 2's MUMmerGPU and MUMmerGPU++).

Stores nothing; builds, from a seeded generator:

* a random A/C/G/T reference (codes 1..4) followed by a 0 sentinel;
* its suffix array (prefix doubling), LCP array (Kasai) and a path-compressed suffix
  tree built from both with a stack, with a suffix link for every node;
* a batch of reads of varying length, concatenated (MUMmerGPU packs its queries into one
  buffer with an offset per read): a share of them are substrings of the reference with
  point mutations (long, variable matches), the rest random (short matches).

The reference outputs come from a suffix automaton of the reversed reference, not from
the tree the kernels walk: the longest match starting at read position i is the longest
match ending at the mirrored position of the reversed read, which the automaton tracks
in one left-to-right pass, and the leftmost reference position of that match is the
rightmost end (in the reversed reference) of the automaton state holding it.
"""

from __future__ import annotations

import numpy as np


def suffix_array(text: np.ndarray) -> np.ndarray:
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


def lcp_array(text: np.ndarray, sa: np.ndarray) -> list[int]:
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
    return lcp


def suffix_tree(text: np.ndarray, sa: np.ndarray) -> dict[str, np.ndarray]:
    """Path-compressed suffix tree of ``text`` (codes 1..4) from its suffix array.

    Returns arrays indexed by node (root 0, the rest in construction order):
    ``children`` (nodes x 4, -1 when absent), ``edge_start``/``edge_len`` (the edge into
    the node as a slice of the text; 0 for the root), ``depth`` (string depth),
    ``leftmost`` (smallest suffix start below the node) and ``suffix_link`` (the node
    whose path label is this node's label without its first character; the root links
    to itself). Every suffix ends at a node (a suffix that is a prefix of another ends
    at an internal node: an implicit '$' leaf), so every suffix link target is a node.
    """
    n = text.size
    lcp = lcp_array(text, sa)
    depth, low, parent = [0], [n], [-1]
    leaf_of = [0] * (n + 1)
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
        leaf_of[s] = new_node(n - s, s)
        stack.append(leaf_of[s])
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
    # suffix link of node v (label text[low:low+d]): the ancestor of suffix low+1's node
    # at string depth d-1 (vectorised climb: every candidate moves up until shallow enough)
    leaf_a = np.array(leaf_of)
    link = np.zeros(count, np.int64)
    want = depth_a[kids] - 1
    cur = leaf_a[np.minimum(low_a[kids] + 1, n)]
    cur[want == 0] = 0
    while True:
        deep = depth_a[cur] > want
        if not deep.any():
            break
        cur[deep] = parent_a[cur[deep]]
    if not np.array_equal(depth_a[cur], want):
        raise AssertionError("suffix tree: a suffix link target is not a node")
    link[kids] = cur
    return {"children": children, "edge_start": edge_start, "edge_len": edge_len,
            "depth": depth_a.astype(np.int32), "leftmost": low_a.astype(np.int32),
            "suffix_link": link.astype(np.int32)}


def make_reads(params: dict, ref: np.ndarray, rng: np.random.Generator):
    """Reads of lengths uniform in [min_read, max_read]; a share ``from_ref`` of them are
    substrings of ``ref`` with point mutations at ``mutation_rate``, the rest random.
    Returns (concatenated codes uint8, offsets int32 of n_reads + 1)."""
    n_reads = params["n_reads"]
    lens = rng.integers(params["min_read"], params["max_read"] + 1, size=n_reads)
    offsets = np.zeros(n_reads + 1, np.int64)
    np.cumsum(lens, out=offsets[1:])
    total = int(offsets[-1])
    which = np.repeat(np.arange(n_reads), lens)
    within = np.arange(total) - offsets[which]
    from_ref = rng.random(n_reads) < params["from_ref"]
    starts = rng.integers(0, ref.size - lens + 1)
    copied = ref[np.minimum(starts[which] + within, ref.size - 1)]
    random = rng.integers(1, 5, size=total, dtype=np.uint8)
    mutate = rng.random(total) < params["mutation_rate"]
    # a mutation replaces the base by one of the three others
    shifted = (copied - 1 + rng.integers(1, 4, size=total, dtype=np.uint8)) % 4 + 1
    reads = np.where(from_ref[which], np.where(mutate, shifted, copied), random)
    return reads.astype(np.uint8), offsets.astype(np.int32)


def make_inputs(params: dict, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Reference (with its 0 sentinel), its suffix array and tree, and the reads."""
    ref = rng.integers(1, 5, size=params["ref_len"], dtype=np.uint8)
    sa = suffix_array(ref)
    tree = suffix_tree(ref, sa)
    reads, offsets = make_reads(params, ref, rng)
    return {"ref": np.append(ref, np.uint8(0)), "reads": reads, "read_offsets": offsets,
            **tree}


class ReversedAutomaton:
    """Suffix automaton of the reversed reference. Per state: transitions, suffix link,
    longest length and ``last_end`` (largest end position, in the reversed text, of the
    strings of the state), so the leftmost start in the reference of its strings is n - 1 - last_end."""

    def __init__(self, ref: bytes):
        text = ref[::-1]
        self.n = len(text)
        nxt, link, length, end = [{}], [-1], [0], [-1]
        last = 0
        for pos, c in enumerate(text):
            cur = len(length)
            nxt.append({})
            link.append(0)
            length.append(length[last] + 1)
            end.append(pos)
            p = last
            while p != -1 and c not in nxt[p]:
                nxt[p][c] = cur
                p = link[p]
            if p != -1:
                q = nxt[p][c]
                if length[p] + 1 == length[q]:
                    link[cur] = q
                else:
                    clone = len(length)
                    nxt.append(dict(nxt[q]))
                    link.append(link[q])
                    length.append(length[p] + 1)
                    end.append(-1)              # a clone's ends come from its subtree
                    while p != -1 and nxt[p].get(c) == q:
                        nxt[p][c] = clone
                        p = link[p]
                    link[q] = clone
                    link[cur] = clone
            last = cur
        for s in sorted(range(1, len(length)), key=length.__getitem__, reverse=True):
            if end[s] > end[link[s]]:
                end[link[s]] = end[s]
        self.next, self.link, self.length, self.last_end = nxt, link, length, end

    def matching_statistics(self, read: bytes) -> tuple[list[int], list[int]]:
        """Per read position i: the length of the longest prefix of read[i:] that occurs
        in the reference, and its leftmost start there (-1 for length 0)."""
        nxt, link, length, end = self.next, self.link, self.length, self.last_end
        m = len(read)
        lens, poss = [0] * m, [-1] * m
        v, ell = 0, 0
        for k in range(m - 1, -1, -1):
            c = read[k]
            while v and c not in nxt[v]:
                v = link[v]
                ell = length[v]
            if c in nxt[v]:
                v = nxt[v][c]
                ell += 1
            else:
                v, ell = 0, 0
            if ell:
                s = v
                while length[link[s]] >= ell:   # the state that holds exactly this length
                    s = link[s]
                lens[k] = ell
                poss[k] = self.n - 1 - end[s]
        return lens, poss
