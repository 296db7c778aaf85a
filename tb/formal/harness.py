"""Harness: a structure elaborated with its properties plus the environment's ones.

:class:`Harness` instantiates the device under test with the caller's platform (so its own
``Assert`` s are emitted), then calls ``props(m, fv, dut, state)`` where ``state`` is what
the structure exposed (:meth:`PropertyPlatform.expose`), so a harness can relate shadow
models to the structure's internal state. :func:`ports` lists a component's port signals.
"""

from __future__ import annotations

from typing import Callable

from amaranth.hdl import Elaboratable, Fragment, Module, Signal

from rtl.common.properties import PropertyPlatform, properties

__all__ = ["Harness", "ports", "Held"]


def ports(dut) -> list:
    """The port signals of a ``wiring.Component`` (flat signatures)."""
    out = []
    for name in dut.signature.members:
        port = getattr(dut, name)
        out.append(port if isinstance(port, Signal) else port.as_value())
    return out


class Harness(Elaboratable):
    """Top-level formal harness around one structure."""

    def __init__(self, dut, props: Callable | None = None):
        self.dut = dut
        self._props = props

    def elaborate(self, platform):
        fv = properties(platform)
        if fv is None:
            raise TypeError("Harness must be elaborated with a PropertyPlatform")
        m = Module()
        m.submodules.dut = Fragment.get(self.dut, platform)
        if self._props is not None:
            self._props(m, fv, self.dut, fv.exposed.get(id(self.dut), {}))
        return m


def Held(m: Module, value, name: str) -> Signal:
    """A register holding ``value``'s previous-cycle value (for Past-like properties)."""
    sig = Signal.like(value, name=name) if isinstance(value, Signal) else Signal(len(value), name=name)
    m.d.sync += sig.eq(value)
    return sig


def freelist_held(m: Module, dut, n: int) -> tuple:
    """Shadow model of a free list built from its ports only (``alloc``/``alloc_index``,
    ``free``/``free_index``, ``empty``, ``error``): ``(held, grant, accept)``, where bit ``i`` of
    ``held`` says the user holds entry ``i``; ``grant`` and ``accept`` are an allocation and
    an accepted free this cycle."""
    held = Signal(n, name="held")
    grant = dut.alloc & ~dut.empty
    accept = dut.free & ~dut.error
    for i in range(n):
        with m.If(accept & (dut.free_index == i)):
            m.d.sync += held[i].eq(0)
        with m.Elif(grant & (dut.alloc_index == i)):
            m.d.sync += held[i].eq(1)
    return held, grant, accept
