// Two small kernels that are not in the workload suite, used by tests/test_user_kernel.py
// and docs/own-kernel.md to exercise `simtlab run FILE.ptx --args SPEC.yaml`.
//   saxpy:     y[i] = a * x[i] + y[i] for i < n (float scalar argument, float output).
//   histogram: counts of each byte value of data[0..n) into bins[256], privatised per
//              thread block in dynamic shared memory (256 x u32) with shared atomics,
//              then merged into global memory with global atomics.
// Regenerate the PTX with: nvcc -ptx -arch=sm_75 -o user_kernels.ptx user_kernels.cu

extern "C" __global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" __global__ void histogram(const unsigned char *data, unsigned int *bins, int n)
{
    extern __shared__ unsigned int local[];
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b])
            atomicAdd(&bins[b], local[b]);
}
