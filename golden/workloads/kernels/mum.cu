// MUM: longest exact match of short reads against a reference, via its suffix array.
//
// Stands in for MUM (MUMmerGPU) of CAPRI Table 2 (MUM++ has its own, mumpp.cu): one
// query (read) per thread, a search over an index of the reference whose every step compares characters until
// the first mismatch. Here the index is a suffix array: a binary search finds where
// the query would be inserted among the sorted suffixes, and the longest prefix of
// the query that occurs in the reference is the longer of the common prefixes with
// the two suffixes around that point. Both the number of search steps and every
// comparison's length depend on the data, so warps diverge at every level.
//
// Characters are 1..4 (A C G T); the reference is followed by a 0 sentinel that is
// smaller than every character, so no comparison runs past its end.
__device__ __forceinline__ int common_prefix(const unsigned char* __restrict__ ref,
                                             int start,
                                             const unsigned char* __restrict__ query,
                                             int query_len)
{
    int l = 0;
    while (l < query_len && ref[start + l] == query[l]) {
        ++l;
    }
    return l;
}

extern "C" __global__ void mum_match(const unsigned char* __restrict__ ref,
                                     const int* __restrict__ suffix_array,
                                     int ref_len,
                                     const unsigned char* __restrict__ queries,
                                     int query_len,
                                     int n_queries,
                                     int* match_len,
                                     int* match_pos)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= n_queries) {
        return;
    }
    const unsigned char* query = queries + (size_t)q * query_len;

    // first suffix (in sorted order) that is >= the query, comparing at most query_len
    int lo = 0, hi = ref_len;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        int start = suffix_array[mid];
        int l = common_prefix(ref, start, query, query_len);
        if (l == query_len || ref[start + l] > query[l]) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }

    int best_len = -1, best_pos = -1;
    if (lo < ref_len) {
        best_pos = suffix_array[lo];
        best_len = common_prefix(ref, best_pos, query, query_len);
    }
    if (lo > 0) {
        int start = suffix_array[lo - 1];
        int l = common_prefix(ref, start, query, query_len);
        if (l > best_len) {
            best_len = l;
            best_pos = start;
        }
    }
    match_len[q] = best_len;
    match_pos[q] = best_pos;
}
