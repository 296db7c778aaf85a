// Loop shapes for the CFG: a counted loop with an early exit, a spin-wait that never
// leaves unless memory changes, and a for(;;) without any exit.
extern "C" __global__ void loops(int *out, const int *in, int n)
{
    int i = threadIdx.x;
    int acc = 0;
    for (int k = 0; k < n; ++k) {
        int v = in[k * blockDim.x + i];
        if (v < 0) break;
        acc += v;
    }
    out[i] = acc;
}

extern "C" __global__ void spin_wait(volatile int *flag, int *out)
{
    while (*flag == 0) { }
    out[threadIdx.x] = *flag;
}

extern "C" __global__ void forever(int *p)
{
    for (;;) { atomicAdd(p, 1); }
}
