// Robustness battery: single and double precision math, conversions and rounding intrinsics.
extern "C" __global__ void fmath(const float* x, const float* y, float* o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];   // a in (0.1, 4), b in (-3, 3)
    float* p = o + 32 * i;
    p[0] = sqrtf(a);
    p[1] = rsqrtf(a);
    p[2] = expf(b);
    p[3] = exp2f(b);
    p[4] = logf(a);
    p[5] = log2f(a);
    p[6] = log10f(a);
    p[7] = powf(a, b);
    p[8] = sinf(b);
    p[9] = cosf(b);
    p[10] = tanf(b * 0.4f);
    p[11] = tanhf(b);
    p[12] = erff(b);
    p[13] = fabsf(b);
    p[14] = floorf(b * 3.3f);
    p[15] = ceilf(b * 3.3f);
    p[16] = rintf(b * 3.3f);
    p[17] = truncf(b * 3.3f);
    p[18] = roundf(b * 3.3f);
    p[19] = fminf(a, b);
    p[20] = fmaxf(a, b);
    p[21] = fmodf(b * 5.0f, a);
    p[22] = __saturatef(b);
    p[23] = __fdividef(b, a);
    p[24] = __expf(b);
    p[25] = __sinf(b);
    p[26] = copysignf(a, b);
    p[27] = a / b;
    p[28] = fmaf(a, b, 1.0f);
    p[29] = atan2f(b, a);
    p[30] = cbrtf(b);
    p[31] = hypotf(a, b);
}

extern "C" __global__ void dmath(const double* x, const double* y, double* o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double a = x[i], b = y[i];
    double* p = o + 8 * i;
    p[0] = exp(b);
    p[1] = log(a);
    p[2] = sqrt(a);
    p[3] = pow(a, b);
    p[4] = sin(b);
    p[5] = a / b;
    p[6] = fma(a, b, -1.0);
    p[7] = floor(b * 10.0) + fabs(b);
}

extern "C" __global__ void conversions(const float* f, const double* d, const int* iv,
                                       int* oi, unsigned* ou, float* of, double* od, long long* ol, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = f[i];
    int k = iv[i];
    oi[6 * i + 0] = __float2int_rn(x);
    oi[6 * i + 1] = __float2int_rz(x);
    oi[6 * i + 2] = __float2int_rd(x);
    oi[6 * i + 3] = __float2int_ru(x);
    oi[6 * i + 4] = (int)x;
    oi[6 * i + 5] = __double2int_rn(d[i]);
    ou[2 * i + 0] = __float2uint_rz(fabsf(x));
    ou[2 * i + 1] = __float2uint_rn(fabsf(x));
    of[5 * i + 0] = __int2float_rd(k);
    of[5 * i + 1] = __int2float_ru(k);
    of[5 * i + 2] = __int2float_rn(k);
    of[5 * i + 3] = (float)d[i];
    of[5 * i + 4] = __uint2float_rz((unsigned)k);
    od[2 * i + 0] = (double)x + (double)k;
    od[2 * i + 1] = (double)(unsigned)k;
    ol[2 * i + 0] = (long long)(d[i] * 1e6);
    ol[2 * i + 1] = __float2ll_rd(x * 1000.0f);
}
