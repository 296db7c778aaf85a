"""G-Scalar scalar-eligibility check (seed 003 §4.1, §4.2): combinational.

Reference model, port for port: :class:`golden.structures.gscalar.eligibility.ScalarEligibility`
(its docstring states the rule and the packing). Per source: a 4-input AND of the EBR
(fully compressed), the D bit, and a ``lanes``-bit equality of the stored mask with the
active mask; per instruction: the active-vs-valid comparison (divergence) and two AND
trees.
"""

from __future__ import annotations

from functools import reduce
from operator import and_

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.lanes import words
from rtl.common.params import check_int
from rtl.common.properties import properties

__all__ = ["ScalarEligibility"]


class ScalarEligibility(wiring.Component):
    """Scalar / divergent-scalar decision of one instruction.

    Parameters
    ----------
    sources : int
        Register sources checked (4: three operands and a predicate).
    lanes : int
        Threads per warp (32).
    divergent : bool
        Divergent-scalar execution (§4.2) enabled; when False ``div_scalar`` is 0.

    Attributes
    ----------
    src_en : Signal(sources), in
        Source ``i`` is a register (immediates and parameters are always scalar).
    src_enc : Signal(4 * sources), in
        EBR of each source (1 = byte common to all lanes).
    src_d : Signal(sources), in
        D bit of each source.
    src_mask : Signal(lanes * sources), in
        Stored mask (BVR) of each source, meaningful when its D bit is set.
    active, full : Signal(lanes), in
        The instruction's active mask and the warp's valid threads.
    uniform : Signal(1), in
        Every special-register source is equal over the warp's threads.
    class_ok : Signal(1), in
        The opcode class may run scalar.
    scalar, div_scalar : Signal(1), out
        The decision (at most one set).
    """

    def __init__(self, *, sources: int = 4, lanes: int = 32, divergent: bool = True):
        self._sources = check_int("ScalarEligibility", "sources", sources, 1)
        self._lanes = check_int("ScalarEligibility", "lanes", lanes, 1)
        if not isinstance(divergent, bool):
            raise TypeError(f"ScalarEligibility divergent must be a bool, not {divergent!r}")
        self._divergent = divergent
        super().__init__({
            "src_en": In(sources), "src_enc": In(4 * sources), "src_d": In(sources),
            "src_mask": In(lanes * sources), "active": In(lanes), "full": In(lanes),
            "uniform": In(1), "class_ok": In(1),
            "scalar": Out(1), "div_scalar": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        n = self._sources
        encs = words(self.src_enc, n, 4)
        masks = words(self.src_mask, n, self._lanes)
        go = Signal()
        nondiv = Signal()
        m.d.comb += [go.eq(self.class_ok & self.active.any() & self.uniform),
                     nondiv.eq(self.active == self.full)]
        full_terms, div_terms = [], []
        for i in range(n):
            en, d = self.src_en[i], self.src_d[i]
            compressed = Signal(name=f"src{i}_compressed")
            same_mask = Signal(name=f"src{i}_same_mask")
            m.d.comb += [compressed.eq(encs[i].all()), same_mask.eq(masks[i] == self.active)]
            full_terms.append(~en | (compressed & ~d))
            div_terms.append(~en | (compressed & (~d | same_mask)))
        m.d.comb += [
            self.scalar.eq(go & nondiv & reduce(and_, full_terms)),
            self.div_scalar.eq((go & ~nondiv & reduce(and_, div_terms)) if self._divergent else 0),
        ]

        fv = properties(platform)
        if fv is not None:
            fv.check(m, ~(self.scalar & self.div_scalar), "scalar and divergent-scalar exclude",
                     owner=self)
            base = self.class_ok & self.uniform & self.active.any()
            fv.check(m, self.scalar == (base & (self.active == self.full) & reduce(and_, [
                ~self.src_en[i] | ((encs[i] == 0b1111) & ~self.src_d[i]) for i in range(n)])),
                "scalar iff a uniform full-warp instruction whose sources are all fully "
                "compressed non-divergent registers", owner=self)
            if self._divergent:
                fv.check(m, self.div_scalar == (base & (self.active != self.full) & reduce(and_, [
                    ~self.src_en[i] | ((encs[i] == 0b1111)
                                       & (~self.src_d[i] | (masks[i] == self.active)))
                    for i in range(n)])),
                    "divergent-scalar iff every source is fully compressed and, if written "
                    "divergently, under this active mask", owner=self)
            else:
                fv.check(m, ~self.div_scalar, "no divergent-scalar without the option",
                         owner=self)
        return m
