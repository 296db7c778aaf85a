"""Amaranth-simulator replay of DARSIE structures against their golden twins (no cocotb).

Used by ``tests/rtl/test_darsie_*.py``. :func:`check_against_golden` runs a list of ops on
a fresh RTL instance and a fresh golden instance, cycle by cycle, through
``tests/rtl/stepsim.py``'s :func:`check_steps_against_golden`; purely combinational
components (the PC coalescer) are wrapped with a free-running dummy ``sync`` domain,
which that helper's clock needs.
"""

from __future__ import annotations

from typing import Any

from amaranth.hdl import Elaboratable, Module, Signal

from tb.darsie.benches import BENCHES

__all__ = ["Clocked", "check_against_golden"]


class Clocked(Elaboratable):
    """Give a combinational component a ``sync`` domain; ports stay reachable as attributes."""

    def __init__(self, dut: Any):
        self.dut = dut

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["dut"], name)

    def elaborate(self, platform):
        m = Module()
        m.submodules.dut = self.dut
        tick = Signal()
        m.d.sync += tick.eq(~tick)
        return m


def check_against_golden(structure: str, params: Any, ops_list: list, label: str) -> None:
    """Assert the RTL of *structure* gives the golden outputs on every cycle of *ops_list*."""
    from stepsim import check_steps_against_golden  # tests/rtl is on sys.path under pytest

    bench = BENCHES[structure]
    dut = bench.rtl(params)
    if not bench.clocked:
        dut = Clocked(dut)
    check_steps_against_golden(dut, bench.golden(params), ops_list, f"{structure} {label}")
