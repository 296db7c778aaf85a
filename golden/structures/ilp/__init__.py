"""Golden (reference) models of the ILP structures of seed 002 ch. 4 (§4.4).

* :mod:`.scoreboard` – the many-thread-aware scoreboard of one SM (§4.4.2, Figs. 39-40);
* :mod:`.gshare` – the 1 k-bit gshare branch predictor shared by an SM's warps (§4.4.3).

:data:`STRUCTURES` names every structure for testbenches (same shape as
:data:`golden.structures.darsie.STRUCTURES`).
"""

from __future__ import annotations

from golden.structures.info import StructureInfo

from .gshare import Gshare, GshareOps, GshareOutputs, GshareParams
from .scoreboard import Scoreboard, ScoreboardOps, ScoreboardOutputs, ScoreboardParams

__all__ = ["STRUCTURES", "Gshare", "GshareOps", "GshareOutputs", "GshareParams",
           "Scoreboard", "ScoreboardOps", "ScoreboardOutputs", "ScoreboardParams"]

STRUCTURES: dict[str, StructureInfo] = {
    info.name: info for info in (
        StructureInfo("ilp_scoreboard", Scoreboard, ScoreboardParams, ScoreboardOps,
                      ScoreboardOutputs),
        StructureInfo("ilp_gshare", Gshare, GshareParams, GshareOps, GshareOutputs),
    )
}
