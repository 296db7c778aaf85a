"""Golden (reference) models of the uniform-vector (UV) structures of seed 002 ch. 2
(§2.4; digest: paper-facts §2.3-2.7).

* :mod:`.detect` – intra-warp uniform detection and the copy-on-write trigger in the ID
  stage (§2.3, §2.4.1);
* :mod:`.srf_map` – the scalar register file's renaming map table with its free list of
  SRF indices (§2.4.2);
* :mod:`.irb` – the inter-warp instruction reuse buffer, with the parity of the
  reliability variant (§2.4.3, §2.4.4).

:data:`STRUCTURES` names every structure for traces and testbenches (same shape as
:data:`golden.structures.darsie.STRUCTURES`).
"""

from __future__ import annotations

from golden.structures.info import StructureInfo

from .detect import DetectOps, DetectOutputs, DetectParams, SrcKind, UniformDetect
from .irb import IRB, IRBEntry, IRBOps, IRBOutputs, IRBParams
from .srf_map import SRFMap, SRFMapOps, SRFMapOutputs, SRFMapParams

__all__ = ["STRUCTURES", "IRB", "IRBEntry", "IRBOps", "IRBOutputs", "IRBParams",
           "SRFMap", "SRFMapOps", "SRFMapOutputs", "SRFMapParams",
           "SrcKind", "UniformDetect", "DetectOps", "DetectOutputs", "DetectParams"]

STRUCTURES: dict[str, StructureInfo] = {
    info.name: info for info in (
        StructureInfo("uv_irb", IRB, IRBParams, IRBOps, IRBOutputs),
        StructureInfo("uv_srf_map", SRFMap, SRFMapParams, SRFMapOps, SRFMapOutputs),
        StructureInfo("uv_detect", UniformDetect, DetectParams, DetectOps, DetectOutputs),
    )
}
