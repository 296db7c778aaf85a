// Cross-block synchronisation through global memory (issue 19, items 5, 6 and 19):
// spin-waits that only finish if the scheduler lets the other blocks' warps run.

// One thread per block takes a global spinlock (atomicCAS / atomicExch) and increments a
// plain counter under it; every block records the counter value it saw.
extern "C" __global__ void lock_counter(int* lock, int* counter, int* seen)
{
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) { }
        __threadfence();
        int c = *(volatile int*)counter;
        *(volatile int*)counter = c + 1;
        seen[blockIdx.x] = c;
        __threadfence();
        atomicExch(lock, 0);
    }
}

// Block 0 waits for a flag that the last block sets after some work of its own (the
// waiting loop comes first in the PTX, so lowest-PC-first scheduling starves the setter).
extern "C" __global__ void flag_wait(volatile int* flag, int* out, int work)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        while (*flag == 0) { }
        out[0] = *flag;
    }
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
        int acc = 0;
        for (int i = 0; i < work; i++) acc += i ^ (acc >> 3);
        *flag = 1 + (acc & 1023);
        out[1] = acc;
    }
}

// Every thread adds its id to a counter with a compare-and-swap loop (contended atomicCAS).
extern "C" __global__ void cas_add(int* counter, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int old = *counter, assumed;
    do {
        assumed = old;
        old = atomicCAS(counter, assumed, assumed + i);
    } while (old != assumed);
}

// Never terminates: thread 0 of block 0 waits for a flag nobody sets (watchdog tests).
extern "C" __global__ void wait_forever(volatile int* flag, int* out)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        while (*flag == 0) { }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
