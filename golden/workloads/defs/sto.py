"""STO: MD5 digests of 52-byte messages (StoreGPU-style content hashing).

Kernel ``md5_messages`` in ``kernels/sto.cu``: a thread per message, its padded 64-byte
block held word-interleaved in 16 KB of shared memory (TB 256), a rolled 64-round loop
that reads the round constants and rotation amounts from ``__constant__`` tables with
initialisers, and warp-uniform branches selecting the round function. The reference is
Python's ``hashlib.md5``: an implementation that shares nothing with the kernel.
"""

from __future__ import annotations

import hashlib

import numpy as np

from golden.workloads.base import Workload

TB = 256
MSG_WORDS = 13     # 52 bytes: with MD5 padding exactly one 64-byte block


def make_inputs(params, rng):
    return {"messages": rng.integers(0, 2**32, size=(params["n_messages"], MSG_WORDS),
                                     dtype=np.uint32)}


def launch(dev, module, inputs, params):
    messages = inputs["messages"]
    n = messages.shape[0]
    d_messages = dev.to_device(messages)
    d_digests = dev.zeros((n, 4), np.uint32)
    kernel = module.get_function("md5_messages")
    kernel(((n + TB - 1) // TB, 1, 1), (TB, 1, 1), (d_messages, np.int32(n), d_digests))
    return {"digests": d_digests.get()}


def reference(inputs, params):
    """MD5 of each message's 52 bytes (words little-endian), digest as 4 LE words."""
    data = inputs["messages"].astype("<u4")
    digests = b"".join(hashlib.md5(row.tobytes()).digest() for row in data)
    return {"digests": np.frombuffer(digests, dtype="<u4").reshape(-1, 4).astype(np.uint32)}


WORKLOAD = Workload(
    name="STO",
    description="MD5 of 52-byte messages, one per thread, constant-memory round tables",
    source="sto.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("ILP (dissertation ch. 4) workloads: STO (StoreGPU, 16 KB shared memory per TB)",),
    sizes={"small": {"n_messages": 4096},
           "default": {"n_messages": 32768},
           # paper: 90 TBs = 2.00 waves on gtx480 (3 TBs/SM, shared memory); no input in the seed.
           "paper": {"n_messages": 23040}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=False,
)
