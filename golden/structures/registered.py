"""Registered outputs: a latency-0 structure model seen through output registers.

The golden structures specify each cycle's outputs as a function of the start-of-cycle
state and that cycle's requests (latency 0). An RTL structure that keeps its payload in
synchronous-read SRAM (issue 18: memories as real SRAM macros) delivers the read data one
clock later. :class:`Registered` wraps the golden model so that the named output fields
come ``cycles`` steps late (0 before the first request has got through), which is what the
RTL's ports show; every other field, and the state, are the golden model's own. The
Amaranth-simulator driver (``tests/rtl/stepsim.step_types``) reads the ops/outputs types
through :attr:`Registered.golden`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import fields, replace
from typing import Any

__all__ = ["Registered"]


class Registered:
    """``golden`` with output fields ``delayed`` registered ``cycles`` times."""

    def __init__(self, golden: Any, delayed: tuple[str, ...], cycles: int = 1):
        if cycles < 1:
            raise ValueError(f"cycles must be at least 1, not {cycles}")
        self.golden = golden
        self.delayed = tuple(delayed)
        self.cycles = cycles
        self._pipe: deque[dict[str, int]] = deque()
        #: the wrapped model's own (latency-0) outputs of the latest step, e.g. for coverage
        self.last = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.golden, name)

    def step(self, ops):
        out = self.last = self.golden.step(ops)
        names = {f.name for f in fields(out)}
        missing = [n for n in self.delayed if n not in names]
        if missing:
            raise ValueError(f"{type(self.golden).__name__} has no output {missing}")
        self._pipe.append({n: getattr(out, n) for n in self.delayed})
        late = self._pipe.popleft() if len(self._pipe) > self.cycles else dict.fromkeys(self.delayed, 0)
        return replace(out, **late)
