"""Golden (reference) models of DARSIE's hardware structures (seed 000 §4.3, §6.3).

One module per structure, each with a parameter dataclass (paper sizes as defaults), a
per-cycle ``step(ops) -> outputs`` that the RTL in ``rtl/darsie/`` implements port for
port, and per-event methods for the timing mechanism (each is one ``step``):

* :mod:`.skip_table` – PC skip table with per-TB majority-path masks (Fig. 7 B);
* :mod:`.coalescer` – PC coalescer in front of the skip table's 2 read ports (Fig. 7 A);
* :mod:`.rename_table` – <warp, reg> -> version, one TB (Fig. 7 D);
* :mod:`.version_table` – <reg, version> -> physical register, one TB (Fig. 7 E);
* :mod:`.phys_freelist` – physical register freelist, one TB (Fig. 7 F).

Their transaction traces use the shared format of :mod:`golden.structures.trace`.

The timing model's hot path uses typed twins of the two busiest structures, beside their
references and compiled with the timing core: :mod:`.skip_table_fast` and
:mod:`.rename_table_fast` (same per-event results, no cycle records; checked event by
event against the references in tests/structures/test_darsie_typed_twins.py).

:data:`STRUCTURES` names every structure for traces and testbenches.
"""

from __future__ import annotations

from golden.structures.info import StructureInfo

from .coalescer import CoalescerOps, CoalescerOutputs, CoalescerParams, PCCoalescer
from .phys_freelist import PhysFreeListOps, PhysFreeListOutputs, PhysFreeListParams, PhysRegFreeList
from .rename_table import RenameOp, RenameTable, RenameTableOps, RenameTableOutputs, RenameTableParams
from .skip_table import SkipOp, SkipTable, SkipTableOps, SkipTableOutputs, SkipTableParams
from .version_table import VersionTable, VersionTableOps, VersionTableOutputs, VersionTableParams

__all__ = [
    "STRUCTURES", "StructureInfo",
    "SkipOp", "SkipTable", "SkipTableOps", "SkipTableOutputs", "SkipTableParams",
    "PCCoalescer", "CoalescerOps", "CoalescerOutputs", "CoalescerParams",
    "RenameOp", "RenameTable", "RenameTableOps", "RenameTableOutputs", "RenameTableParams",
    "VersionTable", "VersionTableOps", "VersionTableOutputs", "VersionTableParams",
    "PhysRegFreeList", "PhysFreeListOps", "PhysFreeListOutputs", "PhysFreeListParams",
]


STRUCTURES: dict[str, StructureInfo] = {
    info.name: info for info in (
        StructureInfo("skip_table", SkipTable, SkipTableParams, SkipTableOps, SkipTableOutputs),
        StructureInfo("pc_coalescer", PCCoalescer, CoalescerParams, CoalescerOps, CoalescerOutputs),
        StructureInfo("rename_table", RenameTable, RenameTableParams, RenameTableOps,
                      RenameTableOutputs),
        StructureInfo("version_table", VersionTable, VersionTableParams, VersionTableOps,
                      VersionTableOutputs),
        StructureInfo("phys_freelist", PhysRegFreeList, PhysFreeListParams, PhysFreeListOps,
                      PhysFreeListOutputs),
    )
}
