"""Execution pipelines (ALU, SFU, MEM) of an SM and the opcode -> pipeline decode.

A warp instruction occupies one pipeline unit of its class for its *initiation
interval* ``ceil(warp_size / simd_width)`` cycles (lanes enter ``simd_width`` per cycle)
and writes back ``latency`` cycles after its last lane group entered:
``writeback = entry + interval - 1 + latency``. For the MEM class, ``latency`` is the
address-generation/coalescing depth before the request reaches the memory hierarchy,
which then adds its own latency.

Per-instruction latency (:func:`op_timing`): arithmetic instructions of the classes in
``pipelines.op_classes`` (int/fp32/fp64 add, min/max, mul, mad, div, and shfl, as
GPGPU-Sim's ``-ptx_opcode_latency_*`` / ``-ptx_opcode_initiation_*`` options) carry their
own latency and initiation interval. With ``pipelines.class_initiation_unit: alu`` the
interval counts *ALU warp-issue cycles* (``ceil(warp_size / alu.simd_width)`` of ours,
GPGPU-Sim's core cycle) whichever pipeline executes the instruction: GPGPU-Sim holds a
unit's dispatch register for the instruction's initiation interval in core cycles,
whatever the unit. With ``pipe`` it counts the executing pipeline's own
``ceil(warp_size / simd_width)`` (the rule before; on a narrow SFU it multiplies).
Every other instruction takes its pipeline's latency and interval, and so does ``rem``
with ``pipelines.rem_class: none`` (GPGPU-Sim 3.x gives REM no latency class; with
``div``, the default, it is timed by the div class of its type as in 4.x).

Routing (:func:`pipe_of`), one rule for the timing model and every statistic that
classes instructions by unit: memory opcodes on MEM, the transcendental opcodes
(:data:`SFU_OPCODES`) on the SFU, an op class on the pipeline its ``pipe`` names
(``pipelines.op_classes.<class>.pipe``; GPGPU-Sim 3.x puts integer mul/mad and div on
the SFU, 4.x only div), ``rem`` on ``pipelines.rem_pipe``, everything else on the ALU.
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


#: Opcode -> arithmetic class of ``OpClassesConfig`` (without the int/fp/dp prefix).
_OP_CLASS = {"add": "add", "sub": "add", "addc": "add", "subc": "add",
             "min": "max", "max": "max",
             "mul": "mul", "mul24": "mul",
             "mad": "mad", "madc": "mad", "mad24": "mad", "fma": "mad",
             "div": "div", "rem": "div"}
#: Opcodes timed by a class but routed apart from it: ``rem`` by ``pipelines.rem_pipe``
#: (GPGPU-Sim 3.x leaves REM on the SP, 4.x sends it to the SFU with DIV); the 24-bit
#: multiplies on the ALU (both GPGPU-Sim 3.x and 4.x keep MUL24/MAD24 on the SP).
_ALU_ALWAYS = frozenset({"mul24", "mad24"})


def op_class(opcode: str | None, types: tuple = ()) -> str | None:
    """Name of the ``OpClassesConfig`` field timing this instruction, or None (the
    pipeline's own latency): ``int_add``, ``fp_mad``, ``dp_div``, ``shfl``..."""
    if opcode == "shfl":
        return "shfl"
    base = _OP_CLASS.get(opcode)
    if base is None:
        return None
    t = types[0] if types else ""
    kind = "dp" if t == "f64" else ("fp" if t in ("f32", "f16", "f16x2", "bf16") else "int")
    return f"{kind}_{base}"


def pipe_of(opcode: str | None, types: tuple = (), pipelines=None) -> int:
    """Pipeline class (``PIPE_ALU`` / ``PIPE_SFU`` / ``PIPE_MEM``) executing ``opcode``
    with type suffixes ``types`` under the routing of ``pipelines`` (a
    :class:`~golden.configs.schema.PipelinesConfig`; None = only the transcendental
    opcodes on the SFU)."""
    if opcode in MEM_OPCODES:
        return PIPE_MEM
    if opcode in SFU_OPCODES:
        return PIPE_SFU
    if pipelines is None or opcode in _ALU_ALWAYS:
        return PIPE_ALU
    if opcode == "rem":
        return PIPE_SFU if pipelines.rem_pipe == "sfu" else PIPE_ALU
    cls = op_class(opcode, types)
    if cls is not None and getattr(pipelines.op_classes, cls).pipe == "sfu":
        return PIPE_SFU
    return PIPE_ALU


def unit_class(opcode: str | None, types: tuple = (), pipelines=None) -> str:
    """``"alu"`` / ``"sfu"`` / ``"mem"``: the unit :func:`pipe_of` routes ``opcode`` to,
    by name (for statistics that class instructions by execution unit)."""
    return _PIPE_NAME[pipe_of(opcode, types, pipelines)]


_PIPE_NAME = {PIPE_ALU: "alu", PIPE_SFU: "sfu", PIPE_MEM: "mem"}


def op_timing(pipelines_cfg, pipe: int, opcode: str | None, types: tuple = (),
              warp_size: int = 32):
    """``(latency, interval, lane-group cycles)`` of one instruction on pipeline
    ``pipe``, or None when it takes the pipeline's defaults. Only ALU and SFU
    instructions have classes (``rem`` only with ``pipelines.rem_class: div``).
    ``interval`` (cycles the unit is busy) is the class's initiation interval times the lane-group time ``group`` of
    ``pipelines.class_initiation_unit`` (``alu``: ``ceil(warp_size / alu.simd_width)``
    on every pipeline; ``pipe``: the executing pipeline's ``ceil(warp_size /
    simd_width)``); ``writeback = entry + group - 1 + latency``."""
    if pipe == PIPE_MEM:
        return None
    if opcode == "rem" and pipelines_cfg.rem_class == "none":
        return None
    cls = op_class(opcode, types)
    if cls is None:
        return None
    t = getattr(pipelines_cfg.op_classes, cls)
    unit = (pipelines_cfg.sfu if pipe == PIPE_SFU and pipelines_cfg.class_initiation_unit == "pipe"
            else pipelines_cfg.alu)
    group = -(-warp_size // unit.simd_width)
    return t.latency, t.initiation * group, group


def _earliest(fa: list) -> int:
    """Index of the first smallest free cycle in ``fa`` (``fa.index(min(fa))``)."""
    i = 0
    best = fa[0]
    for k in range(1, len(fa)):
        t = fa[k]
        if t < best:
            best = t
            i = k
    return i


class PipelineClass:
    """The ``count`` units of one pipeline class; each unit stores the cycle it frees.

    A mechanism that lengthens the pipeline for some instructions (e.g. G-Scalar's three
    stages) says so per instruction (:class:`golden.timing.hooks.IssueOverride`). A caller may pin an instruction to one ``unit`` (a sub-core's own unit, see
    ``core.sub_core_units``); ``unit=-1`` takes the earliest free unit."""

    __slots__ = ("free_at", "interval", "latency")

    def __init__(self, cfg: PipelineConfig, warp_size: int):
        self.free_at = [0] * cfg.count
        self.interval = -(-warp_size // cfg.simd_width)
        self.latency = cfg.latency

    def available(self, cycle: int, unit: int = -1) -> bool:
        """True if the unit (any unit when ``unit < 0``) can accept a warp instruction in
        ``cycle``."""
        fa = self.free_at
        if unit >= 0:
            return fa[unit] <= cycle
        for t in fa:  # min(fa) <= cycle, without building the minimum
            if t <= cycle:
                return True
        return False

    def next_free(self) -> int:
        """Earliest cycle a unit frees."""
        fa = self.free_at
        return fa[_earliest(fa)]

    def occupy(self, ready: int, timing=None, unit: int = -1, before: int = 0) -> int:
        """Start an instruction whose operands are ready at ``ready`` on ``unit`` (the
        earliest free unit when ``unit < 0``); return the cycle its result is written
        back. ``timing`` is the instruction's own ``(latency, interval, lane-group
        cycles)`` (:func:`op_timing`) or None for the class's latency and interval; ``before``
        cycles of injected work occupy the unit first (the instruction enters after it)."""
        fa = self.free_at
        i = unit if unit >= 0 else _earliest(fa)
        entry = max(ready, fa[i]) + before
        if timing is None:
            fa[i] = entry + self.interval
            return entry + self.interval - 1 + self.latency
        fa[i] = entry + timing[1]
        return entry + timing[2] - 1 + timing[0]

    def occupy_cycles(self, ready: int, interval: int, latency: int, unit: int = -1,
                      before: int = 0) -> int:
        """Like :meth:`occupy` with an explicit ``interval`` (cycles the unit is busy)
        and ``latency``; ``before`` cycles of injected work occupy the unit first. Return
        the writeback cycle ``entry + interval - 1 + latency``, where
        ``entry`` is the cycle the instruction itself enters."""
        fa = self.free_at
        i = unit if unit >= 0 else _earliest(fa)
        entry = max(ready, fa[i]) + before
        fa[i] = entry + interval
        return entry + interval - 1 + latency
