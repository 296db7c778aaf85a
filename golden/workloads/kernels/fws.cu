// FWS: all-pairs shortest paths by Floyd-Warshall, one launch per pivot k, in the
// structure of the Pannotia Floyd-Warshall benchmark (DARSIE Table 1, TB (16,16)).
//
// dist and next are n x n row-major int matrices. In the launch for pivot k, thread (i, j)
// of the 2D grid relaxes dist[i][j] through k and, when the path through k is strictly
// shorter, records next[i][j] = next[i][k] for path reconstruction (a data-dependent
// branch). Row k and column k do not change during step k, so the update is in place.

extern "C" __global__ void floyd_warshall_step(int *dist, int *next, int n, int k)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n)
        return;
    const int via = dist[i * n + k] + dist[k * n + j];
    if (via < dist[i * n + j]) {
        dist[i * n + j] = via;
        next[i * n + j] = next[i * n + k];
    }
}
