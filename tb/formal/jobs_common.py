"""Formal jobs of the primitives in rtl/common: priority encoder, leading-one detector,
popcount, free list, CAM. The structures' own invariants are in their ``elaborate``; the
harnesses here add shadow models, environment assumptions and cover goals.
"""

from __future__ import annotations


from rtl.common.cam import CAM
from rtl.common.freelist import FreeList
from rtl.common.leading_one import LeadingOneDetector
from rtl.common.popcount import PopCount
from rtl.common.priority_encoder import PriorityEncoder
from tb.formal.flow import FormalJob
from tb.formal.harness import Harness, freelist_held, ports


def _priority_encoder(fv):
    dut = PriorityEncoder(width=32)

    def props(m, fv, dut, state):
        fv.cover(m, dut.valid & (dut.index == 31), "only the last request set")
        fv.cover(m, dut.valid & dut.requests.all() & (dut.index == 0), "all requests set")
        fv.cover(m, ~dut.valid, "no request")
    return Harness(dut, props), ports(dut)


def _leading_one(msb_first):
    def build(fv):
        dut = LeadingOneDetector(width=32, msb_first=msb_first)

        def props(m, fv, dut, state):
            first, last = (1 << 31, 1) if msb_first else (1, 1 << 31)
            fv.cover(m, (dut.onehot == first) & (dut.bits == first | last),
                     "two bits set: the priority end wins")
            fv.cover(m, (dut.onehot == last) & (dut.bits == last), "only the far-end bit set")
        return Harness(dut, props), ports(dut)
    return build


def _popcount(fv):
    dut = PopCount(width=32)

    def props(m, fv, dut, state):
        fv.cover(m, dut.count == 32, "all 32 bits set")
        fv.cover(m, dut.count == 17, "17 bits set")
    return Harness(dut, props), ports(dut)


def _freelist(n=4, index_width=3, covers=True):
    def build(fv):
        dut = FreeList(entries=n, index_width=index_width)  # a spare index bit: out-of-range frees

        def props(m, fv, dut, state):
            # Shadow model from the ports only: which indices the user holds.
            held, grant, _ = freelist_held(m, dut, n)
            fv.check(m, held == ~state["is_free"], "the user holds exactly the non-free entries")
            fv.check(m, ~grant | ~held.bit_select(dut.alloc_index, 1),
                     "alloc never hands out a held entry")
            fv.check(m, dut.free_count == n - sum(held[i] for i in range(n)),
                     "free_count = entries - held")
            in_range = dut.free_index[:(n - 1).bit_length()]
            fv.check(m, dut.error == (dut.free & ((dut.free_index >= n)
                                                  | ~held.bit_select(in_range, 1))),
                     "error iff out of range or double free")
            if covers:
                fv.cover(m, dut.empty, "all entries handed out")
                fv.cover(m, dut.empty & dut.free & ~dut.error, "free while empty")
                fv.cover(m, dut.error & (dut.free_index < n), "double free flagged")
        return Harness(dut, props), ports(dut)
    return build


def _cam(fv):
    dut = CAM(entries=4, tag_width=3)

    def props(m, fv, dut, state):
        fv.cover(m, dut.insert_evict, "eviction of the LRU entry")
        fv.cover(m, dut.insert_hit, "insert of a present tag")
        fv.cover(m, dut.hit & (dut.hit_index == 3), "hit in the last entry")
        fv.cover(m, dut.valid.all() & dut.inv_tag_hit & dut.insert_en,
                 "full CAM: invalidate and insert in one cycle")
    return Harness(dut, props), ports(dut)


JOBS = [
    FormalJob("priority_encoder", "PriorityEncoder", "width=32 (paper)", _priority_encoder,
              depth=2, cover_depth=2, rtl_files=("rtl/common/priority_encoder.py",)),
    FormalJob("leading_one", "LeadingOneDetector", "width=32 (paper)", _leading_one(False),
              depth=2, cover_depth=2, rtl_files=("rtl/common/leading_one.py",)),
    FormalJob("leading_one_msb", "LeadingOneDetector", "width=32, msb_first (paper)", _leading_one(True),
              depth=2, cover_depth=2, rtl_files=("rtl/common/leading_one.py",)),
    FormalJob("popcount", "PopCount", "width=32 (paper)", _popcount,
              depth=2, cover_depth=2, rtl_files=("rtl/common/popcount.py",)),
    FormalJob("freelist", "FreeList", "entries=4, index_width=3", _freelist(),
              depth=2, cover_depth=8, rtl_files=("rtl/common/freelist.py",)),
    FormalJob("freelist_32", "FreeList", "entries=32 (paper), index_width=6",
              _freelist(32, 6, covers=False), depth=2, paper=True,
              rtl_files=("rtl/common/freelist.py",)),
    FormalJob("cam", "CAM", "entries=4, tag_width=3", _cam,
              depth=2, cover_depth=8, rtl_files=("rtl/common/cam.py",)),
]
