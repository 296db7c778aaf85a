// VA: element-wise vector add c[i] = a[i] + b[i] in float32, one element per thread.
//
// Stands in for Vector add (VA) of UV Table 3 (seed 002 ch. 2), the chapter's most
// inter-warp-redundant benchmark: apart from the loads, the add and the store, every
// instruction (parameter loads, blockIdx.x * blockDim.x, the bound check against n) has
// the same value in every warp of a TB, and most of it in every lane of a warp. The bound
// check keeps the last, partial TB inside the arrays.
extern "C" __global__ void vec_add(const float* __restrict__ a,
                                   const float* __restrict__ b,
                                   float* __restrict__ c,
                                   int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
