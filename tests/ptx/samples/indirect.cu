// printf (an .extern .func), a call through a function pointer (.callprototype), a
// __device__ pointer table initialised with generic() addresses, and __trap().
#include <cstdio>

__device__ int twice(int x) { return 2 * x; }
__device__ int square(int x) { return x * x; }
typedef int (*op_t)(int);
__device__ op_t ops[2] = {twice, square};
__device__ int a_val = 3;
__device__ int b_arr[4] = {10, 20, 30, 40};
__device__ int *ptrs[2] = {&a_val, &b_arr[2]};

extern "C" __global__ void indirect(int *out, int sel)
{
    int i = threadIdx.x;
    if (sel < 0) __trap();
    out[i] = ops[sel & 1](i) + *ptrs[i & 1];
    if (i == 0) printf("sel=%d\n", sel);
}
