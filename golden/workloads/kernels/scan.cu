// Scan: inclusive prefix sum of int32 values, work-efficient (Blelloch) scan per TB.
//
// Stands in for Scan of the ILP chapter (CUDA SDK scan; <= 16 warps per SM). Three
// launches of 512-thread TBs:
//   1. scan_blocks over the input: each TB scans its 2048-element segment in shared memory
//      (up-sweep and down-sweep of a balanced tree, 11 levels each, a barrier per level;
//      at a level with fewer pairs than threads the other threads idle) and writes the
//      segment's total to block_sums;
//   2. scan_blocks again, one TB, over block_sums (at most 2048 segments);
//   3. scan_add_offsets: segment b > 0 adds the scanned total of segments 0..b-1.
// The shared segment is padded by one word every 32 (bank-conflict avoidance), 8448 B,
// so one TB (16 warps) fits a 16 KB SM.
#define SCAN_TB 512
#define SCAN_SEG (4 * SCAN_TB)
#define SCAN_PAD(i) ((i) + ((i) >> 5))

extern "C" __global__ void scan_blocks(const int* __restrict__ in, int* out,
                                       int* block_sums, int n)
{
    __shared__ int s[SCAN_PAD(SCAN_SEG)];
    int tid = threadIdx.x;
    int base = blockIdx.x * SCAN_SEG;
    int x[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        int i = tid + q * SCAN_TB;
        x[q] = base + i < n ? in[base + i] : 0;
        s[SCAN_PAD(i)] = x[q];
    }

    // up-sweep: after the level with `pairs` pairs, s[k * 2 offset - 1] holds the sum of
    // its 2 offset elements
    int offset = 1;
    for (int pairs = SCAN_SEG / 2; pairs > 0; pairs >>= 1) {
        __syncthreads();
        for (int p = tid; p < pairs; p += SCAN_TB) {
            int ai = offset * (2 * p + 1) - 1;
            int bi = offset * (2 * p + 2) - 1;
            s[SCAN_PAD(bi)] += s[SCAN_PAD(ai)];
        }
        offset <<= 1;
    }
    __syncthreads();
    if (tid == 0) {
        block_sums[blockIdx.x] = s[SCAN_PAD(SCAN_SEG - 1)];
        s[SCAN_PAD(SCAN_SEG - 1)] = 0;
    }

    // down-sweep: turns the tree into the exclusive prefix sums
    for (int pairs = 1; pairs < SCAN_SEG; pairs <<= 1) {
        offset >>= 1;
        __syncthreads();
        for (int p = tid; p < pairs; p += SCAN_TB) {
            int ai = offset * (2 * p + 1) - 1;
            int bi = offset * (2 * p + 2) - 1;
            int t = s[SCAN_PAD(ai)];
            s[SCAN_PAD(ai)] = s[SCAN_PAD(bi)];
            s[SCAN_PAD(bi)] += t;
        }
    }
    __syncthreads();

#pragma unroll
    for (int q = 0; q < 4; ++q) {
        int i = tid + q * SCAN_TB;
        if (base + i < n) out[base + i] = s[SCAN_PAD(i)] + x[q];    // inclusive
    }
}

// segment blockIdx.x + 1 adds scanned_sums[blockIdx.x], the total of all earlier segments
extern "C" __global__ void scan_add_offsets(int* out, const int* __restrict__ scanned_sums,
                                            int n)
{
    int add = scanned_sums[blockIdx.x];
    int base = (blockIdx.x + 1) * SCAN_SEG;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        int i = base + threadIdx.x + q * SCAN_TB;
        if (i < n) out[i] += add;
    }
}
