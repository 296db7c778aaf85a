// STO: MD5 digests of fixed-size messages, one message per thread.
//
// Stands in for STO (StoreGPU, content hashing for storage systems) of the ILP chapter:
// 16 KB of shared memory per TB (each thread's padded 64-byte MD5 block, word-interleaved
// across threads), a 64-round loop kept rolled so the round constants and rotation
// amounts are read from `__constant__` tables with initialisers (RFC 1321 values:
// K[i] = floor(|sin(i + 1)| * 2^32)), and warp-uniform round-function branches.
// Messages are 52 bytes, so after MD5 padding each digest is exactly one block.
#define STO_TB 256
#define STO_MSG_WORDS 13
#define STO_MSG_BYTES (4 * STO_MSG_WORDS)

__constant__ unsigned int c_md5_k[64] = {
    0xd76aa478u, 0xe8c7b756u, 0x242070dbu, 0xc1bdceeeu, 0xf57c0fafu, 0x4787c62au, 0xa8304613u, 0xfd469501u,
    0x698098d8u, 0x8b44f7afu, 0xffff5bb1u, 0x895cd7beu, 0x6b901122u, 0xfd987193u, 0xa679438eu, 0x49b40821u,
    0xf61e2562u, 0xc040b340u, 0x265e5a51u, 0xe9b6c7aau, 0xd62f105du, 0x02441453u, 0xd8a1e681u, 0xe7d3fbc8u,
    0x21e1cde6u, 0xc33707d6u, 0xf4d50d87u, 0x455a14edu, 0xa9e3e905u, 0xfcefa3f8u, 0x676f02d9u, 0x8d2a4c8au,
    0xfffa3942u, 0x8771f681u, 0x6d9d6122u, 0xfde5380cu, 0xa4beea44u, 0x4bdecfa9u, 0xf6bb4b60u, 0xbebfbc70u,
    0x289b7ec6u, 0xeaa127fau, 0xd4ef3085u, 0x04881d05u, 0xd9d4d039u, 0xe6db99e5u, 0x1fa27cf8u, 0xc4ac5665u,
    0xf4292244u, 0x432aff97u, 0xab9423a7u, 0xfc93a039u, 0x655b59c3u, 0x8f0ccc92u, 0xffeff47du, 0x85845dd1u,
    0x6fa87e4fu, 0xfe2ce6e0u, 0xa3014314u, 0x4e0811a1u, 0xf7537e82u, 0xbd3af235u, 0x2ad7d2bbu, 0xeb86d391u};

__constant__ unsigned int c_md5_shift[64] = {
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
    5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

extern "C" __global__ void md5_messages(const unsigned int* __restrict__ messages,
                                        int n_messages,
                                        unsigned int* digests)
{
    __shared__ unsigned int s_block[16 * STO_TB];
    int tid = threadIdx.x;
    int idx = blockIdx.x * blockDim.x + tid;
    if (idx >= n_messages) {
        return;
    }
    for (int w = 0; w < STO_MSG_WORDS; ++w) {
        s_block[w * STO_TB + tid] = messages[(size_t)idx * STO_MSG_WORDS + w];
    }
    // MD5 padding: a 0x80 byte, zeros, then the message length in bits (little endian)
    s_block[13 * STO_TB + tid] = 0x80u;
    s_block[14 * STO_TB + tid] = 8u * STO_MSG_BYTES;
    s_block[15 * STO_TB + tid] = 0u;

    const unsigned int a0 = 0x67452301u, b0 = 0xefcdab89u, c0 = 0x98badcfeu, d0 = 0x10325476u;
    unsigned int a = a0, b = b0, c = c0, d = d0;
#pragma unroll 1
    for (int i = 0; i < 64; ++i) {
        unsigned int f;
        int g;
        if (i < 16) {
            f = (b & c) | (~b & d);
            g = i;
        } else if (i < 32) {
            f = (d & b) | (~d & c);
            g = (5 * i + 1) & 15;
        } else if (i < 48) {
            f = b ^ c ^ d;
            g = (3 * i + 5) & 15;
        } else {
            f = c ^ (b | ~d);
            g = (7 * i) & 15;
        }
        unsigned int x = a + f + c_md5_k[i] + s_block[g * STO_TB + tid];
        unsigned int s = c_md5_shift[i];
        a = d;
        d = c;
        c = b;
        b = b + ((x << s) | (x >> (32u - s)));
    }
    digests[4 * (size_t)idx + 0] = a + a0;
    digests[4 * (size_t)idx + 1] = b + b0;
    digests[4 * (size_t)idx + 2] = c + c0;
    digests[4 * (size_t)idx + 3] = d + d0;
}
