"""Reference model of G-Scalar's scalar-eligibility check (seed 003 §4.1, §4.2).

What it decides
---------------
At issue, from the metadata the operand collector reads with each source register (its
EBR ``enc``: one bit per byte, 1 = the byte is common to all lanes; its D bit: last
written by a divergent instruction; and, when D is set, the writer's active mask, which
the bank keeps in the BVR field), whether the instruction runs on one lane:

* **scalar** (§4.1): the instruction is not divergent (its active mask equals the warp's
  valid threads), every source is fully compressed (``enc == 0b1111``) and none has D set;
* **divergent scalar** (§4.2): the instruction is divergent and every source is fully
  compressed and either has D clear or was written under exactly the current active mask.

Sources that are not registers (immediates, parameters) are always scalar and are simply
not enabled; special registers are folded into ``uniform`` (all of them equal over the
warp's threads). ``class_ok`` says the opcode class may run scalar (ALU, SFU, MEM in the
paper's design) and the active mask is not empty. This is the decision
:class:`golden.mechanisms.gscalar.timing.GScalarMechanism` makes for the ``gscalar``
variant (full-register compression); ``tests/rtl/test_gscalar_eligibility.py`` checks the
two agree on real kernels.

Per-cycle interface (shared with :class:`rtl.gscalar.eligibility.ScalarEligibility`):
:class:`EligibilityOps` in, :class:`EligibilityOutputs` out, combinational (latency 0).
Source ``i`` uses bit ``i`` of ``src_en`` and ``src_d``, bits ``[4 i, 4 i + 4)`` of
``src_enc`` and bits ``[lanes i, lanes i + lanes)`` of ``src_mask``.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.structures.ports import OutputPorts

__all__ = ["EligibilityParams", "EligibilityOps", "EligibilityOutputs", "ScalarEligibility"]

FULL_ENC = 0b1111


@dataclass(frozen=True)
class EligibilityParams:
    """``sources``: register sources checked (3 operands + 1 predicate = 4); ``lanes``:
    threads per warp (32); ``divergent``: divergent-scalar execution (§4.2) enabled."""

    sources: int = 4
    lanes: int = 32
    divergent: bool = True

    def __post_init__(self):
        for name in ("sources", "lanes"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"EligibilityParams.{name} must be a positive integer, not {v!r}")
        if not isinstance(self.divergent, bool):
            raise TypeError(f"EligibilityParams.divergent must be a bool, not {self.divergent!r}")


@dataclass(frozen=True)
class EligibilityOps:
    """One instruction's check (see the module docstring for the packing)."""

    src_en: int = 0
    src_enc: int = 0
    src_d: int = 0
    src_mask: int = 0
    active: int = 0
    full: int = 0
    uniform: int = 1
    class_ok: int = 0


@dataclass(frozen=True)
class EligibilityOutputs(OutputPorts):
    """``scalar`` (§4.1) and ``div_scalar`` (§4.2); at most one is set."""

    scalar: int
    div_scalar: int


class ScalarEligibility:
    """The scalar-eligibility decision of one instruction per call (combinational)."""

    def __init__(self, params: EligibilityParams = EligibilityParams()):
        self.params = params

    def step(self, ops: EligibilityOps) -> EligibilityOutputs:
        p = self.params
        lane_mask = (1 << p.lanes) - 1
        active, full = ops.active & lane_mask, ops.full & lane_mask
        if not ops.class_ok or not active or not ops.uniform:
            return EligibilityOutputs(0, 0)
        nondiv = active == full
        full_ok, div_ok = nondiv, p.divergent and not nondiv
        for i in range(p.sources):
            if not ops.src_en >> i & 1:
                continue
            compressed = (ops.src_enc >> (4 * i)) & 0xF == FULL_ENC
            d = bool(ops.src_d >> i & 1)
            mask = (ops.src_mask >> (p.lanes * i)) & lane_mask
            full_ok = full_ok and compressed and not d
            div_ok = div_ok and compressed and (not d or mask == active)
        return EligibilityOutputs(int(full_ok), int(div_ok))
