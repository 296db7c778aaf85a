// Float/double math, float4 vector loads/stores, read-only loads, conversions.
extern "C" __global__ void math_vec(const float4 *in, float4 *out, double *dout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = __ldg(&in[i]);
    float4 r;
    r.x = sqrtf(fabsf(v.x)) + rsqrtf(v.y * v.y + 1.0f);
    r.y = __expf(v.y) + __logf(fabsf(v.z) + 1.0f);
    r.z = __sinf(v.z) * __cosf(v.w) + fminf(v.x, v.y) - fmaxf(v.z, v.w);
    r.w = fmaf(v.x, v.y, v.z) / (v.w + 2.0f) + (float)(int)v.x + floorf(v.y);
    out[i] = r;
    double d = (double)v.x * 1.0000001 + sqrt((double)fabsf(v.y));
    dout[i] = d / 3.0 + (double)(long long)v.z;
}
