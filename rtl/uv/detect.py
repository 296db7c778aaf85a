"""Uniform-vector detection in the ID stage (seed 002 ch. 2, §2.4; safe copy-on-write rule
of paper-facts §2.4): intra-warp uniform test and copy-on-write trigger.

Reference model: :class:`golden.structures.uv.detect.UniformDetect` (its docstring gives
the rules). Purely combinational (0 cycles, no clock, no state): a ``warp_size``-input
AND for ``full``, a 2-bit kind decode per source, and a 2-bit population count.
"""

from __future__ import annotations

from amaranth.hdl import Const, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.properties import properties
from rtl.darsie._util import check_int

__all__ = ["UniformDetect"]

MAX_SOURCES = 3
KIND_UNIFORM, KIND_THREAD, KIND_REGISTER = 1, 2, 3


class UniformDetect(wiring.Component):
    """Uniform detection (see module docstring).

    Parameters
    ----------
    sources : int
        Source operands examined, 1..3 (3); the ports beyond it exist and are ignored.
    warp_size : int
        Bits of ``active_mask`` (32).

    Ports are the fields of :class:`golden.structures.uv.DetectOps` (inputs) and
    :class:`golden.structures.uv.DetectOutputs` (outputs), same names and meanings.
    """

    def __init__(self, *, sources: int = 3, warp_size: int = 32):
        self._sources = check_int("UniformDetect", "sources", sources, 1)
        if sources > MAX_SOURCES:
            raise ValueError(f"UniformDetect sources must be at most {MAX_SOURCES}, not {sources}")
        self._warp_size = check_int("UniformDetect", "warp_size", warp_size, 1)
        ports = {}
        for i in range(MAX_SOURCES):
            ports.update({f"src_kind{i}": In(2), f"src_uniform{i}": In(1)})
        ports.update({
            "active_mask": In(warp_size), "dst_en": In(1), "dst_uniform": In(1),
            "eligible": In(1),
            "full": Out(1), "uniform": Out(1), "cow": Out(1),
            "n_reg_sources_uniform": Out(range(MAX_SOURCES + 1)),
        })
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        full = self.active_mask.all()
        ok = Const(1, 1)
        count = Const(0, 2)
        for i in range(self._sources):
            kind, uni = getattr(self, f"src_kind{i}"), getattr(self, f"src_uniform{i}")
            reg_uniform = (kind == KIND_REGISTER) & uni
            ok = ok & ~((kind == KIND_THREAD) | ((kind == KIND_REGISTER) & ~uni))
            count = count + reg_uniform
        m.d.comb += [
            self.full.eq(full),
            self.uniform.eq(self.eligible & full & ok),
            self.cow.eq(self.dst_en & self.dst_uniform & ~full),
            self.n_reg_sources_uniform.eq(count),
        ]

        fv = properties(platform)
        if fv is not None:
            fv.check(m, ~self.uniform | (self.eligible & full),
                     "uniform only for an eligible full-warp instruction", owner=self)
            for i in range(self._sources):
                kind, uni = getattr(self, f"src_kind{i}"), getattr(self, f"src_uniform{i}")
                fv.check(m, ~self.uniform | ((kind != KIND_THREAD) & ((kind != KIND_REGISTER) | uni)),
                         "a uniform instruction reads no thread-varying source", owner=self)
            fv.check(m, ~self.cow | (self.dst_en & self.dst_uniform & ~full),
                     "copy-on-write only for a partial write of a uniform register", owner=self)
            fv.check(m, self.n_reg_sources_uniform <= self._sources,
                     "uniform register sources counted at most once each", owner=self)
        return m
