"""gshare branch predictor of one SM (seed 002 ch. 4, §4.4.3): 1 k bits shared by the SM's
warps.

Reference model, port for port and cycle for cycle:
:class:`golden.structures.ilp.gshare.Gshare` (its docstring gives the per-cycle order).
Storage:

* the pattern history table: ``counters`` x 2-bit saturating counters in an
  :class:`amaranth.lib.memory.Memory` (1,024 bits at the chapter's size) with two
  asynchronous read ports -- the prediction (index = pc XOR history) and the update's
  read-modify-write -- and one write port; reset value 1 (weakly not-taken) by the
  memory's initial contents at power-up. Like any SRAM it is not cleared by ``rst`` (only
  the history registers are): a predictor needs no defined table contents, and the
  testbench reloads the reset value through the back door before each scenario so the
  DUT and a fresh golden model start alike;
* ``histories`` global history registers of log2(counters) bits (one shared register,
  or one per warp), flip-flops.

A prediction reads the table and history as they stand at the start of the cycle; an
update writes its counter and shifts its history at the end of the cycle.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Module, Mux, Signal, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from rtl.common.properties import properties
from rtl.darsie._util import check_int, index_width

__all__ = ["Gshare"]

COUNTER_RESET = 1


class Gshare(wiring.Component):
    """gshare predictor (see module docstring).

    Parameters
    ----------
    counters : int
        Two-bit counters in the table (512 = 1 k bits), a power of two.
    pc_width : int
        Bits of the instruction index of a prediction (16).
    histories : int
        Global history registers (1: shared by the SM's warps; or one per warp).

    Ports are the fields of :class:`golden.structures.ilp.GshareOps` (inputs) and
    :class:`golden.structures.ilp.GshareOutputs` (outputs), same names and meanings.
    """

    def __init__(self, *, counters: int = 512, pc_width: int = 16, histories: int = 1):
        self._counters = check_int("Gshare", "counters", counters, 2)
        if counters & (counters - 1):
            raise ValueError(f"Gshare counters must be a power of two, not {counters}")
        self._pc_width = check_int("Gshare", "pc_width", pc_width, 1)
        self._histories = check_int("Gshare", "histories", histories, 1)
        hb, ww = index_width(counters), index_width(histories)
        super().__init__({
            "pr_en": In(1), "pr_pc": In(pc_width), "pr_warp": In(ww),
            "up_en": In(1), "up_idx": In(hb), "up_taken": In(1), "up_warp": In(ww),
            "pr_taken": Out(1), "pr_idx": Out(hb), "ghr": Out(hb),
        })

    def elaborate(self, platform):
        m = Module()
        n, hb = self._counters, index_width(self._counters)
        m.submodules.pht = table = Memory(shape=unsigned(2), depth=n,
                                            init=[COUNTER_RESET] * n)
        rp_pr = table.read_port(domain="comb")
        rp_up = table.read_port(domain="comb")
        wp = table.write_port()
        ghr = Array(Signal(hb, name=f"ghr{i}") for i in range(self._histories))

        h = ghr[self.pr_warp]
        idx = Signal(hb)
        m.d.comb += [
            idx.eq((self.pr_pc ^ h)[:hb]),
            self.ghr.eq(h),
            rp_pr.addr.eq(idx),
            self.pr_idx.eq(Mux(self.pr_en, idx, 0)),
            self.pr_taken.eq(self.pr_en & rp_pr.data[1]),
        ]
        # update: saturating count, history shift
        c = rp_up.data
        m.d.comb += [
            rp_up.addr.eq(self.up_idx),
            wp.addr.eq(self.up_idx),
            wp.en.eq(self.up_en),
            wp.data.eq(Mux(self.up_taken, Mux(c == 3, 3, c + 1), Mux(c == 0, 0, c - 1))),
        ]
        with m.If(self.up_en):
            hu = ghr[self.up_warp]
            m.d.sync += hu.eq(Cat(self.up_taken, hu)[:hb])

        fv = properties(platform)
        if fv is not None:
            fv.expose(self, ghr=ghr)
            new = wp.data
            fv.check(m, ~self.up_en | Mux(self.up_taken, (new >= c) & (new <= c + 1),
                                          (new <= c) & (new + 1 >= c)),
                     "an update moves its counter by at most one, towards the outcome",
                     owner=self)
            fv.check(m, ~self.up_en | (new != c) | Mux(self.up_taken, c == 3, c == 0),
                     "a counter stays put only when saturated", owner=self)
            fv.check(m, self.pr_idx == Mux(self.pr_en, (self.pr_pc ^ self.ghr)[:hb], 0),
                     "the PHT index is PC xor the warp's global history", owner=self)
            fv.check(m, ~self.pr_taken | self.pr_en, "no prediction without a request",
                     owner=self)
        return m
