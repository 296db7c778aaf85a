"""MUMPP: longest matches of reads at every stride-th position, each by a walk from the
root of a path-compressed suffix tree (stand-in for MUMmerGPU++), TB (256,1).

Kernel ``mumpp_match`` in ``kernels/mumpp.cu``: one read per thread; for every
``stride``-th position of the read that leaves at least ``min_match`` characters, a walk
from the root follows the child for the next read character and extends the match along
that child's compressed edge until a mismatch, the edge's end or the read's end. Per
start: the match length and the leftmost reference position of that match (stored at
the start's index of the packed read buffer; the other positions stay 0); per read, how
many matches reach ``min_match``.

CAPRI's seed names MUM++ only as "MUMmerGPU++" (Table 2: 139M instructions, 28 % WPDOM
SIMD utilisation, against MUM's 75M and 23 %), so the refinement here is ours: the tree
keeps no suffix links and no string depths (a smaller node record) and every start walks
from the root, which costs more instructions per read than MUM's suffix-link walk and
spends a larger share of them in the edge-extension loop, where the lanes of a warp are
more alike. Inputs as MUM (``_readmatch.py``): a random A/C/G/T reference; reads of
lengths uniform in [``min_read``, ``max_read``], half of them copies of the reference
with point mutations (8 % here), half random. The reference output comes from the reversed
reference's suffix automaton (matching statistics at the start positions), not the tree.
"""

from __future__ import annotations

import numpy as np

from golden.workloads.base import Workload
from golden.workloads.defs._readmatch import ReversedAutomaton, make_inputs

TB = 256
TREE = ("children", "edge_start", "edge_len", "leftmost")


def launch(dev, module, inputs, params):
    offsets = inputs["read_offsets"]
    n_reads, total = offsets.size - 1, int(offsets[-1])
    args = [dev.to_device(inputs[k]) for k in ("ref", *TREE, "reads", "read_offsets")]
    d_len, d_pos = dev.zeros((total,), np.int32), dev.zeros((total,), np.int32)
    d_long = dev.zeros((n_reads,), np.int32)
    module.get_function("mumpp_match")(
        (-(-n_reads // TB), 1, 1), (TB, 1, 1),
        (*args, np.int32(n_reads), np.int32(params["stride"]), np.int32(params["min_match"]),
         d_len, d_pos, d_long))
    return {"match_len": d_len.get(), "match_pos": d_pos.get(), "n_long": d_long.get()}


def reference(inputs, params):
    """Matching statistics (suffix automaton) kept at every start position."""
    auto = ReversedAutomaton(inputs["ref"][:-1].tobytes())
    reads, offsets = inputs["reads"].tobytes(), inputs["read_offsets"].tolist()
    stride, min_match = params["stride"], params["min_match"]
    lens = np.zeros(offsets[-1], np.int32)
    poss = np.zeros(offsets[-1], np.int32)
    n_long = np.zeros(len(offsets) - 1, np.int32)
    for r, (a, b) in enumerate(zip(offsets[:-1], offsets[1:])):
        ell, pos = auto.matching_statistics(reads[a:b])
        starts = list(range(0, b - a - min_match + 1, stride))
        for s in starts:
            lens[a + s], poss[a + s] = ell[s], pos[s]
        n_long[r] = sum(ell[s] >= min_match for s in starts)
    return {"match_len": lens, "match_pos": poss, "n_long": n_long}


WORKLOAD = Workload(
    name="MUMPP",
    description="read matching: root-restarted path-compressed suffix-tree walks at every "
                "stride-th read position (stand-in for MUMmerGPU++)",
    source="mumpp.cu",
    tb_dims=(TB, 1, 1),
    stands_for=("CAPRI Table 2: MUM++ MUMmerGPU++ (divergent, 28% WPDOM SIMD utilisation)",),
    # reads 20..60 long as MUM's, 8 % point mutations (shorter matches than MUM's 3 %:
    # the mutated and the random reads' walks are more alike), a start every 2nd position
    sizes={"small": {"ref_len": 4096, "n_reads": 512, "min_read": 20, "max_read": 60,
                     "from_ref": 0.5, "mutation_rate": 0.08, "stride": 2, "min_match": 4},
           "default": {"ref_len": 16384, "n_reads": 4096, "min_read": 20, "max_read": 60,
                       "from_ref": 0.5, "mutation_rate": 0.08, "stride": 2, "min_match": 4},
           # paper: 120 TBs = 2.00 waves on quadro_fx5800 (ptxas: 24 registers, 2 TBs of
           # 256 threads per SM); CAPRI gives no input
           "paper": {"ref_len": 16384, "n_reads": 30720, "min_read": 20, "max_read": 60,
                     "from_ref": 0.5, "mutation_rate": 0.08, "stride": 2, "min_match": 4}},
    make_inputs=make_inputs,
    launch=launch,
    reference=reference,
    divergent=True,
)
