"""Formal jobs of the ILP structures (seed 001): the shared scoreboard with per-warp
in-order lists and the gshare predictor, at small sizes."""

from __future__ import annotations

from amaranth.hdl import Array, Signal

from rtl.ilp.gshare import Gshare
from rtl.ilp.scoreboard import Scoreboard
from tb.formal.flow import FormalJob
from tb.formal.harness import Harness, ports

SB_ENTRIES, SB_WARPS = 3, 2


def _scoreboard(fv):
    dut = Scoreboard(entries=SB_ENTRIES, warps=SB_WARPS, lanes=2, reg_width=2)

    def props(m, fv, dut, state):
        n = SB_ENTRIES
        used = state["used"]
        # Shadow: which warp reserved each entry (from the allocation port only).
        owner = Array(Signal(range(SB_WARPS), name=f"owner_{i}") for i in range(n))
        reserved = Signal(n, name="reserved")
        with m.If(dut.al_ok):
            m.d.sync += owner[dut.al_idx].eq(dut.al_warp)
        for i in range(n):
            with m.If(dut.al_ok & (dut.al_idx == i)):
                m.d.sync += reserved[i].eq(1)
            with m.Elif(dut.cm_ok & (dut.cm_idx == i)):
                m.d.sync += reserved[i].eq(0)
        fv.check(m, reserved == used, "the entries in use are exactly those reserved and not released")
        fv.check(m, ~dut.cm_ok | (reserved.bit_select(dut.cm_idx, 1)
                                  & (owner[dut.cm_idx] == dut.cm_warp)),
                 "a commit never releases an entry its warp did not reserve")
        # Invariants of the per-warp lists; with the chain-length one below they are
        # inductive (k = 4), so the two shadow properties above are proved.
        for w in range(SB_WARPS):
            head, tail = state["head"][w], state["tail"][w]
            fv.check(m, ~state["in_board"][w] | (used.bit_select(head, 1) & (owner[head] == w)
                                                 & used.bit_select(tail, 1) & (owner[tail] == w)),
                     "a warp's list head and tail are entries it reserved")
        for i in range(n):
            nxt = state["nxt"][i]
            last = Signal(name=f"last_{i}")
            m.d.comb += last.eq(Array(state["tail"])[owner[i]] == i)
            fv.check(m, ~used[i] | last | (used.bit_select(nxt, 1) & (owner[nxt] == owner[i])
                                           & (nxt != i)),
                     "a reserved entry's successor belongs to the same warp")
            fv.check(m, ~used[i] | Array(state["in_board"])[owner[i]],
                     "a reserved entry's warp has a list on the board")
        # Each warp's reserved entries are exactly its chain head -> ... -> tail (3 entries).
        nxt_of = Array(state["nxt"])
        for w in range(SB_WARPS):
            head, tail = state["head"][w], state["tail"][w]
            count = sum(used[i] & (owner[i] == w) for i in range(n))
            second = nxt_of[head]
            third = nxt_of[second]
            one = (count == 1) & (head == tail)
            two = (count == 2) & (head != tail) & (second == tail)
            three = (count == 3) & (head != tail) & (second != tail) & (third == tail)
            fv.check(m, ~state["in_board"][w] | one | two | three,
                     "a warp's reserved entries are exactly its list from head to tail")
        fv.cover(m, dut.full & dut.cm_ok, "commit from a full scoreboard")
        fv.cover(m, dut.cm_ok & dut.al_ok & (dut.cm_warp != dut.al_warp), "commit and allocate in one cycle")
        fv.cover(m, dut.src_hit.all(), "all three sources wait on the board")
    return Harness(dut, props), ports(dut)


def _gshare(fv):
    dut = Gshare(counters=8, pc_width=4, histories=2)

    def props(m, fv, dut, state):
        ghr = state["ghr"]
        # Two taken updates of one counter in a row make it predict taken.
        up1 = fv.past(m, dut.up_en & dut.up_taken, "up_taken_1")
        idx1 = fv.past(m, dut.up_idx, "up_idx_1")
        up2, idx2 = fv.past(m, up1, "up_taken_2"), fv.past(m, idx1, "up_idx_2")
        fv.check(m, ~(up1 & up2 & (idx1 == idx2) & dut.pr_en & (dut.pr_idx == idx1)) | dut.pr_taken,
                 "two taken updates in a row make the counter predict taken")
        for w in range(2):
            was = fv.past(m, ghr[w], f"ghr_{w}")
            shifted = fv.past(m, dut.up_en & (dut.up_warp == w), f"shift_{w}")
            bit = fv.past(m, dut.up_taken, f"bit_{w}")
            fv.check(m, ~shifted | (ghr[w] == ((was << 1) | bit)[:3]),
                     "an update shifts its outcome into that warp's history only")
            fv.check(m, shifted | ~fv.past(m, 1, f"started_{w}") | (ghr[w] == was),
                     "a history changes only on an update of its warp")
        fv.cover(m, dut.pr_taken & (dut.ghr == 0b111), "taken prediction after three taken branches")
    return Harness(dut, props), ports(dut)


JOBS = [
    FormalJob("scoreboard", "Scoreboard",
              f"entries={SB_ENTRIES}, warps={SB_WARPS}, lanes=2, reg_width=2", _scoreboard,
              depth=4, cover_depth=6, memory_map=True, rtl_files=("rtl/ilp/scoreboard.py",)),
    FormalJob("gshare", "Gshare", "counters=8, pc_width=4, histories=2", _gshare,
              depth=3, cover_depth=6, rtl_files=("rtl/ilp/gshare.py",)),
]
