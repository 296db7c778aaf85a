"""Per-launch statistics of the functional SIMT model (serialisable to JSON)."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

#: opcode -> class used for "dynamic warp instructions by opcode class"
OPCODE_CLASS = {
    **{op: "alu" for op in (
        "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min",
        "max", "fma", "and", "or", "xor", "not", "cnot", "shl", "shr", "shf", "bfe", "bfi",
        "bfind", "prmt", "popc", "clz", "brev", "setp", "selp", "set", "slct", "cvt", "cvta",
        "mov", "copysign", "testp", "vote", "activemask", "shfl", "match", "redux", "isspacep")},
    **{op: "sfu" for op in ("sqrt", "rsqrt", "rcp", "ex2", "lg2", "sin", "cos", "tanh")},
    **{op: "mem" for op in ("ld", "ldu", "st", "atom", "red", "prefetch")},
    **{op: "ctrl" for op in ("bra", "ret", "exit", "call", "bar", "barrier", "membar", "fence",
                             "nanosleep", "trap")},
}


@dataclass
class LaunchStats:
    """What one kernel launch did (functional mode).

    ``warp_instructions`` counts issued warp instructions (a warp with at least one
    lane on the executing path); ``thread_instructions`` counts lanes that executed
    (active and guard-true). SIMD utilisation is thread / (32 x warp) instructions.
    """

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    warp_instructions: int = 0
    thread_instructions: int = 0
    by_opcode: Counter = field(default_factory=Counter)
    branches: int = 0
    divergent_branches: int = 0
    barriers: int = 0
    mem_thread_accesses: Counter = field(default_factory=Counter)  # space -> lane accesses
    mem_warp_accesses: Counter = field(default_factory=Counter)  # space -> warp instructions
    thread_blocks: int = 0
    warps: int = 0
    wall_seconds: float = 0.0

    @property
    def by_class(self) -> Counter:
        """Warp instructions per opcode class (:data:`OPCODE_CLASS`), derived from
        ``by_opcode`` (the per-instruction step counts only the opcode)."""
        c: Counter = Counter()
        for op, n in self.by_opcode.items():
            c[OPCODE_CLASS.get(op, "other")] += n
        return c

    @property
    def simd_utilization(self) -> float:
        if not self.warp_instructions:
            return 0.0
        return self.thread_instructions / (32.0 * self.warp_instructions)

    def to_dict(self) -> dict:
        d = {}
        for k, v in asdict(self).items():
            if k == "by_opcode":
                d["by_class"] = dict(sorted(self.by_class.items()))
            d[k] = v
        for k in ("by_opcode", "mem_thread_accesses", "mem_warp_accesses"):
            d[k] = dict(sorted(getattr(self, k).items()))
        d["simd_utilization"] = self.simd_utilization
        return d

    def merge(self, other: "LaunchStats") -> None:
        """Accumulate another launch (e.g. the next wave) into this one."""
        for k in ("warp_instructions", "thread_instructions", "branches", "divergent_branches",
                  "barriers", "thread_blocks", "warps"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        for k in ("by_opcode", "mem_thread_accesses", "mem_warp_accesses"):
            getattr(self, k).update(getattr(other, k))
        self.wall_seconds += other.wall_seconds
