// MUMPP: maximal exact matches of reads against a reference through a path-compressed
// suffix tree (MUMmerGPU++ structure).
//
// Stands in for MUM++ (MUMmerGPU++) of CAPRI Table 2, divergent. Where our MUM binary-
// searches a suffix array, this kernel walks a suffix tree whose unary paths are
// compressed into edges labelled by a (start, length) slice of the reference: a node
// holds one child slot per base, and each step follows the child for the next query
// character, then extends the match along the child's edge one character at a time
// until the edge ends, the query ends or a character differs. Like MUMmerGPU++ it
// reports more than one match per read: the walk restarts from the root at every
// `stride`-th offset of the read, recording the match length and the leftmost reference
// position (the smallest suffix below the node reached). Both the number of edges and
// each edge's matched length depend on the data, so lanes leave both loops at
// different iterations.
//
// Characters are 1..4; the reference ends with a 0 sentinel that matches nothing.

#define MPP_ALPHABET 4

extern "C" __global__ void mumpp_match(const unsigned char* __restrict__ ref,
                                       const int* __restrict__ children,    // [node][4]
                                       const int* __restrict__ edge_start,  // [node]
                                       const int* __restrict__ edge_len,    // [node]
                                       const int* __restrict__ leftmost,    // [node]
                                       const unsigned char* __restrict__ queries,
                                       int query_len, int n_queries, int stride,
                                       int min_match, int n_offsets,
                                       int* match_len, int* match_pos, int* n_long)
{
    const int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= n_queries) {
        return;
    }
    const unsigned char* query = queries + (size_t)q * query_len;
    int long_matches = 0;
    for (int slot = 0; slot < n_offsets; slot++) {
        const int start = slot * stride;
        int qi = start;
        int node = 0;      // the root
        int pos = -1;
        while (qi < query_len) {
            const int child = children[node * MPP_ALPHABET + query[qi] - 1];
            if (child < 0) {
                break;
            }
            const int s = edge_start[child];
            const int len = edge_len[child];
            int j = 0;
            while (j < len && qi < query_len && ref[s + j] == query[qi]) {
                ++j;
                ++qi;
            }
            pos = leftmost[child];
            if (j < len) {
                break;         // mismatch inside the edge, or the read ended
            }
            node = child;
        }
        const int length = qi - start;
        if (length >= min_match) {
            ++long_matches;
        }
        match_len[q * n_offsets + slot] = length;
        match_pos[q * n_offsets + slot] = pos;
    }
    n_long[q] = long_matches;
}
