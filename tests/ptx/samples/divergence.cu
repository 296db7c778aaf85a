// Divergent if/else, nested conditions, a data-dependent while loop with break, a switch.
extern "C" __global__ void divergence(int *out, const int *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = in[i];
    int r;
    if (x & 1) {
        r = x * 3 + 1;
    } else {
        r = x / 2;
    }
    int steps = 0;
    while (x != 1 && steps < 1000) {
        if (x & 1) x = 3 * x + 1; else x >>= 1;
        ++steps;
        if (x == 7) break;
    }
    switch (r & 3) {
    case 0: r += 10; break;
    case 1: r -= 3; break;
    case 2: r ^= 0x55; break;
    default: r = -r;
    }
    out[i] = r + steps;
}
