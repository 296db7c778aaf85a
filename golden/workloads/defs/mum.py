"""MUM: matching statistics of reads through a suffix tree walked with suffix links.

Kernel ``mum_match`` in ``kernels/mum.cu`` (standing in for MUMmerGPU, CAPRI Table 2):
one read per thread, 256-thread blocks; per read position the length of the longest
match starting there and its leftmost reference position, found by descending the
reference's suffix tree, extending along its edges and moving to the next position by
a suffix link and a skip/count re-descent (never from the root).

Inputs (``_readmatch.py``): a random A/C/G/T reference; reads of lengths uniform in
[``min_read``, ``max_read``], packed into one buffer with offsets (as MUMmerGPU packs its
queries); a share ``from_ref`` are substrings of the reference with point mutations at
``mutation_rate``, the rest random. CAPRI states no input. What sets the divergence, and
so the SIMD utilisation: the read-length spread (a warp runs until its longest read is
done: mean/max of 32 uniform lengths in [20, 60] is about 0.68), and per position the
mix of mutated reads (long matches, many extension steps and skip/count descents) with
random ones (matches of about log4(ref_len) characters).
The reference output comes from a suffix automaton of the reversed reference.
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Workload
from golden.workloads.defs._readmatch import ReversedAutomaton, make_inputs

TB = 256
TREE = ("children", "edge_start", "edge_len", "depth", "leftmost", "suffix_link")


def launch(dev, module, inputs, params):
    offsets = inputs["read_offsets"]
    n_reads, total = offsets.size - 1, int(offsets[-1])
    args = [dev.to_device(inputs[k]) for k in ("ref", *TREE, "reads", "read_offsets")]
    d_len, d_pos = dev.zeros((total,), np.int32), dev.zeros((total,), np.int32)
    module.get_function("mum_match")(
        (-(-n_reads // TB), 1, 1), (TB, 1, 1), (*args, np.int32(n_reads), d_len, d_pos))
    return {"match_len": d_len.get(), "match_pos": d_pos.get()}


def reference(inputs, params):
    """Matching statistics of every read from the reversed reference's suffix automaton."""
    auto = ReversedAutomaton(inputs["ref"][:-1].tobytes())
    reads, offsets = inputs["reads"].tobytes(), inputs["read_offsets"].tolist()
    lens, poss = [], []
    for a, b in zip(offsets[:-1], offsets[1:]):
        ell, pos = auto.matching_statistics(reads[a:b])
        lens += ell
        poss += pos
    return {"match_len": np.array(lens, np.int32), "match_pos": np.array(poss, np.int32)}


WORKLOAD = Workload(
    name="MUM",
    description="read matching: suffix-tree walk with suffix links, one match per read "
                "position (MUMmerGPU structure)",
    source="mum.cu",
    tb_dims=(TB, 1, 1),
    # MUM++ (MUMmerGPU++) has its own stand-in, MUMPP (mumpp.py)
    stands_for=("CAPRI Table 2: MUM MUMmerGPU (divergent, 23% WPDOM SIMD utilisation)",),
    # reads 20..60 long: a warp runs until its longest read is done (mean/max of 32
    # uniform lengths is about 0.68); half the reads mutated copies of the reference
    sizes={"small": {"ref_len": 4096, "n_reads": 512, "min_read": 20, "max_read": 60,
                     "from_ref": 0.5, "mutation_rate": 0.03},
           "default": {"ref_len": 16384, "n_reads": 4096, "min_read": 20, "max_read": 60,
                       "from_ref": 0.5, "mutation_rate": 0.03},
           # paper: 120 TBs = 2.00 waves on quadro_fx5800 (ptxas: 26 registers, 2 TBs of
           # 256 threads per SM). CAPRI gives no input; this one runs about 1.4e8 thread
           # instructions, the order of Table 2's 75M.
           "paper": {"ref_len": 16384, "n_reads": 30720, "min_read": 20, "max_read": 60,
                     "from_ref": 0.5, "mutation_rate": 0.03}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
)
