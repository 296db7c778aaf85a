// INLM: non-local-means image denoising, in the structure of the CUDA SDK imageDenoising
// NLM kernel (DARSIE Table 1, TB (16,16)), reading global memory with clamp-to-edge
// addressing where the sample reads a texture.
//
// One thread per output pixel. For every offset (i, j) of a (2*WIN_R+1)^2 search window
// the thread measures the squared distance between the (2*BLK_R+1)^2 patch around the
// pixel and the patch around the offset pixel, turns it into a weight exp(-(dist*noise +
// |offset|^2/window_area)), and accumulates the weighted colour. It also counts the
// fraction of weights above a threshold, which decides (per pixel, a data-dependent
// branch) how much of the filtered colour replaces the original.

#define WIN_R 2
#define BLK_R 1
#define WIN_AREA ((2 * WIN_R + 1) * (2 * WIN_R + 1))
#define INV_WIN_AREA (1.0f / (float)WIN_AREA)
#define WEIGHT_THRESHOLD 0.10f
#define LERP_THRESHOLD 0.10f

__device__ __forceinline__ float fetch(const float *img, int w, int h, int x, int y)
{
    x = min(max(x, 0), w - 1);
    y = min(max(y, 0), h - 1);
    return img[y * w + x];
}

extern "C" __global__ void nlm_denoise(float *dst, const float *src, int w, int h,
                                       float noise, float lerpC)
{
    const int ix = blockDim.x * blockIdx.x + threadIdx.x;
    const int iy = blockDim.y * blockIdx.y + threadIdx.y;
    if (ix >= w || iy >= h)
        return;

    float sum_weights = 0.0f;
    float colour = 0.0f;
    float fcount = 0.0f;
    for (int i = -WIN_R; i <= WIN_R; i++) {
        for (int j = -WIN_R; j <= WIN_R; j++) {
            float dist = 0.0f;
            for (int n = -BLK_R; n <= BLK_R; n++)
                for (int m = -BLK_R; m <= BLK_R; m++) {
                    const float d = fetch(src, w, h, ix + j + m, iy + i + n)
                                  - fetch(src, w, h, ix + m, iy + n);
                    dist += d * d;
                }
            const float weight = __expf(-(dist * noise + (float)(i * i + j * j) * INV_WIN_AREA));
            colour += fetch(src, w, h, ix + j, iy + i) * weight;
            sum_weights += weight;
            fcount += (weight > WEIGHT_THRESHOLD) ? INV_WIN_AREA : 0.0f;
        }
    }
    colour *= 1.0f / sum_weights;
    const float lerp_q = (fcount > LERP_THRESHOLD) ? lerpC : 1.0f - lerpC;
    const float self = fetch(src, w, h, ix, iy);
    dst[iy * w + ix] = self + (colour - self) * lerp_q;
}
