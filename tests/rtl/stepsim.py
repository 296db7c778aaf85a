"""Amaranth-simulator replay of per-cycle ops on an "ops in, outputs out" component.

The structures of the project share one interface (DESIGN.md, "one structure, three
views"): the golden model has ``step(ops: XOps) -> XOutputs`` over two dataclasses, and
the Amaranth component has one port per dataclass field, with the same names. These
helpers run a list of ``XOps`` on the component with :mod:`amaranth.sim` and compare each
cycle with the golden model. The cocotb counterpart is :mod:`tb.stepper`.

Imported by the ``tests/rtl/test_*.py`` modules as ``from stepsim import ...`` (pytest
puts this folder on ``sys.path``, as for ``tests/exec/exec_helpers.py``).
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Sequence
from dataclasses import fields, is_dataclass
from typing import Any

from amaranth.sim import Simulator

from golden.errors import ConfigError

__all__ = ["check_steps_against_golden", "simulate_comb", "simulate_steps", "step_types"]


def step_types(golden: Any) -> tuple[type, type]:
    """Return ``(ops_cls, outputs_cls)`` from the annotations of ``golden.step``.

    Raises ConfigError when ``step`` is not annotated with two dataclasses.
    """
    from golden.structures.registered import Registered
    while isinstance(golden, Registered):  # registered outputs: the wrapped model's types
        golden = golden.golden
    golden_cls = type(golden)
    try:
        hints = typing.get_type_hints(golden_cls.step)
    except (AttributeError, TypeError):
        hints = {}
    ops_cls = next((hint for name, hint in hints.items() if name != "return"), None)
    out_cls = hints.get("return")
    if not hints:
        # a compiled extension type (the timing core, golden/native) keeps no annotations:
        # the interface's naming convention, ``XOps`` / ``XOutputs`` beside class ``X``
        module = sys.modules[golden_cls.__module__]
        ops_cls = getattr(module, f"{golden_cls.__name__}Ops", None)
        out_cls = getattr(module, f"{golden_cls.__name__}Outputs", None)
    for role, cls in (("ops", ops_cls), ("outputs", out_cls)):
        if not (isinstance(cls, type) and is_dataclass(cls)):
            raise ConfigError(f"{type(golden).__name__}.step must annotate its {role} "
                              f"as a dataclass, found {cls!r}")
    return ops_cls, out_cls


def simulate_steps(dut: Any, ops_list: Sequence[Any], ops_cls: type, out_cls: type) -> list[Any]:
    """Run *ops_list* (one element per cycle) on *dut*; return the outputs of each cycle.

    Each cycle every field of the ops is set on the port of the same name, the settled
    outputs are read into an *out_cls* instance, then the clock ticks.
    """
    outputs: list[Any] = []

    async def bench(ctx):
        for ops in ops_list:
            for f in fields(ops_cls):
                ctx.set(getattr(dut, f.name), int(getattr(ops, f.name)))
            outputs.append(out_cls(**{f.name: ctx.get(getattr(dut, f.name))
                                      for f in fields(out_cls)}))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return outputs


def simulate_comb(dut: Any, ops_list: Sequence[Any], ops_cls: type, out_cls: type) -> list[Any]:
    """Apply each element of *ops_list* to a combinational *dut* (no clock); return the
    settled outputs of each."""
    outputs: list[Any] = []

    async def bench(ctx):
        for ops in ops_list:
            for f in fields(ops_cls):
                ctx.set(getattr(dut, f.name), int(getattr(ops, f.name)))
            await ctx.delay(1e-9)
            outputs.append(out_cls(**{f.name: ctx.get(getattr(dut, f.name))
                                      for f in fields(out_cls)}))

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    return outputs


def check_steps_against_golden(dut: Any, golden: Any, ops_list: Sequence[Any], label: str) -> None:
    """Assert that *dut* gives ``golden.step(ops)`` on every cycle of *ops_list*."""
    ops_cls, out_cls = step_types(golden)
    got = simulate_steps(dut, ops_list, ops_cls, out_cls)
    for cycle, (ops, out) in enumerate(zip(ops_list, got)):
        expected = golden.step(ops)
        assert out == expected, f"{label} cycle {cycle}: {ops}\n expected {expected}\n got      {out}"
