"""Reference model of the uniform-vector detection logic in the ID stage of one SM
(seed 002 ch. 2, §2.4 intro, §2.4.1 and §2.4.2; digest: paper-facts §2.3 and §2.4).

What it computes (no state)
---------------------------
For one decoded instruction, from the kinds of its (up to ``sources`` = 3) source
operands, each register source's uniform bit (the token bit in the token design, the
SRF-map valid bit in the SRF design), the warp's active mask and the destination's
uniform bit:

* ``full``: the active mask is all ones (``warp_size`` bits);
* ``uniform``: the instruction is intra-warp uniform (§2.3): ``eligible`` (the mechanism
  may scalarise the opcode at all: not a memory or control instruction), ``full``, and
  every present source is uniform -- an immediate or a thread-ID-independent special
  register (kind 1), or a register whose uniform bit is set (kind 3). A
  thread-dependent special register (kind 2, e.g. ``%tid``) is never uniform; absent
  sources (kind 0) do not count;
* ``cow``: copy-on-write (§2.4.1 "copy-on-write for divergence", with the safe rule of
  paper-facts §2.4): the instruction writes a register whose uniform bit is set
  (``dst_en`` and ``dst_uniform``) while the mask is not full. The paper triggers only
  when the destination is also a source; a divergent write of a uniform register that is
  not a source would leave the inactive lanes stale, so this copies on every divergent
  write of a uniform register, eligible or not (a divergent load may write one too). The
  scheduler then inserts the copy, and the mechanism clears the bit;
* ``n_reg_sources_uniform``: the register sources (kind 3) whose bit is set, for
  statistics (whatever the mask and eligibility).

Per-cycle interface (shared port for port with :class:`rtl.uv.detect.UniformDetect`):
purely combinational; :meth:`UniformDetect.step` exists so the generic bench can drive it
like the clocked structures. The ops always carry three sources; with ``sources`` < 3 the
unused ones must be kind 0 with ``src_uniform`` 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from golden.errors import SimtlabError
from golden.structures._check import fits, param_int
from golden.structures.ports import OutputPorts

__all__ = ["SrcKind", "DetectParams", "DetectOps", "DetectOutputs", "UniformDetect"]

STRUCT = "uv_detect"

#: Source fields carried by the ops.
MAX_SOURCES = 3


class SrcKind(IntEnum):
    """Kind of a source operand (the 2-bit ``src_kind{i}`` ports)."""

    NONE = 0         #: no such source
    UNIFORM = 1      #: immediate or thread-ID-independent special register (%ntid, %ctaid...)
    THREAD = 2       #: thread-dependent special register (%tid, %laneid...): never uniform
    REGISTER = 3     #: a register: uniform when its token / SRF-map bit is set


@dataclass(frozen=True)
class DetectParams:
    """Widths of the detection logic.

    Attributes
    ----------
    sources : int
        Source operands per instruction, 1..3 (3).
    warp_size : int
        Threads per warp = bits of ``active_mask`` (32).
    """

    sources: int = 3
    warp_size: int = 32

    def __post_init__(self):
        param_int(STRUCT, "sources", self.sources, 1, MAX_SOURCES)
        param_int(STRUCT, "warp_size", self.warp_size, 1)


@dataclass(frozen=True)
class DetectOps:
    """Inputs of one instruction (RTL input ports)."""

    src_kind0: int = 0
    src_uniform0: int = 0
    src_kind1: int = 0
    src_uniform1: int = 0
    src_kind2: int = 0
    src_uniform2: int = 0
    active_mask: int = 0
    dst_en: int = 0
    dst_uniform: int = 0
    eligible: int = 0


@dataclass(frozen=True)
class DetectOutputs(OutputPorts):
    """Every RTL output port."""

    full: int
    uniform: int
    cow: int
    n_reg_sources_uniform: int


class UniformDetect:
    """Uniform-vector detection and copy-on-write trigger (see module docstring)."""

    def __init__(self, params: DetectParams | None = None, *, recorder=None, check: bool = True):
        params = DetectParams() if params is None else params
        if not isinstance(params, DetectParams):
            raise SimtlabError(f"{STRUCT}: expected DetectParams, not {type(params).__name__}")
        self._p = params
        self._checked = check or recorder is not None
        self._recorder = recorder

    @property
    def params(self) -> DetectParams:
        return self._p

    def _check(self, ops: DetectOps) -> None:
        p = self._p
        for i in range(MAX_SOURCES):
            kind = fits(STRUCT, f"src_kind{i}", getattr(ops, f"src_kind{i}"), 2)
            uni = fits(STRUCT, f"src_uniform{i}", getattr(ops, f"src_uniform{i}"), 1)
            if i >= p.sources and (kind or uni):
                raise SimtlabError(f"{STRUCT}: source {i} given but the detector has "
                                   f"{p.sources} source(s)")
        fits(STRUCT, "active_mask", ops.active_mask, p.warp_size)
        for name in ("dst_en", "dst_uniform", "eligible"):
            fits(STRUCT, name, getattr(ops, name), 1)

    def step(self, ops: DetectOps) -> DetectOutputs:
        """Evaluate one instruction; return every RTL output."""
        if not isinstance(ops, DetectOps):
            raise SimtlabError(f"{STRUCT}.step: expected DetectOps, not {type(ops).__name__}")
        if self._checked:
            self._check(ops)
        full = int(ops.active_mask == (1 << self._p.warp_size) - 1)
        all_uniform, n_reg = True, 0
        for i in range(self._p.sources):
            kind, uni = getattr(ops, f"src_kind{i}"), getattr(ops, f"src_uniform{i}")
            reg_uniform = kind == SrcKind.REGISTER and bool(uni)
            n_reg += reg_uniform
            if kind == SrcKind.THREAD or (kind == SrcKind.REGISTER and not uni):
                all_uniform = False
        out = DetectOutputs(full=full, uniform=int(bool(ops.eligible) and bool(full) and all_uniform),
                            cow=int(bool(ops.dst_en) and bool(ops.dst_uniform) and not full),
                            n_reg_sources_uniform=n_reg)
        if self._recorder is not None:
            self._recorder.record(ops, out)
        return out

    def detect(self, kinds, uniforms, active_mask: int, *, dst: bool = False,
               dst_uniform: bool = False, eligible: bool = True) -> DetectOutputs:
        """Convenience: ``kinds``/``uniforms`` per source (up to ``sources``, missing = none)."""
        kinds, uniforms = tuple(kinds), tuple(uniforms)
        if len(kinds) > self._p.sources or len(uniforms) > len(kinds):
            raise SimtlabError(f"{STRUCT}.detect: {len(kinds)} kinds / {len(uniforms)} uniform "
                               f"bits for {self._p.sources} source(s)")
        kw = {f"src_kind{i}": int(k) for i, k in enumerate(kinds)}
        kw.update({f"src_uniform{i}": int(bool(u)) for i, u in enumerate(uniforms)})
        return self.step(DetectOps(active_mask=active_mask, dst_en=int(dst),
                                   dst_uniform=int(dst_uniform), eligible=int(eligible), **kw))
