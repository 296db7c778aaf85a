"""One description per DARSIE structure tying its three views together.

:data:`BENCHES` maps a structure name (the trace ``structure`` key) to a :class:`Bench`:
the golden info (from :data:`golden.structures.darsie.STRUCTURES`), the RTL component
class, and the stimulus functions of :mod:`tb.darsie.stimulus`. The RTL is built with the
golden parameter dataclass's fields as keywords (same names in both views), so a trace
header's ``params`` is enough to elaborate the matching DUT.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from golden.structures.darsie import STRUCTURES, StructureInfo
from rtl.darsie.coalescer import PCCoalescer
from rtl.darsie.phys_freelist import PhysRegFreeList
from rtl.darsie.rename_table import RenameTable
from rtl.darsie.skip_table import SkipTable
from rtl.darsie.version_table import VersionTable

from . import stimulus as st

__all__ = ["BENCHES", "Bench"]


@dataclass(frozen=True)
class Bench:
    """Golden model, RTL class and stimulus of one structure."""

    info: StructureInfo
    rtl_cls: type
    random_ops: Callable[..., list]
    directed: Callable[[Any], list]
    cover: Callable[[Any], Callable]
    goals: dict[str, int]
    #: The RTL has a clock (False: purely combinational, no ``clk``/``rst`` ports).
    clocked: bool = True

    @property
    def name(self) -> str:
        return self.info.name

    def golden(self, params: Any, **kwargs) -> Any:
        return self.info.golden_cls(params, **kwargs)

    def rtl(self, params: Any) -> Any:
        return self.rtl_cls(**asdict(params))


BENCHES: dict[str, Bench] = {b.name: b for b in (
    Bench(STRUCTURES["skip_table"], SkipTable, st.random_skip_table, st.directed_skip_table,
          st.cover_skip_table, st.SKIP_TABLE_GOALS),
    Bench(STRUCTURES["pc_coalescer"], PCCoalescer, st.random_coalescer, st.directed_coalescer,
          st.cover_coalescer, st.COALESCER_GOALS, clocked=False),
    Bench(STRUCTURES["rename_table"], RenameTable, st.random_rename_table, st.directed_rename_table,
          st.cover_rename_table, st.RENAME_TABLE_GOALS),
    Bench(STRUCTURES["version_table"], VersionTable, st.random_version_table,
          st.directed_version_table, st.cover_version_table, st.VERSION_TABLE_GOALS),
    Bench(STRUCTURES["phys_freelist"], PhysRegFreeList, st.random_phys_freelist,
          st.directed_phys_freelist, st.cover_phys_freelist, st.PHYS_FREELIST_GOALS),
)}
