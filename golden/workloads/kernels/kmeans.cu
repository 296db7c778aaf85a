// KMEANS: the assignment step of k-means clustering (Rodinia kmeans structure).
//
// Stands in for kmeans of the locality chapter (dissertation ch. 5). Two kernels, one
// thread per point, 1D blocks of 256 threads:
//   * kmeans_transpose: copies the point-major features (point p, feature f at
//     p * nfeatures + f: each thread strides through its own row, so a warp touches
//     nfeatures * 4 B apart) into feature-major order (f * npoints + p: a warp writes
//     128 contiguous bytes per feature). The host runs it once.
//   * kmeans_assign: every thread walks the K centroids (in __constant__ memory, all
//     threads read the same word, a broadcast) and, for each, the point's features in
//     feature-major order, so a warp reads one contiguous 128 B line per feature and
//     the warps of a TB read neighbouring lines: coarse spatial locality across warps.
//     The nearest centroid (lowest index on a tie) goes to membership[p].
// The host recomputes the centroids from the memberships between launches, as Rodinia
// does on the CPU.
#define KM_MAX_CENTROID_WORDS 2048

__constant__ float c_centroids[KM_MAX_CENTROID_WORDS];   // centroid c, feature f at c * nfeatures + f

extern "C" __global__ void kmeans_transpose(const float* __restrict__ points,
                                            float* features,
                                            int npoints, int nfeatures)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < npoints) {
        for (int f = 0; f < nfeatures; ++f)
            features[f * npoints + p] = points[p * nfeatures + f];
    }
}

extern "C" __global__ void kmeans_assign(const float* __restrict__ features,
                                         int* membership,
                                         int npoints, int nclusters, int nfeatures)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < npoints) {
        int best = 0;
        float best_dist = 3.0e38f;
        for (int c = 0; c < nclusters; ++c) {
            float dist = 0.0f;
            for (int f = 0; f < nfeatures; ++f) {
                float d = features[f * npoints + p] - c_centroids[c * nfeatures + f];
                dist += d * d;
            }
            if (dist < best_dist) {
                best_dist = dist;
                best = c;
            }
        }
        membership[p] = best;
    }
}
