"""Cycle-stepped cocotb driver for structures with an "ops in, outputs out" interface.

Every structure of the project (CAM, free list, and later the DARSIE skip table, rename
table, IRB, CAPT...) is specified the same way in its golden model (DESIGN.md, "one
structure, three views"): a frozen dataclass of per-cycle requests (``XOps``), a
dataclass of per-cycle responses (``XOutputs``) and ``golden.step(ops) -> outputs``.
The Amaranth component has one input port per ``XOps`` field and one output port per
``XOutputs`` field, with the same names. This module drives such a DUT from cocotb:

* :class:`StepTB` applies one ``XOps`` per clock cycle and samples one ``XOutputs``;
* :func:`play` replays a list of ops on the DUT and on a golden instance side by side
  and scores every cycle on a :class:`tb.runner.Scoreboard`;
* :func:`play_directed` replays named scenarios, each from reset on a fresh golden;
* :func:`play_random` replays one long random run from reset, counts coverage events
  and asserts the coverage goals (:func:`check_coverage`).

The Amaranth-simulator counterpart (no cocotb) is ``tests/rtl/stepsim.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import fields, is_dataclass
from typing import Any

from cocotb.triggers import RisingEdge, Timer

from golden.errors import ConfigError
from tb.runner import ClockResetTB, Scoreboard

__all__ = ["LazyText", "StepTB", "check_coverage", "play", "play_directed", "play_random"]


def _field_names(cls: type, role: str) -> tuple[str, ...]:
    if not (isinstance(cls, type) and is_dataclass(cls)):
        raise ConfigError(f"the {role} type must be a dataclass, not {cls!r}")
    return tuple(f.name for f in fields(cls))


class StepTB(ClockResetTB):
    """Clock/reset shell plus a one-cycle driver and monitor for an ops/outputs DUT.

    Parameters
    ----------
    dut : cocotb handle
        The top-level handle; it has one port per field of *ops_cls* and *outputs_cls*.
    ops_cls : dataclass type
        Per-cycle requests; ``ops_cls()`` (all defaults) must be the idle request.
    outputs_cls : dataclass type
        Per-cycle responses, built from the integer values of the output ports.
    period_ns : int
        Clock period in nanoseconds.
    """

    def __init__(self, dut: Any, ops_cls: type, outputs_cls: type, *, period_ns: int = 10):
        super().__init__(dut, period_ns=period_ns)
        self.ops_cls = ops_cls
        self.outputs_cls = outputs_cls
        self.input_ports = _field_names(ops_cls, "ops")
        self.output_ports = _field_names(outputs_cls, "outputs")
        # port handles looked up once; the value last written to each input port
        self._inputs = tuple((name, getattr(dut, name)) for name in self.input_ports)
        self._outputs = tuple((name, getattr(dut, name)) for name in self.output_ports)
        self._driven: dict[str, int] = {}

    def drive(self, ops: Any) -> None:
        """Put every field of *ops* on the input port of the same name. A port keeps the
        value last written to it, so only fields that changed since the previous
        :meth:`drive` are written (the simulator sees the same inputs, with fewer
        writes through the VPI)."""
        driven = self._driven
        for name, port in self._inputs:
            v = int(getattr(ops, name))
            if driven.get(name) != v:
                port.value = v
                driven[name] = v

    def sample(self) -> Any:
        """Read every output port into an ``outputs_cls`` instance."""
        return self.outputs_cls(**{name: int(port.value) for name, port in self._outputs})

    async def cycle(self, ops: Any) -> Any:
        """Drive *ops* after a rising edge, sample the settled outputs, wait for the next edge."""
        self.drive(ops)
        await Timer(1, unit="ns")
        got = self.sample()
        await RisingEdge(self.dut.clk)
        return got

    def start(self) -> None:
        """Idle the inputs and start the clock (call once, before the first :meth:`restart`)."""
        self.drive(self.ops_cls())
        self.start_clock()

    async def restart(self) -> None:
        """Idle the inputs and reset the DUT (so no request is applied at the release edge)."""
        self.drive(self.ops_cls())
        await self.reset()


class LazyText:
    """``LazyText("{} cycle {} {}", label, cycle, ops)``: a scoreboard stimulus text that is
    formatted only when a mismatch is reported (the ops of a wide structure print to
    kilobytes; formatting them every cycle used to dominate long cocotb runs)."""

    __slots__ = ("fmt", "args")

    def __init__(self, fmt: str, *args: Any):
        self.fmt, self.args = fmt, args

    def __str__(self) -> str:
        return self.fmt.format(*self.args)


async def play(tb: StepTB, golden: Any, ops_list: Iterable[Any], board: Scoreboard, label: str,
               on_step: Callable[[Any, Any], None] | None = None) -> None:
    """Apply each element of *ops_list* for one cycle to the DUT and to ``golden.step``.

    Every cycle's DUT outputs are scored against the golden outputs on *board* (the
    stimulus text names *label* and the cycle number). ``on_step(expected, ops)``, when
    given, is called after each cycle with the golden outputs, e.g. to count coverage.
    """
    for cycle, ops in enumerate(ops_list):
        got = await tb.cycle(ops)
        expected = golden.step(ops)
        board.check(LazyText("{} cycle {} {}", label, cycle, ops), expected, got)
        if on_step is not None:
            on_step(expected, ops)


async def play_directed(tb: StepTB, make_golden: Callable[[], Any],
                        sequences: Iterable[tuple[str, Sequence[Any]]], board: Scoreboard) -> None:
    """Replay named scenarios, each after a DUT reset and on a fresh ``make_golden()``."""
    for name, seq in sequences:
        await tb.restart()
        await play(tb, make_golden(), seq, board, name)


def check_coverage(cov: Counter, goals: Mapping[str, int]) -> None:
    """Assert that every event of *goals* was counted at least its goal in *cov*."""
    short = {k: (cov[k], goal) for k, goal in goals.items() if cov[k] < goal}
    assert not short, f"random stimulus missed coverage goals (got, goal): {short}"


async def play_random(tb: StepTB, golden: Any, ops_list: Iterable[Any], board: Scoreboard,
                      count_events: Callable[[Any, Any, Counter], None],
                      goals: Mapping[str, int]) -> Counter:
    """Reset the DUT, replay *ops_list* scored every cycle, then check score and coverage.

    ``count_events(expected, ops, cov)`` adds the events of one cycle (from the golden
    outputs) to *cov*. Finishes *board* (every cycle matched), logs the counts and
    asserts *goals* with :func:`check_coverage`; returns the counts.
    """
    cov: Counter = Counter()
    await tb.restart()
    await play(tb, golden, ops_list, board, "random",
               on_step=lambda expected, ops: count_events(expected, ops, cov))
    board.finish()
    board.log.info("%s coverage: %s", board.name, dict(cov))
    check_coverage(cov, goals)
    return cov
