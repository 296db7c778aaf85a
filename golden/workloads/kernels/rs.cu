// RS: least-significant-digit radix sort of key/value pairs (32-bit keys and values),
// 4-bit digits, three kernels a pass.
//
// Stands in for RadixSort (RS) of WarpMan Table 5 (CUDA SDK radixSort structure): the
// main kernel, rs_local_sort, uses 512-thread TBs (16 warps) and about 4 KB of shared
// memory (a 512-pair tile: 512 keys and 512 values, plus 32 words for per-warp counts and
// digit runs). Pairs are stored as uint2 {key, value}. Per pass over the digit at `shift`:
//
//  1. rs_local_sort: each TB sorts its 512-pair tile by the digit with four stable 1-bit
//     splits (as the SDK's radixSortBlocks). A split ranks the keys whose bit is 0: each
//     warp counts them with a ballot and stores its count in shared memory; after a
//     __syncthreads() warp 0 scans the 16 counts (shuffles) and, after another barrier,
//     every pair moves to its rank in shared memory; a third barrier ends the split.
//     Then the TB writes the sorted tile and, per digit, how many pairs of the tile have
//     it and where their run starts in the tile (digit-major tables);
//  2. rs_scan_counts (one TB): exclusive scan of the count table counts[digit * n_tiles +
//     tile] (a Hillis-Steele scan in shared memory), each (digit, tile) run's global offset;
//  3. rs_scatter: every pair moves to offset[digit, tile] + (its tile position - the run's
//     start), which keeps the sort stable.
//
// The number of pairs is a multiple of the 512-pair tile.
#define RS_TB 512
#define RS_WARPS (RS_TB / 32)
#define RS_RADIX 16

extern "C" __global__ void rs_local_sort(const uint2* __restrict__ pairs_in,
                                         uint2* __restrict__ pairs_tile,
                                         unsigned int* __restrict__ counts,
                                         unsigned int* __restrict__ starts,
                                         int shift)
{
    __shared__ unsigned int s_key[RS_TB];
    __shared__ unsigned int s_val[RS_TB];
    __shared__ unsigned int s_aux[2 * RS_RADIX];   // per-warp counts and total, later digit runs
    int tid = threadIdx.x;
    int lane = tid & 31;
    int warp = tid >> 5;
    int i = blockIdx.x * RS_TB + tid;
    uint2 pair = pairs_in[i];
    unsigned int key = pair.x;
    unsigned int val = pair.y;

    for (int bit = shift; bit < shift + 4; ++bit) {
        bool zero = ((key >> bit) & 1u) == 0;      // zeros go to the front, in order
        unsigned int mask = __ballot_sync(0xffffffffu, zero);
        if (lane == 0) {
            s_aux[warp] = __popc(mask);
        }
        __syncthreads();
        if (warp == 0) {                           // warp 0 scans the per-warp counts
            unsigned int c = (lane < RS_WARPS) ? s_aux[lane] : 0u;
            unsigned int incl = c;
            for (int off = 1; off < RS_WARPS; off <<= 1) {
                unsigned int v = __shfl_up_sync(0xffffffffu, incl, off);
                if (lane >= off) {
                    incl += v;
                }
            }
            if (lane < RS_WARPS) {
                s_aux[lane] = incl - c;            // zeros in the warps before
            }
            if (lane == RS_WARPS - 1) {
                s_aux[RS_WARPS] = incl;            // zeros in the tile
            }
        }
        __syncthreads();
        unsigned int before = s_aux[warp] + __popc(mask & ((1u << lane) - 1u));
        unsigned int dst = zero ? before : tid - before + s_aux[RS_WARPS];
        s_key[dst] = key;
        s_val[dst] = val;
        __syncthreads();
        key = s_key[tid];
        val = s_val[tid];
    }

    // runs of equal digits in the sorted tile
    unsigned int* s_start = s_aux;
    unsigned int* s_end = s_aux + RS_RADIX;
    if (tid < RS_RADIX) {
        s_start[tid] = 0;
        s_end[tid] = 0;
    }
    __syncthreads();
    unsigned int digit = (key >> shift) & (RS_RADIX - 1);
    if (tid == 0 || ((s_key[tid - 1] >> shift) & (RS_RADIX - 1)) != digit) {
        s_start[digit] = tid;
    }
    if (tid == RS_TB - 1 || ((s_key[tid + 1] >> shift) & (RS_RADIX - 1)) != digit) {
        s_end[digit] = tid + 1;
    }
    pairs_tile[i] = make_uint2(key, val);
    __syncthreads();
    if (tid < RS_RADIX) {
        counts[tid * gridDim.x + blockIdx.x] = s_end[tid] - s_start[tid];
        starts[tid * gridDim.x + blockIdx.x] = s_start[tid];
    }
}

extern "C" __global__ void rs_scan_counts(const unsigned int* __restrict__ counts,
                                          unsigned int* __restrict__ offsets,
                                          int n)
{
    __shared__ unsigned int s_sum[RS_TB];
    int tid = threadIdx.x;
    int per = (n + RS_TB - 1) / RS_TB;
    int begin = tid * per;
    int end = min(begin + per, n);
    unsigned int local = 0;
    for (int i = begin; i < end; ++i) {
        local += counts[i];
    }
    s_sum[tid] = local;
    __syncthreads();
    for (int off = 1; off < RS_TB; off <<= 1) {     // inclusive Hillis-Steele scan
        unsigned int v = s_sum[tid];
        if (tid >= off) {
            v += s_sum[tid - off];
        }
        __syncthreads();
        s_sum[tid] = v;
        __syncthreads();
    }
    unsigned int run = s_sum[tid] - local;
    for (int i = begin; i < end; ++i) {
        offsets[i] = run;
        run += counts[i];
    }
}

extern "C" __global__ void rs_scatter(const uint2* __restrict__ pairs_tile,
                                      const unsigned int* __restrict__ offsets,
                                      const unsigned int* __restrict__ starts,
                                      uint2* __restrict__ pairs_out,
                                      int shift)
{
    int tid = threadIdx.x;
    uint2 pair = pairs_tile[blockIdx.x * RS_TB + tid];
    int run = ((pair.x >> shift) & (RS_RADIX - 1)) * gridDim.x + blockIdx.x;
    pairs_out[offsets[run] + tid - starts[run]] = pair;
}
