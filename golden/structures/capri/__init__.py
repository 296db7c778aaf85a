"""Golden (reference) models of the CAPRI structures of seed 004 (§3.1, §3.3; digest:
paper-facts §7.2, §7.3).

* :mod:`.capt` – the compaction-adequacy prediction table of one core (BADDR 32 + history
  1/2 + valid per entry, fully associative, true LRU; policies 1bL, 1bS, 2bit);
* :mod:`.wcu` – the warp compaction unit of one core: compaction of the UMask warps with
  per-lane priority encoders, and the adequacy evaluator (per-lane popcounts over all
  warps, max vs active warps).

:data:`STRUCTURES` names every structure for traces and testbenches (same shape as
:data:`golden.structures.darsie.STRUCTURES`).
"""

from __future__ import annotations

from golden.structures.info import StructureInfo

from .capt import POLICIES, Capt, CaptLookup, CaptOps, CaptOutputs, CaptParams
from .wcu import Wcu, WcuOps, WcuOutputs, WcuParams, WcuResult

__all__ = ["POLICIES", "STRUCTURES", "Capt", "CaptLookup", "CaptOps", "CaptOutputs",
           "CaptParams", "Wcu", "WcuOps", "WcuOutputs", "WcuParams", "WcuResult"]

STRUCTURES: dict[str, StructureInfo] = {
    info.name: info for info in (
        StructureInfo("capri_capt", Capt, CaptParams, CaptOps, CaptOutputs),
        StructureInfo("capri_wcu", Wcu, WcuParams, WcuOps, WcuOutputs),
    )
}
