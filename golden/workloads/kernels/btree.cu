// BTREE: B+ tree look-ups and range queries, one TB per query (Rodinia b+tree structure).
//
// Stands in for b+tree of the locality chapter (dissertation ch. 5). The tree lives in one
// int array of fixed-size node records, root first then level by level (BFS order):
//   keys[0 .. BT_F]       the node's keys, then INT_MAX sentinels (slot BT_F always is one);
//   ptrs[0 .. BT_F]       at BT_F + 1: child node ids (inner nodes) or record ids (leaves).
// An inner node's key i is the smallest key under child i (key 0 is INT_MIN), so child i
// covers keys[i] <= k < keys[i + 1]. A record is 2 * (BT_F + 1) ints = 2056 B, not a
// multiple of the 128 B line: like Rodinia's knode array, one node spans parts of 17 lines.
//
// Each TB of BT_F threads serves one query. Thread t tests key slot t of the current node
// (a warp reads 32 neighbouring keys); the one thread whose slot brackets the query key
// writes the child id to a per-query global word, and after a barrier thread 0 moves the
// query's current-node word on (Rodinia keeps currKnode/offset in global memory the same
// way). All queries start at the root, so the top levels are read by every TB.
//   * btree_find: exact look-up; the thread holding the key in the leaf copies the
//     record's value (values stay -1 for absent keys).
//   * btree_range: walks the paths of a start and an end key together; at the leaves the
//     start key's record id and the number of records from start to end (0 unless both
//     keys are present).
#define BT_F 256
#define BT_NODE_INTS (2 * (BT_F + 1))

extern "C" __global__ void btree_find(const int* __restrict__ tree,
                                      const int* __restrict__ records,
                                      int* node_of, int* next_of,
                                      const int* __restrict__ queries,
                                      int* values, int height)
{
    int q = blockIdx.x;
    int t = threadIdx.x;
    int key = queries[q];
    for (int level = 0; level < height; ++level) {
        const int* node = tree + (size_t)node_of[q] * BT_NODE_INTS;
        if (node[t] <= key && key < node[t + 1]) next_of[q] = node[BT_F + 1 + t];
        __syncthreads();
        if (t == 0) node_of[q] = next_of[q];
        __syncthreads();
    }
    const int* leaf = tree + (size_t)node_of[q] * BT_NODE_INTS;
    if (leaf[t] == key) values[q] = records[leaf[BT_F + 1 + t]];
}

extern "C" __global__ void btree_range(const int* __restrict__ tree,
                                       int* node_a, int* next_a,
                                       int* node_b, int* next_b,
                                       const int* __restrict__ starts,
                                       const int* __restrict__ ends,
                                       int* rec_start, int* rec_len, int height)
{
    int q = blockIdx.x;
    int t = threadIdx.x;
    int lo = starts[q];
    int hi = ends[q];
    for (int level = 0; level < height; ++level) {
        const int* na = tree + (size_t)node_a[q] * BT_NODE_INTS;
        const int* nb = tree + (size_t)node_b[q] * BT_NODE_INTS;
        if (na[t] <= lo && lo < na[t + 1]) next_a[q] = na[BT_F + 1 + t];
        if (nb[t] <= hi && hi < nb[t + 1]) next_b[q] = nb[BT_F + 1 + t];
        __syncthreads();
        if (t == 0) {
            node_a[q] = next_a[q];
            node_b[q] = next_b[q];
        }
        __syncthreads();
    }
    const int* la = tree + (size_t)node_a[q] * BT_NODE_INTS;
    const int* lb = tree + (size_t)node_b[q] * BT_NODE_INTS;
    if (la[t] == lo) rec_start[q] = la[BT_F + 1 + t];
    __syncthreads();
    if (lb[t] == hi) {
        int first = rec_start[q];
        rec_len[q] = first >= 0 ? lb[BT_F + 1 + t] - first + 1 : 0;
    }
}
