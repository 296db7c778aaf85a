// MUMPP: longest matches of reads at every stride-th read position, each found by a walk
// from the root of the reference's path-compressed suffix tree.
//
// Stands in for MUM++ (MUMmerGPU++) of CAPRI Table 2, divergent. One read per thread,
// 256-thread blocks, reads of different lengths packed into one buffer with an offset per
// read. Where our MUM (mum.cu) moves from one read position to the next by suffix links,
// this kernel keeps no suffix links (a smaller node record) and restarts at the root for
// every `stride`-th position of the read that leaves at least `min_match` characters:
// each step follows the child for the next read character, then extends the match along
// that child's compressed edge (a (start, length) slice of the reference) until the edge
// ends, the read ends or a character differs. Per start it records the match length and
// the leftmost reference position (the smallest suffix start below the edge reached); per
// read, how many matches reach `min_match`. The number of starts per read, of edges per
// walk and of characters per edge all depend on the data, so lanes leave all three loops
// at different iterations.
//
// Characters are 1..4; the reference ends with a 0 sentinel that matches nothing.

#define MPP_ALPHABET 4

extern "C" __global__ void mumpp_match(const unsigned char* __restrict__ ref,
            const int* __restrict__ children,      // [node][4]
            const int* __restrict__ edge_start,    // [node]
            const int* __restrict__ edge_len,      // [node]
            const int* __restrict__ leftmost,      // [node]
            const unsigned char* __restrict__ reads,
            const int* __restrict__ read_offsets,  // [n_reads + 1]
            int n_reads, int stride, int min_match,
            int* match_len, int* match_pos, int* n_long)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n_reads) {
        return;
    }
    const int base = read_offsets[r];
    const int len = read_offsets[r + 1] - base;
    const unsigned char* read = reads + base;
    int long_matches = 0;
    for (int start = 0; start + min_match <= len; start += stride) {
        int qi = start;
        int node = 0;      // the root
        int pos = -1;
        while (qi < len) {
            const int child = children[node * MPP_ALPHABET + read[qi] - 1];
            if (child < 0) {
                break;
            }
            const unsigned char* edge = ref + edge_start[child];
            const int el = edge_len[child];
            int j = 0;
            while (j < el && qi < len && edge[j] == read[qi]) {
                ++j;
                ++qi;
            }
            pos = leftmost[child];
            if (j < el) {
                break;         // mismatch inside the edge, or the read ended
            }
            node = child;
        }
        const int length = qi - start;
        if (length >= min_match) {
            ++long_matches;
        }
        match_len[base + start] = length;
        match_pos[base + start] = pos;
    }
    n_long[r] = long_matches;
}
