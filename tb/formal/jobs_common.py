"""Formal jobs of the primitives in rtl/common: priority encoder, leading-one detector,
popcount, free list, CAM. The structures' own invariants are in their ``elaborate``; the
harnesses here add shadow models, environment assumptions and cover goals.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Signal

from rtl.common.cam import CAM
from rtl.common.freelist import FreeList
from rtl.common.leading_one import LeadingOneDetector
from rtl.common.popcount import PopCount
from rtl.common.priority_encoder import PriorityEncoder
from tb.formal.flow import FormalJob
from tb.formal.harness import Harness, ports


def _priority_encoder(fv):
    dut = PriorityEncoder(width=8)

    def props(m, fv, dut, state):
        fv.cover(m, dut.valid & (dut.index == 7), "only the last request set")
        fv.cover(m, dut.valid & (dut.requests == 0xFF) & (dut.index == 0), "all requests set")
        fv.cover(m, ~dut.valid, "no request")
    return Harness(dut, props), ports(dut)


def _leading_one(msb_first):
    def build(fv):
        dut = LeadingOneDetector(width=8, msb_first=msb_first)

        def props(m, fv, dut, state):
            first, last = (0x80, 0x01) if msb_first else (0x01, 0x80)
            fv.cover(m, (dut.onehot == first) & (dut.bits == 0x81), "two bits set: the priority end wins")
            fv.cover(m, (dut.onehot == last) & (dut.bits == last), "only the far-end bit set")
        return Harness(dut, props), ports(dut)
    return build


def _popcount(fv):
    dut = PopCount(width=9)

    def props(m, fv, dut, state):
        fv.cover(m, dut.count == 9, "all nine bits set")
        fv.cover(m, dut.count == 5, "five bits set")
    return Harness(dut, props), ports(dut)


def _freelist(fv):
    n = 4
    dut = FreeList(entries=n, index_width=3)    # one spare index bit: out-of-range frees

    def props(m, fv, dut, state):
        # Shadow model from the ports only: which indices the user holds.
        held = Signal(n, name="held")
        grant = dut.alloc & ~dut.empty
        accept = dut.free & ~dut.error
        for i in range(n):
            with m.If(accept & (dut.free_index == i)):
                m.d.sync += held[i].eq(0)
            with m.Elif(grant & (dut.alloc_index == i)):
                m.d.sync += held[i].eq(1)
        fv.check(m, held == ~state["is_free"], "the user holds exactly the non-free entries")
        fv.check(m, ~grant | ~held.bit_select(dut.alloc_index, 1),
                 "alloc never hands out a held entry")
        fv.check(m, dut.free_count == n - sum(held[i] for i in range(n)),
                 "free_count = entries - held")
        fv.check(m, dut.error == (dut.free & ((dut.free_index >= n)
                                              | ~held.bit_select(dut.free_index[:2], 1))),
                 "error iff out of range or double free")
        fv.cover(m, dut.empty, "all entries handed out")
        fv.cover(m, dut.empty & dut.free & ~dut.error, "free while empty")
        fv.cover(m, dut.error & (dut.free_index < n), "double free flagged")
    return Harness(dut, props), ports(dut)


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
    FormalJob("priority_encoder", "PriorityEncoder", "width=8", _priority_encoder,
              depth=2, cover_depth=2, rtl_files=("rtl/common/priority_encoder.py",)),
    FormalJob("leading_one", "LeadingOneDetector", "width=8", _leading_one(False),
              depth=2, cover_depth=2, rtl_files=("rtl/common/leading_one.py",)),
    FormalJob("leading_one_msb", "LeadingOneDetector", "width=8, msb_first", _leading_one(True),
              depth=2, cover_depth=2, rtl_files=("rtl/common/leading_one.py",)),
    FormalJob("popcount", "PopCount", "width=9", _popcount,
              depth=2, cover_depth=2, rtl_files=("rtl/common/popcount.py",)),
    FormalJob("freelist", "FreeList", "entries=4, index_width=3", _freelist,
              depth=2, cover_depth=8, rtl_files=("rtl/common/freelist.py",)),
    FormalJob("cam", "CAM", "entries=4, tag_width=3", _cam,
              depth=2, cover_depth=8, rtl_files=("rtl/common/cam.py",)),
]
