"""MT: a Mersenne-Twister-like generator with a 19-word state per thread (MT607 shape).

Kernel ``mt_generate`` in ``kernels/mt.cu``: each thread seeds its own 19-word state
(``s[i] = 1812433253 * (s[i-1] ^ (s[i-1] >> 30)) + i``), then runs the twist (31 upper
bits of one word, the lowest bit of the next, the word 9 positions on, the thread's twist
word ``matrix_a`` when the combined word is odd) and tempering (shifts 12, 7, 15, 18 with
the thread's ``mask_b`` and ``mask_c``) ``n_per_thread`` times. Outputs are uint32, output
``j`` of thread ``t`` at ``[j, t]``, and compare exactly with :func:`reference`, the same
recurrence in numpy, vectorised over threads.

The per-thread parameters are drawn at random in the shape of the dynamic creator's
(``matrix_a`` with its top bit set, random tempering masks); unlike the CUDA SDK sample's
table they are not searched for a full period, which no output here depends on.
"""

from __future__ import annotations

import numpy as np

from golden.errors import ConfigError
from golden.workloads.base import Workload

TB = 128        # threads per TB (the CUDA SDK sample's block size)
NN = 19         # MT_NN: state words
MM = 9          # MT_MM: the twist's middle-word distance
UMASK = np.uint32(0xFFFFFFFE)
LMASK = np.uint32(0x00000001)


def make_inputs(params, rng):
    n, per = params["threads"], params["n_per_thread"]
    if n <= 0 or per <= 0:
        raise ConfigError(f"MT: need threads > 0 and n_per_thread > 0, got {n}, {per}")
    if n * per >= 2 ** 31:
        raise ConfigError(f"MT: threads * n_per_thread must stay below 2**31, got {n * per}")

    def words():
        return rng.integers(0, 2 ** 32, size=n, dtype=np.uint32)

    return {"matrix_a": words() | np.uint32(0x80000000), "mask_b": words(),
            "mask_c": words(), "seeds": words()}


def launch(dev, module, inputs, params):
    n, per = inputs["seeds"].size, params["n_per_thread"]
    d_a, d_b, d_c, d_seeds = (dev.to_device(inputs[k])
                              for k in ("matrix_a", "mask_b", "mask_c", "seeds"))
    d_out = dev.zeros((per, n), np.uint32)
    module.get_function("mt_generate")((-(-n // TB), 1, 1), (TB, 1, 1),
                                       (d_a, d_b, d_c, d_seeds, d_out, np.int32(n), np.int32(per)))
    return {"random": d_out.get()}


def reference(inputs, params):
    per = params["n_per_thread"]
    a, mb, mc = inputs["matrix_a"], inputs["mask_b"], inputs["mask_c"]
    state = np.empty((NN, inputs["seeds"].size), np.uint32)
    state[0] = inputs["seeds"]
    for i in range(1, NN):
        prev = state[i - 1]
        state[i] = np.uint32(1812433253) * (prev ^ (prev >> np.uint32(30))) + np.uint32(i)
    out = np.empty((per, state.shape[1]), np.uint32)
    for j in range(per):
        k = j % NN
        y = (state[k] & UMASK) | (state[(k + 1) % NN] & LMASK)
        y = state[(k + MM) % NN] ^ (y >> np.uint32(1)) ^ np.where(y & np.uint32(1), a, np.uint32(0))
        state[k] = y
        y = y ^ (y >> np.uint32(12))
        y = y ^ ((y << np.uint32(7)) & mb)
        y = y ^ ((y << np.uint32(15)) & mc)
        out[j] = y ^ (y >> np.uint32(18))
    return {"random": out}


WORKLOAD = Workload(
    name="MT",
    description="Mersenne-Twister-like uint32 generator, a 19-word (MT607-shaped) state per thread",
    source="mt.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("UV (dissertation ch. 2) Table 3: MersenneTwister (MT) (input 48000000)",),
    # small: more outputs than state words, so the rotating positions wrap around
    sizes={"small": {"threads": 1024, "n_per_thread": 24},
           "default": {"threads": 8192, "n_per_thread": 32},
           # paper: 240 TBs of 128 threads = 2.00 waves on gtx285 (ptxas: 28 registers per
           # thread, 4 TBs/SM; the smallest input with 2 full waves), 32 outputs per thread
           # = 983,040 numbers.
           # UV Table 3's 48,000,000 numbers (the SDK's 4,096 threads x ~11,719 each)
           # would take hours in our simulator; more threads with fewer outputs each keep
           # the instruction mix (19-word seeding, twist, tempering) and fill the GPU.
           "paper": {"threads": 240 * TB, "n_per_thread": 32}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
)
