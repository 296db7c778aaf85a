// FW: fast Walsh-Hadamard transform of a batch of vectors, in the structure of the CUDA
// SDK fastWalshTransform sample (DARSIE Table 1, TB (256,1)).
//
// The transform of a 2^k vector is one +/- butterfly per index bit, and the butterflies of
// different bits commute. Bits at and above ELEM_LOG2 are done in global memory, two bits
// per launch (radix-4, fwt_global_radix4) and a last single bit if their count is odd
// (fwt_global_radix2). The low ELEM_LOG2 bits are done by fwt_shared: each 256-thread
// block loads one 1024-element chunk into shared memory and applies five radix-4 stages
// with a barrier between stages.

#define ELEM_LOG2 10
#define ELEM (1 << ELEM_LOG2)
#define THREADS 256

// 4-point Walsh-Hadamard butterfly on elements i0, i0+s, i0+2s, i0+3s of buf
__device__ __forceinline__ void radix4(float *buf, int i0, int s)
{
    const int i1 = i0 + s, i2 = i1 + s, i3 = i2 + s;
    const float a = buf[i0], b = buf[i1], c = buf[i2], d = buf[i3];
    const float apc = a + c, amc = a - c, bpd = b + d, bmd = b - d;
    buf[i0] = apc + bpd;
    buf[i1] = apc - bpd;
    buf[i2] = amc + bmd;
    buf[i3] = amc - bmd;
}

// low ELEM_LOG2 bits of every ELEM-element chunk, in shared memory
extern "C" __global__ void fwt_shared(float *d_out, const float *d_in)
{
    __shared__ float s[ELEM];
    const int base = blockIdx.x * ELEM;
    for (int pos = threadIdx.x; pos < ELEM; pos += THREADS)
        s[pos] = d_in[base + pos];
    for (int stride = ELEM >> 2; stride > 0; stride >>= 2) {
        __syncthreads();
        const int pos = threadIdx.x;             // one 4-point butterfly per thread
        const int lo = pos & (stride - 1);
        radix4(s, ((pos - lo) << 2) + lo, stride);
    }
    __syncthreads();
    for (int pos = threadIdx.x; pos < ELEM; pos += THREADS)
        d_out[base + pos] = s[pos];
}

// bits log2(stride) and log2(stride)+1 of every vector, in place in global memory
extern "C" __global__ void fwt_global_radix4(float *d_data, int stride, int quads)
{
    const int pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= quads)
        return;
    const int lo = pos & (stride - 1);
    radix4(d_data, ((pos - lo) << 2) + lo, stride);
}

// bit log2(stride) of every vector, in place in global memory
extern "C" __global__ void fwt_global_radix2(float *d_data, int stride, int pairs)
{
    const int pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= pairs)
        return;
    const int lo = pos & (stride - 1);
    const int i0 = ((pos - lo) << 1) + lo;
    const float a = d_data[i0], b = d_data[i0 + stride];
    d_data[i0] = a + b;
    d_data[i0 + stride] = a - b;
}
