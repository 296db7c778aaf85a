"""Execution pipelines (ALU, SFU, MEM) of an SM and the opcode -> pipeline decode.

A warp instruction occupies one pipeline unit of its class for its *initiation
interval* ``ceil(warp_size / simd_width)`` cycles (lanes enter ``simd_width`` per cycle)
and writes back ``latency`` cycles after its last lane group entered:
``writeback = entry + interval - 1 + latency``. For the MEM class, ``latency`` is the
address-generation/coalescing depth before the request reaches the memory hierarchy,
which then adds its own latency.
"""

from __future__ import annotations

from golden.configs.schema import PipelineConfig
from golden.timing.stats import PIPE_ALU, PIPE_MEM, PIPE_SFU

#: Opcodes executed by the special-function units.
SFU_OPCODES = frozenset({"rcp", "rsqrt", "sqrt", "sin", "cos", "lg2", "ex2", "tanh"})
#: Opcodes executed by the load/store units.
MEM_OPCODES = frozenset({"ld", "ldu", "st", "atom", "red"})
#: Control-flow and synchronisation opcodes (run on the ALU pipeline).
CONTROL_OPCODES = frozenset({"bra", "exit", "ret", "call", "bar", "barrier"})


def pipe_of(opcode: str | None) -> int:
    """Pipeline class (``PIPE_ALU`` / ``PIPE_SFU`` / ``PIPE_MEM``) executing ``opcode``."""
    if opcode in MEM_OPCODES:
        return PIPE_MEM
    if opcode in SFU_OPCODES:
        return PIPE_SFU
    return PIPE_ALU


class PipelineClass:
    """The ``count`` units of one pipeline class; each unit stores the cycle it frees."""

    __slots__ = ("free_at", "interval", "latency")

    def __init__(self, cfg: PipelineConfig, warp_size: int):
        self.free_at = [0] * cfg.count
        self.interval = -(-warp_size // cfg.simd_width)
        self.latency = cfg.latency

    def available(self, cycle: int) -> bool:
        """True if some unit can accept a warp instruction in ``cycle``."""
        return min(self.free_at) <= cycle

    def next_free(self) -> int:
        """Earliest cycle a unit frees."""
        return min(self.free_at)

    def occupy(self, ready: int) -> int:
        """Start an instruction whose operands are ready at ``ready`` on the earliest
        free unit; return the cycle its result is written back."""
        fa = self.free_at
        i = fa.index(min(fa))
        entry = max(ready, fa[i])
        fa[i] = entry + self.interval
        return entry + self.interval - 1 + self.latency
