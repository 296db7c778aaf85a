// MV: sparse matrix-vector product y = A x, CSR format, one thread per row.
//
// Stands in for MV (Parboil spmv) of G-Scalar Table 2 and of the ILP chapter: a row
// per thread with a loop whose trip count is the row's number of nonzeros, so rows of
// different lengths in one warp diverge at the loop exit, and gathers x[col] that
// scatter over memory.
extern "C" __global__ void spmv_csr(const int* __restrict__ row_ptr,
                                    const int* __restrict__ col_idx,
                                    const float* __restrict__ values,
                                    const float* __restrict__ x,
                                    float* y,
                                    int n_rows)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n_rows) {
        float sum = 0.0f;
        int end = row_ptr[row + 1];
        for (int k = row_ptr[row]; k < end; ++k) {
            sum += values[k] * x[col_idx[k]];
        }
        y[row] = sum;
    }
}
