"""Reference model of CAPRI's warp compaction unit (WCU) with its adequacy evaluator, one
per core (seed 004 §2.2, §3.1, §3.3 step 6, Figs. 7-8; TBC's WCU of Fung & Aamodt;
digest: paper-facts §7.1, §7.2, §7.3).

What it computes (no state)
---------------------------
Input: the CTA-wide active mask of one path (the TOS entry of the CTA's stack when its
WCnt reaches 0) as ``warps`` (``warps_per_cta``) warps x ``lanes`` lanes, and the
**UMask**, one bit per warp: 1 = the warp stalled for compaction, 0 = it bypassed
(did not diverge, or the CAPT predicted "inadequate").

(a) **Compaction of the UMask warps only** (§3.3 step 6a). Per lane, a chain of priority
    encoders (:class:`golden.structures.priority_encoder.PriorityEncoder`, lowest warp
    first) over that lane's active bits of the UMask warps: formed warp ``k`` takes, in
    every lane, the ``k``-th active thread (in warp order) of that lane, so every thread
    stays in its home lane (the register file is untouched) and the number of formed
    warps, ``n_formed``, is the largest per-lane count over the UMask warps -- the fewest
    warps compaction with home lanes can form. Outputs: ``formed`` (formed warp ``k``'s
    mask at bits ``k*lanes .. k*lanes+lanes-1``; warps ``>= n_formed`` are 0) and ``src``,
    the thread-to-warp mapping kept by the warp scheduler: for formed warp ``k`` and lane
    ``l`` the source warp index at bits ``(k*lanes + l) * warp_bits`` (0 where formed warp
    ``k`` has no thread in lane ``l``). The mechanism adds ``n_formed`` to the new TOS's
    WCnt (Fig. 7d).
(b) **Adequacy evaluator** over **all** warps, UMask or not (§3.1 "Predictor", §3.3 step
    6b): per lane a population count (:class:`golden.structures.popcount.PopCount`) of the
    active threads, ``max_lane_count`` = their maximum (the fewest warps compaction could
    produce for the whole path), ``n_active_warps`` = the warps with any active thread,
    and ``adequate`` = ``max_lane_count < n_active_warps`` (compaction would save at least
    one warp). An empty path (no active thread) is not adequate. The mechanism writes
    ``adequate`` into the CAPT (:meth:`golden.structures.capri.capt.Capt.update`).

The Fig. 7/8 walk-through (3 warps of 4 lanes): W0 = 0123 bypasses (UMask 0), W1 = 4xx7
and W2 = 89xx stall; the WCU compacts W1, W2 into 49x7 and 8xxx (still 2 warps); the lane
counts over all 3 warps are 3, 1, 1, 2: max 3 = 3 active warps, so inadequate.

Per-cycle interface (shared port for port with :class:`rtl.capri.wcu.Wcu`): purely
combinational; :meth:`Wcu.step` exists so the generic bench can drive it like the clocked
structures. Ports: ``mask`` (warp ``w``'s lanes at bits ``w*lanes .. w*lanes+lanes-1``)
and ``umask`` in; ``formed``, ``src``, ``n_formed``, ``max_lane_count``,
``n_active_warps``, ``adequate`` out. Requests that are errors
(:class:`~golden.errors.SimtlabError`, in check mode and whenever a recorder is attached):
a port value that does not fit its width.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from golden.errors import SimtlabError
from golden.structures._check import fits, param_int, width_of
from golden.structures.popcount import PopCount, count_width
from golden.structures.ports import OutputPorts
from golden.structures.priority_encoder import PriorityEncoder

__all__ = ["Wcu", "WcuOps", "WcuOutputs", "WcuParams", "WcuResult"]

STRUCT = "capri_wcu"


@dataclass(frozen=True)
class WcuParams:
    """Sizes of one core's WCU.

    Attributes
    ----------
    warps : int
        Warps of the largest CTA (``warps_per_cta``; 8 = 256 threads; the RTL grows as
        warps^2 x lanes). A CTA with fewer warps drives the others' mask bits to 0.
    lanes : int
        SIMD lanes = threads per warp (32).
    """

    warps: int = 8
    lanes: int = 32

    def __post_init__(self):
        param_int(STRUCT, "warps", self.warps, 1)
        param_int(STRUCT, "lanes", self.lanes, 1)

    @property
    def warp_bits(self) -> int:
        """Bits of a source warp index (3 for 8 warps)."""
        return width_of(self.warps)

    @property
    def count_bits(self) -> int:
        """Bits of a count of warps 0 .. warps (n_formed, max_lane_count, n_active_warps)."""
        return count_width(self.warps)

    @property
    def mask_bits(self) -> int:
        """Bits of the CTA-wide mask (and of ``formed``): warps x lanes."""
        return self.warps * self.lanes

    @property
    def src_bits(self) -> int:
        """Bits of the thread-to-warp mapping ``src``: warps x lanes x warp_bits."""
        return self.mask_bits * self.warp_bits


@dataclass(frozen=True)
class WcuOps:
    """Inputs of one evaluation (RTL input ports)."""

    mask: int = 0
    umask: int = 0


@dataclass(frozen=True)
class WcuOutputs(OutputPorts):
    """Every RTL output port (packed as the module docstring says)."""

    formed: int
    src: int
    n_formed: int
    max_lane_count: int
    n_active_warps: int
    adequate: int


@dataclass(frozen=True)
class WcuResult:
    """One evaluation unpacked for the mechanism.

    ``warps[k]``: formed warp ``k``'s lane mask (``n_formed`` of them); ``src[k][l]``: the
    source warp of formed warp ``k``'s thread in lane ``l`` (None where it has none).
    """

    warps: tuple[int, ...]
    src: tuple[tuple[int | None, ...], ...]
    max_lane_count: int
    n_active_warps: int
    adequate: bool

    @property
    def n_formed(self) -> int:
        return len(self.warps)


class Wcu:
    """Warp compaction unit with adequacy evaluator (see module docstring)."""

    def __init__(self, params: WcuParams | None = None, *, recorder=None, check: bool = True):
        params = WcuParams() if params is None else params
        if not isinstance(params, WcuParams):
            raise SimtlabError(f"{STRUCT}: expected WcuParams, not {type(params).__name__}")
        self._p = params
        self._checked = check or recorder is not None
        self._recorder = recorder
        self._pe = PriorityEncoder(params.warps)       # one per lane and formed warp
        self._pop = PopCount(params.warps)             # one per lane, and over the warps

    @property
    def params(self) -> WcuParams:
        return self._p

    def step(self, ops: WcuOps) -> WcuOutputs:
        """Compact the UMask warps and evaluate adequacy; return every RTL output."""
        if not isinstance(ops, WcuOps):
            raise SimtlabError(f"{STRUCT}.step: expected WcuOps, not {type(ops).__name__}")
        p = self._p
        if self._checked:
            fits(STRUCT, "mask", ops.mask, p.mask_bits)
            fits(STRUCT, "umask", ops.umask, p.warps)
        lane_mask = (1 << p.lanes) - 1
        rows = [(ops.mask >> (w * p.lanes)) & lane_mask for w in range(p.warps)]
        # per lane: that lane's bit of every warp (bit w = warp w)
        columns = [sum(((rows[w] >> lane) & 1) << w for w in range(p.warps))
                   for lane in range(p.lanes)]
        formed = src = n_formed = 0
        for lane, col in enumerate(columns):
            req = col & ops.umask
            for k in range(p.warps):                   # priority-encoder chain
                index, valid = self._pe.encode(req)
                if not valid:
                    break
                formed |= 1 << (k * p.lanes + lane)
                src |= index << ((k * p.lanes + lane) * p.warp_bits)
                n_formed = max(n_formed, k + 1)
                req &= ~(1 << index)
        max_lane = max(self._pop.count(col) for col in columns)
        n_active = self._pop.count(sum(1 << w for w, row in enumerate(rows) if row))
        out = WcuOutputs(formed=formed, src=src, n_formed=n_formed, max_lane_count=max_lane,
                         n_active_warps=n_active, adequate=int(max_lane < n_active))
        if self._recorder is not None:
            self._recorder.record(ops, out)
        return out

    # ------------------------------------------------------------------ mechanism API
    def pack(self, masks: Sequence[int]) -> int:
        """The ``mask`` port of a CTA's per-warp lane masks (at most ``warps`` of them)."""
        p = self._p
        if len(masks) > p.warps:
            raise SimtlabError(f"{STRUCT}: {len(masks)} warp masks, the WCU takes at most "
                               f"{p.warps} warps per CTA")
        word = 0
        for w, m in enumerate(masks):
            word |= fits(STRUCT, f"mask of warp {w}", m, p.lanes) << (w * p.lanes)
        return word

    def unpack(self, out: WcuOutputs) -> WcuResult:
        """The formed warps and their thread-to-warp mapping of one evaluation."""
        p = self._p
        lane_mask, wmask = (1 << p.lanes) - 1, (1 << p.warp_bits) - 1
        warps, src = [], []
        for k in range(out.n_formed):
            m = (out.formed >> (k * p.lanes)) & lane_mask
            warps.append(m)
            src.append(tuple((out.src >> ((k * p.lanes + l) * p.warp_bits)) & wmask
                             if m >> l & 1 else None for l in range(p.lanes)))
        return WcuResult(warps=tuple(warps), src=tuple(src), max_lane_count=out.max_lane_count,
                         n_active_warps=out.n_active_warps, adequate=bool(out.adequate))

    def compact(self, masks: Sequence[int], umask: int) -> WcuResult:
        """One evaluation: a path's per-warp masks (warp order) and the UMask (bit w = warp
        w stalled for compaction); return the formed warps and the adequacy verdict."""
        return self.unpack(self.step(WcuOps(mask=self.pack(masks), umask=umask)))
