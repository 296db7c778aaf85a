// MT: a Mersenne-Twister-like generator, one independent small twister per thread.
//
// Stands in for MersenneTwister (MT) of UV Table 3 (seed 002 ch. 2; CUDA SDK sample, which
// runs the 607-bit variant with per-thread parameters). Each thread keeps its own state of
// MT_NN = 19 words (mexp 607 = 19 * 32 - 1: one lower bit, 31 upper bits per word) in a
// per-thread array that is indexed by a rotating position (local memory), reads its
// twist matrix word and two tempering masks from a per-thread parameter table, seeds the
// state with the usual multiplicative initialisation and produces n_per_thread tempered
// uint32 outputs. Output j of thread t goes to out[j * n_threads + t], so a warp's stores
// are contiguous. The loop bounds, the rotating positions and the parameter addresses'
// bases are the same in every warp of the grid (inter-warp uniform); the twist's
// "odd word" choice is a select, not a branch.
#define MT_NN 19
#define MT_MM 9
#define MT_UMASK 0xFFFFFFFEu
#define MT_LMASK 0x00000001u
#define MT_SHIFT0 12
#define MT_SHIFTB 7
#define MT_SHIFTC 15
#define MT_SHIFT1 18

extern "C" __global__ void mt_generate(const unsigned* __restrict__ matrix_a,
                                       const unsigned* __restrict__ mask_b,
                                       const unsigned* __restrict__ mask_c,
                                       const unsigned* __restrict__ seeds,
                                       unsigned* __restrict__ out,
                                       int n_threads,
                                       int n_per_thread)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n_threads) {
        return;
    }
    unsigned a = matrix_a[t];
    unsigned mb = mask_b[t];
    unsigned mc = mask_c[t];
    unsigned state[MT_NN];
    state[0] = seeds[t];
    for (int i = 1; i < MT_NN; ++i) {
        unsigned prev = state[i - 1];
        state[i] = 1812433253u * (prev ^ (prev >> 30)) + (unsigned)i;
    }

    int k = 0;                      // position of the word replaced next
    unsigned cur = state[0];
    for (int j = 0; j < n_per_thread; ++j) {
        int k1 = k + 1 < MT_NN ? k + 1 : 0;
        int km = k + MT_MM < MT_NN ? k + MT_MM : k + MT_MM - MT_NN;
        unsigned next = state[k1];
        unsigned y = (cur & MT_UMASK) | (next & MT_LMASK);
        y = state[km] ^ (y >> 1) ^ ((y & 1u) ? a : 0u);
        state[k] = y;
        cur = next;
        k = k1;
        // tempering
        y ^= y >> MT_SHIFT0;
        y ^= (y << MT_SHIFTB) & mb;
        y ^= (y << MT_SHIFTC) & mc;
        y ^= y >> MT_SHIFT1;
        out[(size_t)j * n_threads + t] = y;
    }
}
