// Robustness battery (issue 19 item 11/12): __trap(), assert(), __match_any_sync / __match_all_sync.
#include <cassert>

extern "C" __global__ void trap_if_negative(const int* v, int* o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (v[i] < 0) __trap();
        o[i] = v[i] * 2;
    }
}

extern "C" __global__ void assert_non_negative(const int* v, int* o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(v[i] >= 0);
        o[i] = v[i] + 1;
    }
}

// o[2*i] = match_any over all active lanes; o[2*i+1] = match_any among lanes with lane % 3 != 0
extern "C" __global__ void match_any(const int* v, const long long* w, unsigned* o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        o[3 * i] = __match_any_sync(__activemask(), v[i]);
        o[3 * i + 1] = __match_any_sync(__activemask(), w[i]);
        unsigned r = 0xdeadbeefu;
        if ((threadIdx.x & 31) % 3) r = __match_any_sync(__activemask(), v[i]);
        o[3 * i + 2] = r;
    }
}

// o[2*i] = match_all mask, p[i] = its predicate
extern "C" __global__ void match_all(const int* v, unsigned* o, int* p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int pred = 0;
    if (i < n) {
        o[i] = __match_all_sync(__activemask(), v[i], &pred);
        p[i] = pred;
    }
}
