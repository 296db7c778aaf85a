"""cocotb driver for the combinational G-Scalar units (compressor, decompressor).

They have no clock: each vector is put on the input ports (one port per field of the
golden ``XOps`` dataclass), the outputs settle after 1 ns and are read into the golden
``XOutputs`` dataclass, then scored against ``golden.step(ops)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from typing import Any

from cocotb.triggers import Timer

from tb.runner import Scoreboard
from tb.stepper import LazyText, check_coverage

__all__ = ["play_comb"]


async def play_comb(dut: Any, golden: Any, ops_list: Iterable[Any], ops_cls: type, out_cls: type,
                    board: Scoreboard, label: str,
                    count_events: Callable[[Any, Any, Counter], None] | None = None,
                    goals: Mapping[str, int] | None = None) -> Counter:
    """Drive each vector, score it, count coverage; finish the board and check goals."""
    cov: Counter = Counter()
    ins = [f.name for f in fields(ops_cls)]
    outs = [f.name for f in fields(out_cls)]
    for i, ops in enumerate(ops_list):
        for name in ins:
            getattr(dut, name).value = int(getattr(ops, name))
        await Timer(1, unit="ns")
        got = out_cls(**{name: int(getattr(dut, name).value) for name in outs})
        expected = golden.step(ops)
        board.check(LazyText("{} vector {} {}", label, i, ops), expected, got)
        if count_events is not None:
            count_events(expected, ops, cov)
    board.finish()
    if goals:
        board.log.info("%s coverage: %s", board.name, dict(cov))
        check_coverage(cov, goals)
    return cov
