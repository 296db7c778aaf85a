// NN: one layer of a convolutional neural network with the scaled-tanh activation.
//
// Stands in for Neural Network (NN) of WarpMan Table 5 (the GPGPU-Sim benchmark suite's
// handwritten-digit network): 256-thread TBs (8 warps), no shared memory. One thread
// computes one output neuron of one image:
//     acc = bias[m] + sum over c, ky, kx of in[c][y*stride + ky][x*stride + kx] * w[m][c][ky][kx]
//     out = 1.7159 * tanh(2/3 * acc)
// reading its input window and its feature map's weights from global memory. Layouts:
// in[image][in_maps][in_size][in_size], w[out_maps][in_maps][ksize][ksize],
// out[image][out_maps][out_size][out_size]; 32-bit element indices. A fully-connected
// layer is the case ksize == in_size, out_size == 1. The loops are not unrolled (the
// kernel size is a run-time parameter). The last TB can be partial (bound check on
// `total`).
#define NN_TB 256

extern "C" __global__ void nn_layer(const float* __restrict__ in,
                                    const float* __restrict__ weights,
                                    const float* __restrict__ bias,
                                    float* __restrict__ out,
                                    int in_maps, int in_size,
                                    int out_maps, int out_size,
                                    int ksize, int stride, int total)
{
    int g = blockIdx.x * NN_TB + threadIdx.x;
    if (g >= total) {
        return;
    }
    int plane = out_size * out_size;
    int per_image = out_maps * plane;
    int image = g / per_image;
    int r = g - image * per_image;
    int m = r / plane;
    r -= m * plane;
    int oy = r / out_size;
    int ox = r - oy * out_size;
    int src = (image * in_maps * in_size + oy * stride) * in_size + ox * stride;
    int wi = m * in_maps * ksize * ksize;
    float acc = bias[m];
#pragma unroll 1
    for (int c = 0; c < in_maps; ++c) {
#pragma unroll 1
        for (int ky = 0; ky < ksize; ++ky) {
#pragma unroll 1
            for (int kx = 0; kx < ksize; ++kx) {
                acc += in[src + kx] * weights[wi + kx];
            }
            src += in_size;
            wi += ksize;
        }
        src += in_size * (in_size - ksize);     // to the same window in the next input map
    }
    out[g] = 1.7159f * tanhf(0.66666667f * acc);
}
