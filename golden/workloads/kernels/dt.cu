// DT: BC1/DXT1-like block compression of an RGBA8 image, one 4x4 pixel block per thread.
//
// Stands in for dxtc (DT) of the ILP chapter and of UV Table 3. Each thread
//   1. loads its block's four rows (16 bytes each, one 128-bit load per row);
//   2. finds the per-channel minimum and maximum of R, G, B over the 16 pixels (the
//      bounding box of the colours) and quantises them to RGB565 endpoints c0 (max) and
//      c1 (min), so c0 >= c1 (BC1's four-colour order; equal endpoints mean a flat block);
//   3. builds the palette c0, c1, (2 c0 + c1) / 3, (c0 + 2 c1) / 3 from the endpoints
//      expanded back to 8 bits;
//   4. for every pixel picks the palette entry with the smallest squared RGB distance
//      (the first one on a tie) and packs the 2-bit indices, pixel i at bits 2i..2i+1.
// Output per block: word 0 = c0 | c1 << 16, word 1 = the 32 index bits. A flat block
// (c0 == c1) skips step 3-4 (all indices 0): a data-dependent branch.
// A TB is 64 threads = 64 consecutive blocks of one 4-pixel row strip (256 pixels wide).
#define DT_TB 64

__device__ __forceinline__ unsigned int pack565(unsigned int r, unsigned int g, unsigned int b)
{
    return ((r >> 3) << 11) | ((g >> 2) << 5) | (b >> 3);
}

// RGB565 -> 8-bit channels, replicating the top bits into the low bits
__device__ __forceinline__ void unpack565(unsigned int c, int* rgb)
{
    unsigned int r = (c >> 11) & 31, g = (c >> 5) & 63, b = c & 31;
    rgb[0] = (int)((r << 3) | (r >> 2));
    rgb[1] = (int)((g << 2) | (g >> 4));
    rgb[2] = (int)((b << 3) | (b >> 2));
}

extern "C" __global__ void dxt1_compress(const uint4* __restrict__ image,
                                         unsigned int* out,
                                         int width)
{
    int bx = blockIdx.x * DT_TB + threadIdx.x;    // block column
    int by = blockIdx.y;                          // block row
    int row_words = width / 4;                    // uint4 per image row
    unsigned int px[16];
#pragma unroll
    for (int y = 0; y < 4; ++y) {
        uint4 q = image[(size_t)(4 * by + y) * row_words + bx];
        px[4 * y + 0] = q.x;
        px[4 * y + 1] = q.y;
        px[4 * y + 2] = q.z;
        px[4 * y + 3] = q.w;
    }

    unsigned int lo[3] = {255, 255, 255}, hi[3] = {0, 0, 0};
#pragma unroll
    for (int i = 0; i < 16; ++i) {
#pragma unroll
        for (int c = 0; c < 3; ++c) {
            unsigned int v = (px[i] >> (8 * c)) & 255;
            lo[c] = min(lo[c], v);
            hi[c] = max(hi[c], v);
        }
    }
    unsigned int c0 = pack565(hi[0], hi[1], hi[2]);
    unsigned int c1 = pack565(lo[0], lo[1], lo[2]);
    unsigned int indices = 0;
    if (c0 != c1) {
        int pal[4][3];
        unpack565(c0, pal[0]);
        unpack565(c1, pal[1]);
#pragma unroll
        for (int c = 0; c < 3; ++c) {
            pal[2][c] = (2 * pal[0][c] + pal[1][c]) / 3;
            pal[3][c] = (pal[0][c] + 2 * pal[1][c]) / 3;
        }
#pragma unroll
        for (int i = 0; i < 16; ++i) {
            int r = px[i] & 255, g = (px[i] >> 8) & 255, b = (px[i] >> 16) & 255;
            unsigned int best = 0;
            int best_d = 0x7fffffff;
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                int dr = r - pal[k][0], dg = g - pal[k][1], db = b - pal[k][2];
                int d = dr * dr + dg * dg + db * db;
                if (d < best_d) {
                    best_d = d;
                    best = k;
                }
            }
            indices |= best << (2 * i);
        }
    }
    size_t o = 2 * ((size_t)by * (width / 4) + bx);
    out[o] = c0 | (c1 << 16);
    out[o + 1] = indices;
}
