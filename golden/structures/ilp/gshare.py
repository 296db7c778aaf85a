"""Reference model of the gshare branch predictor of one SM (seed 002 ch. 4, §4.4.3;
digest: paper-facts §4.4).

What it stores
--------------
* the pattern history table: ``counters`` (512) two-bit saturating counters, 1,024 bits
  in all -- the chapter's "1k-bit gshare predictor (shared by all warps in an SM)". The
  chapter gives only the total; 512 x 2-bit counters is the usual gshare organisation
  for it (McFarling's, the chapter's reference [41]). A counter predicts taken when its
  upper bit is set; every counter resets to 1 (weakly not-taken);
* the global history register: the outcomes of the last ``history_bits`` (9 =
  log2(counters)) branches resolved on the SM, newest in bit 0. ``histories`` = 1 (the
  default) keeps one register shared by all warps, the literal reading of "a gshare
  predictor shared by all warps"; ``histories`` = warps keeps one per warp (selected by
  the ``*_warp`` ports), so a warp's history is not interleaved with the others' while
  the table is still trained by all of them. The chapter does not say which.

The table index is ``(pc_index XOR history) mod counters`` where ``pc_index`` is the
branch's instruction index (byte PC / 8 in our PTX program layout).

Per-cycle interface (shared port for port with :class:`rtl.ilp.gshare.Gshare`)
------------------------------------------------------------------------------
Combinational, on the start-of-cycle state:

1. prediction ``pr_en`` for ``pr_pc`` (an instruction index, ``pc_width`` bits) of warp
   ``pr_warp`` -> ``pr_idx`` (the table index) and ``pr_taken`` (the counter's upper
   bit); ``ghr`` is the history register used (``pr_warp``'s).

State change at the end of the cycle:

2. update ``up_en`` of counter ``up_idx`` (the index the prediction used, which the front
   end keeps with the branch) with the outcome ``up_taken``: the counter counts up
   (taken) or down, saturating at 0 and 3, and the outcome is shifted into the history
   (``up_warp``'s).

The prediction of step 1 sees the state before the same cycle's update. Which branches
are predicted and how divergent outcomes update the table (as if the prediction were
right) is the timing mechanism's business (golden/mechanisms/ilp/branch.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import SimtlabError
from golden.structures._check import fits, param_int, width_of
from golden.structures.ports import OutputPorts

__all__ = ["GshareParams", "GshareOps", "GshareOutputs", "Gshare"]

STRUCT = "ilp_gshare"

#: Bits of one pattern-history counter.
COUNTER_BITS = 2
#: Reset value of every counter (weakly not-taken).
COUNTER_RESET = 1


@dataclass(frozen=True)
class GshareParams:
    """Sizes of one SM's gshare predictor; defaults are the chapter's 1 k bits.

    Attributes
    ----------
    counters : int
        Two-bit counters of the pattern history table (512 = 1,024 bits), a power of two.
    pc_width : int
        Bits of the instruction index presented with a prediction (16: 64 k instructions).
    histories : int
        Global history registers: 1 (shared by the SM's warps) or one per warp.
    """

    counters: int = 512
    pc_width: int = 16
    histories: int = 1

    def __post_init__(self):
        param_int(STRUCT, "counters", self.counters, 2)
        param_int(STRUCT, "pc_width", self.pc_width, 1)
        param_int(STRUCT, "histories", self.histories, 1)
        if self.counters & (self.counters - 1):
            raise SimtlabError(f"{STRUCT}: counters must be a power of two, not {self.counters}")

    @property
    def history_bits(self) -> int:
        """History length = table index width (9 for 512 counters)."""
        return width_of(self.counters)

    @property
    def table_bits(self) -> int:
        """Bits of the pattern history table (1,024)."""
        return self.counters * COUNTER_BITS

    @property
    def warp_width(self) -> int:
        """Bits of the ``*_warp`` ports."""
        return width_of(self.histories)


@dataclass(frozen=True)
class GshareOps:
    """Requests of one cycle (RTL input ports)."""

    pr_en: int = 0
    pr_pc: int = 0
    pr_warp: int = 0
    up_en: int = 0
    up_idx: int = 0
    up_taken: int = 0
    up_warp: int = 0


@dataclass(frozen=True)
class GshareOutputs(OutputPorts):
    """Every RTL output port in one cycle."""

    pr_taken: int
    pr_idx: int
    ghr: int


class Gshare:
    """gshare predictor of one SM (see module docstring)."""

    def __init__(self, params: GshareParams | None = None, *, recorder=None,
                 check: bool = True):
        params = GshareParams() if params is None else params
        if not isinstance(params, GshareParams):
            raise SimtlabError(f"{STRUCT}: expected GshareParams, not {type(params).__name__}")
        self._p = params
        self._checked = check or recorder is not None
        self._mask = params.counters - 1
        self.table = [COUNTER_RESET] * params.counters
        self.ghr = [0] * params.histories
        self._recorder = recorder

    @property
    def params(self) -> GshareParams:
        return self._p

    def index(self, pc_index: int, warp: int = 0) -> int:
        """Table index of the branch at instruction index ``pc_index`` under ``warp``'s
        current history (inspection, not a cycle)."""
        return (pc_index ^ self.ghr[warp]) & self._mask

    def _check(self, ops: GshareOps) -> None:
        p = self._p
        for name in ("pr_en", "up_en", "up_taken"):
            fits(STRUCT, name, getattr(ops, name), 1)
        fits(STRUCT, "pr_pc", ops.pr_pc, p.pc_width)
        fits(STRUCT, "up_idx", ops.up_idx, p.history_bits)
        for name in ("pr_warp", "up_warp"):
            if not 0 <= getattr(ops, name) < p.histories:
                raise SimtlabError(f"{STRUCT}: {name} {getattr(ops, name)!r} out of range "
                                   f"0..{p.histories - 1}")

    def step(self, ops: GshareOps) -> GshareOutputs:
        """Apply one cycle of requests in the documented order; return every RTL output."""
        if not isinstance(ops, GshareOps):
            raise SimtlabError(f"{STRUCT}.step: expected GshareOps, not {type(ops).__name__}")
        if self._checked:
            self._check(ops)
        ghr = self.ghr[ops.pr_warp]
        idx = (ops.pr_pc ^ ghr) & self._mask if ops.pr_en else 0
        taken = self.table[idx] >> 1 if ops.pr_en else 0
        if ops.up_en:
            c = self.table[ops.up_idx]
            self.table[ops.up_idx] = min(3, c + 1) if ops.up_taken else max(0, c - 1)
            h = self.ghr[ops.up_warp]
            self.ghr[ops.up_warp] = ((h << 1) | ops.up_taken) & self._mask
        out = GshareOutputs(pr_taken=taken, pr_idx=idx, ghr=ghr)
        if self._recorder is not None:
            self._recorder.record(ops, out)
        return out
