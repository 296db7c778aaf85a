// Robustness battery: memory widths, vector loads, __ldg, 64-bit ints, conversions.
#include <cstdint>

extern "C" __global__ void vec_float4(const float4* __restrict__ a, const int2* b, float4* out, int2* outi, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = __ldg(&a[i]);
        int2 w = b[i];
        out[i] = make_float4(v.w + w.x, v.z * 2.0f, v.y - w.y, v.x);
        outi[i] = make_int2(w.y * 3, w.x ^ 0x55);
    }
}

extern "C" __global__ void small_types(const signed char* sc, const unsigned char* uc, const short* ss,
                                        const unsigned short* us, int* oi, unsigned char* ouc,
                                        short* oss, float* of, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int s = sc[i];
    unsigned int u = uc[i];
    oi[i] = s * 1000 + (int)u + ss[i] - (int)us[i];
    ouc[i] = (unsigned char)(u + s * 7);          // wraps mod 256
    oss[i] = (short)(ss[i] * 3 + us[i]);          // wraps mod 65536
    of[i] = (float)sc[i] + (float)us[i] * 0.5f;
}

extern "C" __global__ void int64_math(const long long* a, const unsigned long long* b, long long* o1,
                                      unsigned long long* o2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long x = a[i];
    unsigned long long y = b[i];
    o1[4 * i + 0] = x * 7LL - (x >> 3);
    o1[4 * i + 1] = x / 13LL + x % 13LL;
    o1[4 * i + 2] = (y == 0) ? 0 : (long long)(y % 1000003ULL);
    o1[4 * i + 3] = (long long)__mul64hi(x, 0x123456789LL);
    o2[3 * i + 0] = y * 0x9E3779B97F4A7C15ULL + (y >> 17);
    o2[3 * i + 1] = (y << 5) ^ (y >> 59) ^ (unsigned long long)x;
    o2[3 * i + 2] = __umul64hi(y, 0xDEADBEEFCAFEBABEULL);
}

extern "C" __global__ void int_div(const int* a, const int* b, const unsigned* ua, const unsigned* ub,
                                   int* q, int* r, unsigned* uq, unsigned* ur, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    q[i] = a[i] / b[i];
    r[i] = a[i] % b[i];
    uq[i] = ua[i] / ub[i];
    ur[i] = ua[i] % ub[i];
}

extern "C" __global__ void int_intrinsics(const unsigned* a, const unsigned* b, int* o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    int sx = (int)x, sy = (int)y;
    int* p = o + 12 * i;
    p[0] = __popc(x);
    p[1] = __clz(x);
    p[2] = (int)__brev(x);
    p[3] = __ffs(sx);
    p[4] = (int)__umulhi(x, y);
    p[5] = __mul24(sx, sy);
    p[6] = (int)__sad(sx & 0xffff, sy & 0xffff, 7u);
    p[7] = min(sx, sy);
    p[8] = (int)max(x, y);
    p[9] = abs(sx);
    p[10] = __popcll(((unsigned long long)x << 32) | y) + __clzll((long long)y);
    p[11] = __mulhi(sx, sy);
}
