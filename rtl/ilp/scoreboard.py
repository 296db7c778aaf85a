"""Many-thread-aware scoreboard of one SM (seed 002 ch. 4, §4.4.2, Figs. 39-40).

Reference model, port for port and cycle for cycle:
:class:`golden.structures.ilp.scoreboard.Scoreboard` (its docstring gives the per-cycle
order of the requests). Storage:

* tag store: ``entries`` x (reg_width + NM) flip-flops, searched as a CAM by the three
  source ports, the WAW port and the allocation's WAW clear;
* data-store control fields (completion, active mask, status mask, next pointer) and a
  valid bit per entry: flip-flops, because the status mask is read-modify-written by
  writebacks while the completion and masks are searched every cycle;
* data-store values: ``entries`` x ``lanes * 32`` bits in an
  :class:`amaranth.lib.memory.Memory` with one write port (32-bit lane granularity, the
  writebacks) and two synchronous read ports (operand read, commit read to the RF),
  read-before-write, so Yosys keeps it as a memory (an SRAM macro, 2R1W);
* per warp: head, tail (K bits each), in-board, in-store.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from rtl.common.leading_one import LeadingOneDetector
from rtl.common.properties import properties
from rtl.darsie._util import any_of, check_int, encode, index_width

__all__ = ["Scoreboard"]

LANE_BITS = 32


class Scoreboard(wiring.Component):
    """Shared ``entries``-entry scoreboard with per-warp in-order lists (see module docstring).

    Parameters
    ----------
    entries : int
        Scoreboard entries (8).
    warps : int
        Warps of the SM (32).
    lanes : int
        Threads per warp (32); a value is ``lanes * 32`` bits.
    reg_width : int
        Physical vector-register number width (9).

    Ports are the fields of :class:`golden.structures.ilp.ScoreboardOps` (inputs) and
    :class:`golden.structures.ilp.ScoreboardOutputs` (outputs), same names and meanings.
    """

    def __init__(self, *, entries: int = 8, warps: int = 32, lanes: int = 32, reg_width: int = 9):
        self._entries = check_int("Scoreboard", "entries", entries, 2)
        self._warps = check_int("Scoreboard", "warps", warps, 1)
        self._lanes = check_int("Scoreboard", "lanes", lanes, 1)
        self._reg_width = check_int("Scoreboard", "reg_width", reg_width, 1)
        k, ww, dw = index_width(entries), index_width(warps), lanes * LANE_BITS
        super().__init__({
            "src_en": In(3), "src0": In(reg_width), "src1": In(reg_width), "src2": In(reg_width),
            "dst": In(reg_width), "dst_mask": In(lanes), "q_warp": In(ww),
            "cm_en": In(1), "cm_warp": In(ww),
            "wb_en": In(1), "wb_idx": In(k), "wb_lanes": In(lanes), "wb_data": In(dw),
            "al_en": In(1), "al_warp": In(ww), "al_reg": In(reg_width), "al_mask": In(lanes),
            "al_store": In(1), "rd_en": In(1), "rd_idx": In(k),
            "src_hit": Out(3), "src_done": Out(3),
            "src0_idx": Out(k), "src1_idx": Out(k), "src2_idx": Out(k),
            "dst_hit": Out(1), "dst_idx": Out(k), "dst_cover": Out(1),
            "q_in_board": Out(1), "q_in_store": Out(1), "full": Out(1), "valid": Out(entries),
            "cm_ok": Out(1), "cm_idx": Out(k), "cm_reg": Out(reg_width), "cm_write": Out(1),
            "al_ok": Out(1), "al_idx": Out(k),
            "rd_data": Out(dw), "rd_lanes": Out(lanes), "cm_data": Out(dw), "cm_lanes": Out(lanes),
        })

    def _lane_bits(self, lanes):
        """Expand a lane mask to the data bits of those lanes."""
        return Cat(*[lanes[i].replicate(LANE_BITS) for i in range(self._lanes)])

    def elaborate(self, platform):
        m = Module()
        n, nw, lanes = self._entries, self._warps, self._lanes
        k = index_width(n)

        used = [Signal(name=f"used_{i}") for i in range(n)]
        reg = [Signal(self._reg_width, name=f"reg_{i}") for i in range(n)]
        nm = [Signal(name=f"nm_{i}") for i in range(n)]
        done = [Signal(name=f"done_{i}") for i in range(n)]
        active = [Signal(lanes, name=f"active_{i}") for i in range(n)]
        status = [Signal(lanes, name=f"status_{i}") for i in range(n)]
        nxt = [Signal(k, name=f"next_{i}") for i in range(n)]
        head = Array(Signal(k, name=f"head_{w}") for w in range(nw))
        tail = Array(Signal(k, name=f"tail_{w}") for w in range(nw))
        in_board = Array(Signal(name=f"in_board_{w}") for w in range(nw))
        in_store = Array(Signal(name=f"in_store_{w}") for w in range(nw))
        a_done, a_reg, a_status, a_next = Array(done), Array(reg), Array(status), Array(nxt)

        m.submodules.data = data = Memory(shape=unsigned(lanes * LANE_BITS), depth=n, init=[])
        wp = data.write_port(granularity=LANE_BITS)
        rp_rd = data.read_port()
        rp_cm = data.read_port()

        m.d.comb += [self.valid.eq(Cat(*used)), self.full.eq(~any_of([~u for u in used]))]

        # (1) dependence check, (2) WAW check, (3) warp query -- start-of-cycle state
        hit_bits, done_bits = [], []
        for kk, (src, idx_out) in enumerate(((self.src0, self.src0_idx), (self.src1, self.src1_idx),
                                             (self.src2, self.src2_idx))):
            match = [Signal(name=f"src{kk}_match_{i}") for i in range(n)]
            for i in range(n):
                m.d.comb += match[i].eq(self.src_en[kk] & used[i] & nm[i] & (reg[i] == src))
            hit_bits.append(any_of(match))
            done_bits.append(any_of([match[i] & done[i] for i in range(n)]))
            m.d.comb += idx_out.eq(encode(match))
        m.d.comb += [self.src_hit.eq(Cat(*hit_bits)), self.src_done.eq(Cat(*done_bits))]
        dmatch = [Signal(name=f"dst_match_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += dmatch[i].eq(used[i] & nm[i] & (reg[i] == self.dst))
        m.d.comb += [
            self.dst_hit.eq(any_of(dmatch)),
            self.dst_idx.eq(encode(dmatch)),
            self.dst_cover.eq(~any_of([dmatch[i] & ((active[i] & ~self.dst_mask) != 0)
                                       for i in range(n)])),
            self.q_in_board.eq(in_board[self.q_warp]),
            self.q_in_store.eq(in_store[self.q_warp]),
        ]

        # (7) operand read: SRAM data next cycle, masked by the status captured now
        rd_status = Signal(lanes)
        m.d.comb += rp_rd.addr.eq(self.rd_idx)
        m.d.sync += rd_status.eq(Mux(self.rd_en, a_status[self.rd_idx], 0))
        m.d.comb += [self.rd_lanes.eq(rd_status),
                     self.rd_data.eq(rp_rd.data & self._lane_bits(rd_status))]

        # (4) commit of cm_warp's head, when complete
        h = Signal(k)
        cm_ok = Signal()
        emptied = Signal()
        m.d.comb += [
            h.eq(head[self.cm_warp]),
            cm_ok.eq(self.cm_en & in_board[self.cm_warp] & a_done[h]),
            emptied.eq(cm_ok & (h == tail[self.cm_warp])),
            self.cm_ok.eq(cm_ok),
            self.cm_idx.eq(Mux(cm_ok, h, 0)),
            self.cm_reg.eq(Mux(cm_ok, a_reg[h], 0)),
            self.cm_write.eq(cm_ok & ~in_store[self.cm_warp]),
            rp_cm.addr.eq(h),
        ]
        cm_status = Signal(lanes)
        m.d.sync += cm_status.eq(Mux(cm_ok, a_status[h], 0))
        m.d.comb += [self.cm_lanes.eq(cm_status),
                     self.cm_data.eq(rp_cm.data & self._lane_bits(cm_status))]
        freed = [Signal(name=f"freed_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += freed[i].eq(cm_ok & (h == i))
        with m.If(cm_ok):
            m.d.sync += in_store[self.cm_warp].eq(0)
            with m.If(emptied):
                m.d.sync += in_board[self.cm_warp].eq(0)
            with m.Else():
                m.d.sync += head[self.cm_warp].eq(a_next[h])

        # (5) writeback: SRAM lanes always, status/completion of a live entry
        m.d.comb += [wp.addr.eq(self.wb_idx), wp.data.eq(self.wb_data),
                     wp.en.eq(Mux(self.wb_en, self.wb_lanes, 0))]

        # (6) allocation of the lowest entry free at the start of the cycle
        m.submodules.free = free = LeadingOneDetector(width=n)
        m.d.comb += free.bits.eq(~Cat(*used))
        al_ok = Signal()
        board_after = Signal()
        m.d.comb += [
            al_ok.eq(self.al_en & free.valid & ~(self.al_store & in_board[self.al_warp])),
            board_after.eq(in_board[self.al_warp] & ~(emptied & (self.cm_warp == self.al_warp))),
            self.al_ok.eq(al_ok),
            self.al_idx.eq(Mux(al_ok, encode([free.onehot[i] for i in range(n)]), 0)),
        ]
        al_idx = Signal(k)
        m.d.comb += al_idx.eq(encode([free.onehot[i] for i in range(n)]))

        for i in range(n):
            sel = Signal(name=f"al_sel_{i}")
            m.d.comb += sel.eq(al_ok & free.onehot[i])
            with m.If(freed[i]):
                m.d.sync += used[i].eq(0)
            with m.If(self.wb_en & (self.wb_idx == i) & used[i] & ~freed[i]):
                new_status = status[i] | (self.wb_lanes & active[i])
                m.d.sync += [status[i].eq(new_status),
                             done[i].eq((active[i] & ~new_status) == 0)]
            with m.If(al_ok & ~self.al_store & used[i] & nm[i] & (reg[i] == self.al_reg)):
                m.d.sync += nm[i].eq(0)  # WAW: only the youngest definition stays matchable
            with m.If(al_ok & board_after & (tail[self.al_warp] == i)):
                m.d.sync += nxt[i].eq(al_idx)
            with m.If(sel):
                m.d.sync += [used[i].eq(1), reg[i].eq(self.al_reg), nm[i].eq(~self.al_store),
                             active[i].eq(self.al_mask), status[i].eq(0),
                             done[i].eq(self.al_mask == 0)]
        with m.If(al_ok):
            m.d.sync += tail[self.al_warp].eq(al_idx)
            with m.If(~board_after):
                m.d.sync += [head[self.al_warp].eq(al_idx), in_board[self.al_warp].eq(1)]
            with m.If(self.al_store):
                m.d.sync += in_store[self.al_warp].eq(1)

        fv = properties(platform)
        if fv is not None:
            fv.expose(self, used=Cat(*used), head=head, tail=tail, in_board=in_board, nxt=nxt)
            for i in range(n):
                for j in range(i + 1, n):
                    fv.check(m, ~(used[i] & nm[i] & used[j] & nm[j] & (reg[i] == reg[j])),
                             "at most one matchable (NM) entry per register (WAW)", owner=self)
            fv.check(m, sum(dmatch) <= 1, "the destination search matches at most one entry",
                     owner=self)
            fv.check(m, ~self.dst_hit | (Array(used)[self.dst_idx] & Array(nm)[self.dst_idx]
                                         & (a_reg[self.dst_idx] == self.dst)),
                     "a destination hit names a live matchable entry of that register",
                     owner=self)
            fv.check(m, ~al_ok | ~Array(used)[al_idx], "allocation takes a free entry",
                     owner=self)
            fv.check(m, ~cm_ok | Array(used)[h], "a commit releases a reserved entry", owner=self)
            fv.check(m, self.full == Cat(*used).all(), "full iff every entry is reserved",
                     owner=self)
        return m
