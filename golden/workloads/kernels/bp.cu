// BP: one training step of the input->hidden layer of a two-layer perceptron, in the
// structure of the Rodinia backprop benchmark (DARSIE Table 1, TB (16,16)).
//
// Weights are an (n_in+1) x (HIDDEN+1) row-major matrix; row 0 and column 0 hold the bias
// entries, so every index carries a "+1" offset. Blocks are 16x16, gridDim.y = n_in/16,
// gridDim.x = 1, and each block covers 16 input units (ty) x 16 hidden units (tx).
//
// bpnn_layerforward: thread (0, ty) stages input unit ty in shared memory (an
//   `if (tx == 0)` load), each thread forms weight*input in a 16x16 shared tile, and the
//   block sums the tile over ty with a log2(16)-step tree whose active threads are those
//   with ty % stride == 0. The 16 column sums go to hidden_partial[by][tx].
//   The tree is driven by fast float intrinsics, as Rodinia's layerforward kernel is: the
//   level count is __log2f of the tree height (lg2.approx) and each level's stride is
//   __powf(2, level) (ex2.approx) truncated to int, so the tree does TB-uniform
//   special-function (SFU) work in every level. This scalar SFU work is what G-Scalar
//   (seed 003, section 5.3) reports for backprop (SFUs >25% of its power, ~60% of its SFU
//   instructions scalar). The height is read from blockDim.y (16 in every launch) rather
//   than a compile-time 16: nvcc 13 folds __log2f/__powf of constants and unrolls the loop,
//   which would leave no SFU instruction at all. nvcc hoists the loop-invariant lg2.approx
//   into the loop preheader and folds __powf's lg2(2) = 1, so each thread runs one
//   lg2.approx plus one ex2.approx per level; the guard divides ty by the runtime stride
//   (rem.s32; rem_pipe/rem_class: GPGPU-Sim 4.x sfu/div, 3.x and gtx480 alu/none), as in
//   Rodinia. The strides are exact (2^k of a small integer, log2 of a power of two), so
//   the sums are those of the integer-stride tree.
// bpnn_adjust_weights: momentum update of every weight from the hidden-unit deltas and
//   the input activations; the bias row is updated by the first row of block 0.

#define WIDTH 16
#define HEIGHT 16
#define HIDDEN 16
#define ETA 0.3f
#define MOMENTUM 0.3f

extern "C" __global__ void bpnn_layerforward(const float *input, const float *weights,
                                             float *hidden_partial)
{
    __shared__ float input_node[HEIGHT];
    __shared__ float weight_matrix[HEIGHT][WIDTH];

    const int by = blockIdx.y;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int index = (HIDDEN + 1) * HEIGHT * by + (HIDDEN + 1) * ty + tx + 1 + (HIDDEN + 1);
    const int index_in = HEIGHT * by + ty + 1;

    if (tx == 0)
        input_node[ty] = input[index_in];
    __syncthreads();
    weight_matrix[ty][tx] = weights[index];
    __syncthreads();
    weight_matrix[ty][tx] = weight_matrix[ty][tx] * input_node[ty];
    __syncthreads();
    // tree over ty: level count from lg2.approx, stride from ex2.approx (TB-uniform SFU work)
    const unsigned int tree_height = blockDim.y;
    for (int level = 1; level <= __log2f(tree_height); level++) {
        const int stride = __powf(2.0f, level);
        if (ty % stride == 0)
            weight_matrix[ty][tx] = weight_matrix[ty][tx] + weight_matrix[ty + stride / 2][tx];
        __syncthreads();
    }
    if (ty == 0)
        hidden_partial[by * HIDDEN + tx] = weight_matrix[0][tx];
}

extern "C" __global__ void bpnn_adjust_weights(const float *delta, const float *ly,
                                               float *weights, float *old_weights)
{
    const int by = blockIdx.y;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int index = (HIDDEN + 1) * HEIGHT * by + (HIDDEN + 1) * ty + tx + 1 + (HIDDEN + 1);
    const int index_y = HEIGHT * by + ty + 1;
    const int index_x = tx + 1;

    const float dw = ETA * delta[index_x] * ly[index_y] + MOMENTUM * old_weights[index];
    weights[index] += dw;
    old_weights[index] = dw;
    __syncthreads();
    if (ty == 0 && by == 0) {
        const float dw0 = ETA * delta[index_x] + MOMENTUM * old_weights[index_x];
        weights[index_x] += dw0;
        old_weights[index_x] = dw0;
    }
}
