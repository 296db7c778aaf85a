// Robustness battery: control flow, device functions, local arrays, struct/many params, printf.
#include <cstdio>

struct Pair { float lo, hi; int count; };
struct Params { int offset; float scale; double bias; short tag; char flag; };

__device__ __noinline__ Pair minmax3(float a, float b, float c)
{
    Pair p;
    p.lo = fminf(a, fminf(b, c));
    p.hi = fmaxf(a, fmaxf(b, c));
    p.count = (a > 0.0f) + (b > 0.0f) + (c > 0.0f);
    return p;
}

__device__ __noinline__ float poly(float x, int deg)
{
    float r = 0.0f;
    for (int k = deg; k >= 0; --k) r = r * x + (float)(k + 1);
    return r;
}

extern "C" __global__ void nested_loops(const int* v, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = v[i], acc = 0;
    for (int a = 0; a < (x & 15); ++a) {
        if (a == 11) break;
        if ((a ^ x) & 1) continue;
        for (int b = 0; b < a; ++b) {
            if (b * a > x) break;
            acc += (b & 1) ? b : -a;
            if (acc > 500) goto done;
        }
    }
done:
    switch (x % 7) {
        case 0: acc += 1; break;
        case 1: acc *= 2; break;
        case 2:
        case 3: acc -= 3; break;
        case 4: acc ^= 0x5a;   // fall through
        case 5: acc += 100; break;
        default: acc = -acc;
    }
    out[i] = acc;
}

extern "C" __global__ void device_funcs(const float* a, float* lo, float* hi, int* cnt, float* pv, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Pair p = minmax3(a[3 * i], a[3 * i + 1], a[3 * i + 2]);
    lo[i] = p.lo; hi[i] = p.hi; cnt[i] = p.count;
    pv[i] = poly(a[3 * i] * 0.5f, i % 6);
}

extern "C" __global__ void local_array(const int* v, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int buf[24];
    for (int k = 0; k < 24; ++k) buf[k] = (v[i] * (k + 1)) % 97;
    int idx = v[i] % 24;
    for (int k = 0; k < 10; ++k) {
        buf[idx] += k;
        idx = (buf[idx] + k) % 24;
    }
    int s = 0;
    for (int k = 0; k < 24; ++k) s += buf[k] * (k & 3);
    out[i] = s + idx;
}

extern "C" __global__ void struct_param(Params p, const float* in, double* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = (double)(in[i] * p.scale) + p.bias + (double)p.offset;
    out[i] = p.flag ? v + (double)p.tag : v - (double)p.tag;
}

extern "C" __global__ void many_params(int* out, char c, short s, int i32, unsigned u32, long long i64,
                                       unsigned long long u64, float f, double d, unsigned char uc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long r = (long long)c + s + i32 + (long long)u32 + i64 + (long long)(u64 >> 8) + uc;
    r += (long long)(f * 16.0f) + (long long)(d * 64.0);
    out[2 * i] = (int)(r + i);
    out[2 * i + 1] = (int)(r >> 32);
}

extern "C" __global__ void bool_logic(const int* a, const int* b, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    bool p = x > y, q = (x & 3) == 0, r = y < 0;
    bool z = (p && !q) || (r != p) ;
    bool w = p ^ q ^ r;
    int t = z ? (w ? x - y : y * 2) : (q ? x : -y);
    unsigned m = (unsigned)p | ((unsigned)q << 1) | ((unsigned)r << 2) | ((unsigned)z << 3) | ((unsigned)w << 4);
    out[2 * i] = t;
    out[2 * i + 1] = (int)m;
}

extern "C" __global__ void while_early_return(const int* v, int* out, int* steps, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = v[i];
    int k = 0;
    out[i] = -1;
    if (x & 1) {
        while (x != 1) {
            x = (x & 1) ? 3 * x + 1 : x / 2;
            ++k;
            if (k == 40) { steps[i] = k; return; }
        }
        out[i] = x;
    } else {
        while (x > 0) {
            if (x % 10 == 7) { steps[i] = -k; return; }
            x /= 3;
            ++k;
        }
        out[i] = x + 1000;
    }
    steps[i] = k;
}

extern "C" __global__ void say_hello(const int* v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (v[i] % 3) == 0)
        printf("t%d v=%d f=%.2f x=%x s=%s\n", i, v[i], v[i] * 0.5f, v[i], "ok");
}

// C++ kernels, launched by their mangled names
__global__ void saxpy(float a, const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T>
__global__ void scale_t(T* y, T k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] * k;
}
template __global__ void scale_t<int>(int*, int, int);
template __global__ void scale_t<double>(double*, double, int);
