// MUM: matching statistics of reads against a reference through its suffix tree, walked
// with suffix links (MUMmerGPU structure).
//
// Stands in for MUM (MUMmerGPU) of CAPRI Table 2, divergent (MUM++ has its own,
// mumpp.cu). One read per thread, 256-thread blocks; reads have different lengths and are
// packed into one buffer with an offset per read. For every position i of its read the
// thread reports the longest prefix of read[i:] that occurs in the reference and the
// leftmost reference position of that match. Like MUMmer it never restarts from the root:
// after position i it drops the first character by following the suffix link of the
// deepest node on the match, re-descends ("skip/count": whole edges by their length) to
// where the shortened match ends, then extends it one character at a time along the
// edges. How many edges are skipped, how far each extension runs and how long the read is
// all depend on the data, so the lanes of a warp leave every loop at different times.
//
// Tree layout (ours): per node a 4-slot child table (A C G T; -1 when absent), the edge
// into it as a (start, length) slice of the reference, its string depth, the smallest
// suffix start below it and its suffix link. Characters are 1..4; the reference ends with
// a 0 sentinel.

#define MUM_ALPHABET 4

extern "C" __global__ void mum_match(const unsigned char* __restrict__ ref,
          const int* __restrict__ children,      // [node][4]
          const int* __restrict__ edge_start,    // [node]
          const int* __restrict__ edge_len,      // [node]
          const int* __restrict__ depth,         // [node]
          const int* __restrict__ leftmost,      // [node]
          const int* __restrict__ suffix_link,   // [node]
          const unsigned char* __restrict__ reads,
          const int* __restrict__ read_offsets,  // [n_reads + 1]
          int n_reads,
          int* match_len, int* match_pos)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n_reads) {
        return;
    }
    const int base = read_offsets[r];
    const int len = read_offsets[r + 1] - base;
    const unsigned char* read = reads + base;
    int v = 0;        // deepest node on the current match (the root at first)
    int vdepth = 0;   // its string depth
    int m = 0;        // length of the current match read[i : i + m]
    for (int i = 0; i < len; ++i) {
        int child = -1;   // the edge below v that the match ends inside (-1: at v)
        int clen = 0;     // its length
        // skip/count: descend whole edges while the match reaches past their end
        while (m > vdepth) {
            child = children[v * MUM_ALPHABET + read[i + vdepth] - 1];
            clen = edge_len[child];
            if (vdepth + clen > m) {
                break;
            }
            v = child;
            vdepth += clen;
            child = -1;
        }
        // extend the match edge by edge, each edge one character at a time
        for (;;) {
            if (child < 0) {
                if (i + m >= len) {
                    break;
                }
                child = children[v * MUM_ALPHABET + read[i + m] - 1];
                if (child < 0) {
                    break;
                }
                clen = edge_len[child];
            }
            const unsigned char* edge = ref + edge_start[child];
            const unsigned char* rest = read + i + vdepth;
            const int stop = min(clen, len - i - vdepth);
            int off = m - vdepth;
            while (off < stop && edge[off] == rest[off]) {
                ++off;
            }
            m = vdepth + off;
            if (off < clen) {
                break;        // a mismatch, or the read ended, inside the edge
            }
            v = child;
            vdepth = m;
            child = -1;
        }
        int pos = -1;
        if (m > 0) {
            pos = (m == vdepth) ? leftmost[v] : leftmost[child];
        }
        match_len[base + i] = m;
        match_pos[base + i] = pos;
        // next position: drop the match's first character
        if (m > 0) {
            --m;
            if (v != 0) {
                v = suffix_link[v];
                vdepth = depth[v];
            }
        }
    }
}
