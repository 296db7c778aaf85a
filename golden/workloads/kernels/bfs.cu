// BFS: one launch per level of a frontier-queue breadth-first search.
//
// Stands in for the BFS benchmarks of UV Table 3 and CAPRI Table 2 (irregular graph,
// a thread per frontier vertex, data-dependent adjacency-list loops). Each thread takes
// one vertex of the current frontier, walks its CSR adjacency list and claims every
// unvisited neighbour with atomicCAS; a successful claim appends the neighbour to the
// next frontier through an atomicAdd on a global queue counter.
extern "C" __global__ void bfs_expand(const int* __restrict__ row_ptr,
                                      const int* __restrict__ col_idx,
                                      int* level,
                                      const int* __restrict__ frontier,
                                      int frontier_size,
                                      int* next_frontier,
                                      int* next_size,
                                      int cur_level)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= frontier_size) {
        return;
    }
    int v = frontier[i];
    int begin = row_ptr[v];
    int end = row_ptr[v + 1];
    for (int e = begin; e < end; ++e) {
        int u = col_idx[e];
        if (level[u] < 0) {
            // several frontier vertices may share the neighbour: only one claims it
            if (atomicCAS(&level[u], -1, cur_level + 1) == -1) {
                int slot = atomicAdd(next_size, 1);
                next_frontier[slot] = u;
            }
        }
    }
}
