"""Golden (reference) models of the WarpMan structures of seed 002 ch. 3 (§3.2, §3.3;
digest: paper-facts §3.2, §3.3).

* :mod:`.workload_buffer` – the one-entry-per-SM buffer of a partial TB's dispatched but
  unissued warps (P_TBid, L_TBid, start_wid, end_wid, valid: 40 bits; §3.2 "B");
* :mod:`.dispatch_check` – the TB-level and warp-level dispatch checks of the TB
  dispatcher, and how many warps of a TB fit now (§3.2 "A", §3.3 steps 1-2).

:data:`STRUCTURES` names every structure for traces and testbenches (same shape as
:data:`golden.structures.darsie.STRUCTURES`).
"""

from __future__ import annotations

from golden.structures.info import StructureInfo

from .dispatch_check import (DispatchCheck, DispatchCheckOps, DispatchCheckOutputs,
                             DispatchCheckParams)
from .workload_buffer import (WorkloadBuffer, WorkloadBufferOps, WorkloadBufferOutputs,
                              WorkloadBufferParams, l_tbid_bits_for)

__all__ = ["STRUCTURES", "DispatchCheck", "DispatchCheckOps", "DispatchCheckOutputs",
           "DispatchCheckParams", "WorkloadBuffer", "WorkloadBufferOps",
           "WorkloadBufferOutputs", "WorkloadBufferParams", "l_tbid_bits_for"]

STRUCTURES: dict[str, StructureInfo] = {
    info.name: info for info in (
        StructureInfo("warpman_wb", WorkloadBuffer, WorkloadBufferParams, WorkloadBufferOps,
                      WorkloadBufferOutputs),
        StructureInfo("warpman_check", DispatchCheck, DispatchCheckParams, DispatchCheckOps,
                      DispatchCheckOutputs),
    )
}
