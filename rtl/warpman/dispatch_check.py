"""WarpMan partial-TB dispatch check of one SM's TB dispatcher (seed 002 ch. 3, §3.2 "A",
§3.3 steps 1-2): the TB-level check, the warp-level check and the number of warps of a TB
that fit now.

Reference model: :class:`golden.structures.warpman.dispatch_check.DispatchCheck` (its
docstring gives the rules). Purely combinational (0 cycles, no clock, no state).

How ``n_warps`` = min(warps_per_tb, free_warps, floor(free_regs / regs_per_warp)) is built
without a divider: a chain of ``max_warps_per_tb`` adders forms the multiples
``mult_k = k x regs_per_warp`` (k = 1 .. max_warps_per_tb, each ``mult_k = mult_{k-1} +
regs_per_warp``, sized for k x registers), and for each k

    fit_k = (mult_k <= free_regs) & (k <= warps_per_tb) & (k <= free_warps)

Every term is monotone in k, so ``fit`` is a thermometer code; ``n_warps`` is the index of
its last 1 (its 1 -> 0 edge, one-hot, encoded to binary), 0 when ``fit_1`` = 0. The
comparisons against the constant k are ``log2`` wide. Then

* ``tb_ok`` = (n_warps == warps_per_tb) & free_tbs != 0 & free_shared >= shared_per_tb
  (n_warps reaches warps_per_tb exactly when free_warps >= warps_per_tb and free_regs >=
  warps_per_tb x regs_per_warp);
* ``warp_ok`` = free_shared >= shared_per_tb & free_tbs != 0 & free_warps != 0 &
  (free_regs >= regs_per_warp), the last term being the chain's first comparator.
"""

from __future__ import annotations

from functools import reduce
from operator import or_

from amaranth.hdl import Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.properties import properties
from rtl.darsie._util import check_int

__all__ = ["DispatchCheck"]


class DispatchCheck(wiring.Component):
    """TB-level and warp-level dispatch checks (see module docstring).

    Parameters
    ----------
    warp_slots : int
        Warp-scheduler entries of the SM (48); sizes ``free_warps``.
    tb_slots : int
        TB slots of the SM (8); sizes ``free_tbs``.
    registers : int
        Registers of the SM (32,768); sizes ``free_regs`` and ``regs_per_warp``.
    shared_bytes : int
        Shared memory bytes of the SM (49,152); sizes ``free_shared`` and ``shared_per_tb``.
    max_warps_per_tb : int
        Warps of the largest TB (32); sizes ``warps_per_tb``, ``n_warps`` and the chain.

    Ports
    -----
    free_warps, free_tbs, free_regs, free_shared : In
        The SM's free scheduler entries, TB slots, registers and shared bytes.
    warps_per_tb, regs_per_warp, shared_per_tb : In
        The TB's demands (warps_per_tb >= 1).
    tb_ok, warp_ok : Out(1)
        The TB-level check (a full TB fits) and the warp-level check (a partial TB may go).
    n_warps : Out(range(max_warps_per_tb + 1))
        Warps that can get registers and a scheduler entry now.

    The ports are the fields of :class:`golden.structures.warpman.DispatchCheckOps`
    (inputs) and :class:`golden.structures.warpman.DispatchCheckOutputs` (outputs).
    """

    def __init__(self, *, warp_slots: int = 48, tb_slots: int = 8, registers: int = 32768,
                 shared_bytes: int = 49152, max_warps_per_tb: int = 32):
        self._warp_slots = check_int("DispatchCheck", "warp_slots", warp_slots, 1)
        self._tb_slots = check_int("DispatchCheck", "tb_slots", tb_slots, 1)
        self._registers = check_int("DispatchCheck", "registers", registers, 1)
        self._shared = check_int("DispatchCheck", "shared_bytes", shared_bytes, 0)
        self._max_warps = check_int("DispatchCheck", "max_warps_per_tb", max_warps_per_tb, 1)
        super().__init__({
            "free_warps": In(range(warp_slots + 1)), "free_tbs": In(range(tb_slots + 1)),
            "free_regs": In(range(registers + 1)), "free_shared": In(range(shared_bytes + 1)),
            "warps_per_tb": In(range(max_warps_per_tb + 1)),
            "regs_per_warp": In(range(registers + 1)),
            "shared_per_tb": In(range(shared_bytes + 1)),
            "tb_ok": Out(1), "warp_ok": Out(1), "n_warps": Out(range(max_warps_per_tb + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        n = self._max_warps
        fit = []
        prev = None
        for k in range(1, n + 1):
            mult = Signal(range(k * self._registers + 1), name=f"mult{k}")
            m.d.comb += mult.eq(self.regs_per_warp if prev is None else prev + self.regs_per_warp)
            prev = mult
            f = Signal(name=f"fit{k}")
            m.d.comb += f.eq((mult <= self.free_regs) & (self.warps_per_tb >= k)
                             & (self.free_warps >= k))
            fit.append(f)
        # thermometer -> index of the last 1 (one-hot edge, encoded)
        edge = [fit[i] & ~fit[i + 1] for i in range(n - 1)] + [fit[n - 1]]
        n_warps = Signal(range(n + 1), name="n_fit")
        m.d.comb += n_warps.eq(reduce(or_, [Mux(e, k, 0) for k, e in enumerate(edge, 1)],
                                      Const(0, 1)))
        shared_ok = self.free_shared >= self.shared_per_tb
        slot_ok = self.free_tbs != 0
        regs_one = Signal(name="regs_one_warp")
        m.d.comb += regs_one.eq(self.free_regs >= self.regs_per_warp)
        m.d.comb += [
            self.n_warps.eq(n_warps),
            self.tb_ok.eq((n_warps == self.warps_per_tb) & slot_ok & shared_ok),
            self.warp_ok.eq(shared_ok & slot_ok & (self.free_warps != 0) & regs_one),
        ]

        fv = properties(platform)
        if fv is not None:
            k, rpw = self.n_warps, self.regs_per_warp
            fv.check(m, (k * rpw <= self.free_regs) & (k <= self.warps_per_tb)
                     & (k <= self.free_warps),
                     "n_warps warps fit the free registers and warp slots", owner=self)
            fv.check(m, (k == self.warps_per_tb) | (k == self.free_warps)
                     | ((k + 1) * rpw > self.free_regs),
                     "n_warps is the most warps that fit", owner=self)
            fv.check(m, self.tb_ok == ((self.warps_per_tb * rpw <= self.free_regs)
                                       & (self.warps_per_tb <= self.free_warps)
                                       & (self.free_tbs != 0)
                                       & (self.free_shared >= self.shared_per_tb)),
                     "a TB is dispatched iff all its warps, a TB slot and its shared memory fit",
                     owner=self)
            fv.check(m, self.warp_ok == ((rpw <= self.free_regs) & (self.free_warps != 0)
                                         & (self.free_tbs != 0)
                                         & (self.free_shared >= self.shared_per_tb)),
                     "a warp-level dispatch iff one warp's registers, a slot, a TB slot and "
                     "the shared memory fit", owner=self)
        return m
