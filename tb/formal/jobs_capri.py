"""Formal jobs of CAPRI (seed 004): the CAPT predictor table (1bL and 2bit policies) and
the warp compaction unit with its adequacy evaluator, at small sizes."""

from __future__ import annotations

from rtl.capri.capt import Capt
from rtl.capri.wcu import Wcu
from tb.formal.flow import FormalJob
from tb.formal.harness import Harness, ports


def _capt(policy):
    def build(fv):
        dut = Capt(entries=3, policy=policy, pc_bits=3)

        def props(m, fv, dut, state):
            fv.cover(m, dut.evict, "allocation evicts the LRU entry")
            fv.cover(m, dut.hit & ~dut.predict_adequate, "hit predicting not adequate")
            fv.cover(m, dut.hit & dut.update_hit & dut.alloc_en, "lookup hit with an update")
        return Harness(dut, props), ports(dut)
    return build


def _wcu(fv):
    dut = Wcu(warps=4, lanes=4)

    def props(m, fv, dut, state):
        fv.cover(m, (dut.n_formed == 2) & (dut.umask == 0b1111) & (dut.n_active_warps == 4),
                 "four divergent warps compacted into two")
        fv.cover(m, dut.adequate & (dut.umask != 0b1111), "adequate with a bypassing warp")
    return Harness(dut, props), ports(dut)


JOBS = [
    FormalJob("capt_1bL", "Capt", "entries=3, pc_bits=3, policy 1bL", _capt("1bL"),
              depth=3, cover_depth=6, rtl_files=("rtl/capri/capt.py",)),
    FormalJob("capt_2bit", "Capt", "entries=3, pc_bits=3, policy 2bit", _capt("2bit"),
              depth=3, cover_depth=6, rtl_files=("rtl/capri/capt.py",)),
    FormalJob("wcu", "Wcu", "warps=4, lanes=4", _wcu, depth=2, cover_depth=2,
              rtl_files=("rtl/capri/wcu.py",)),
]
