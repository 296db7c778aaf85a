"""Reference model of DARSIE's physical register freelist of one TB (seed 000 §4.3.1, Fig. 7 F).

What it stores
--------------
At kernel launch each TB gets up to ``entries`` = 32 vector registers for renaming,
"allocated in a strided fashion across the vector RF banks" (§4.3.1); the freelist holds
which of them are free. A free bitmap with lowest-first allocation, reusing
:class:`golden.structures.freelist.FreeList` (tags of ``tag_width`` = 8 bits, §6.3's
physical register tag, so out-of-range frees are visible as errors).

Striding: index ``i`` of the TB's rename space lives in RF bank ``i mod banks``
(``alloc_bank``; ``banks`` a power of two, 32 as in ``golden/configs/pascal_1080ti.yaml``),
so consecutively allocated versions fall in different banks.

Synchronisation: §4.3.5 "If there are no other entries in the freelist, the warps
waiting bitmask is updated to indicate that this instruction will act as a
synchronization point": ``alloc_last`` is set when exactly one register is free, i.e.
the allocation about to be made empties the list.

Per-cycle interface (shared with :class:`rtl.darsie.phys_freelist.PhysRegFreeList`):
the ops and same-cycle rules of :class:`~golden.structures.freelist.FreeList`
(``alloc``, ``free``, ``free_index``; both judged on the start-of-cycle state), outputs
``alloc_index``, ``empty``, ``error``, ``free_count`` plus ``alloc_last`` and ``alloc_bank``.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import ConfigError, SimtlabError
from golden.structures.freelist import FreeList, FreeListOps, FreeListParams

from golden.structures._check import param_int
from golden.structures.ports import OutputPorts

__all__ = ["PhysFreeListParams", "PhysFreeListOps", "PhysFreeListOutputs", "PhysRegFreeList"]

STRUCT = "phys_freelist"

#: Ops are the free list's: ``alloc``, ``free``, ``free_index``.
PhysFreeListOps = FreeListOps


@dataclass(frozen=True)
class PhysFreeListParams:
    """Sizes of one TB's physical register freelist.

    Attributes
    ----------
    entries : int
        Renaming registers per TB (32, §4.3.1).
    tag_width : int
        Physical register tag width (8, §6.3).
    banks : int
        RF banks the registers are strided over (power of two; 32 assumed for Pascal).
    """

    entries: int = 32
    tag_width: int = 8
    banks: int = 32

    def __post_init__(self):
        param_int(STRUCT, "entries", self.entries, 1)
        minimum = max(1, (self.entries - 1).bit_length())
        param_int(STRUCT, "tag_width", self.tag_width, minimum)
        param_int(STRUCT, "banks", self.banks, 1)
        if self.banks & (self.banks - 1):
            raise ConfigError(f"{STRUCT}.banks: must be a power of two, not {self.banks}")

    @property
    def bank_width(self) -> int:
        return max(1, (self.banks - 1).bit_length())


@dataclass(frozen=True)
class PhysFreeListOutputs(OutputPorts):
    """Every RTL output port in one cycle."""

    alloc_index: int
    empty: int
    error: int
    free_count: int
    alloc_last: int
    alloc_bank: int


class PhysRegFreeList:
    """Physical register freelist of one TB (see module docstring)."""

    def __init__(self, params: PhysFreeListParams | None = None, *, recorder=None):
        params = PhysFreeListParams() if params is None else params
        if not isinstance(params, PhysFreeListParams):
            raise SimtlabError(f"{STRUCT}: expected PhysFreeListParams, not {type(params).__name__}")
        self._params = params
        self._list = FreeList(FreeListParams(entries=params.entries, index_width=params.tag_width))
        self._recorder = recorder

    @property
    def params(self) -> PhysFreeListParams:
        return self._params

    @property
    def free_count(self) -> int:
        return self._list.free_count

    @property
    def empty(self) -> bool:
        return self._list.empty

    def bank_of(self, index: int) -> int:
        """RF bank of renaming register ``index`` (strided placement)."""
        return index % self._params.banks

    # ------------------------------------------------------------------ per-event API
    def alloc(self) -> tuple[int, bool] | None:
        """Take a register: (index, it was the last free one) or None when empty."""
        out = self.step(PhysFreeListOps(alloc=True))
        return None if out.empty else (out.alloc_index, bool(out.alloc_last))

    def free(self, index: int) -> bool:
        """Return register ``index``; False on a double free or an out-of-range index."""
        out = self.step(PhysFreeListOps(free=True, free_index=index))
        return not out.error

    # ------------------------------------------------------------------ one cycle
    def step(self, ops: PhysFreeListOps) -> PhysFreeListOutputs:
        """Apply one cycle (rules of FreeList.step); return every RTL output."""
        if not isinstance(ops, FreeListOps):
            raise SimtlabError(f"{STRUCT}.step: expected FreeListOps, not {type(ops).__name__}")
        base = self._list.step(ops)
        out = PhysFreeListOutputs(alloc_index=base.alloc_index, empty=base.empty,
                                  error=base.error, free_count=base.free_count,
                                  alloc_last=int(base.free_count == 1),
                                  alloc_bank=self.bank_of(base.alloc_index))
        if self._recorder is not None:
            self._recorder.record(ops, out)
        return out
