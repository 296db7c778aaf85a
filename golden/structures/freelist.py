"""Reference model of a free list of ``entries`` indices (a free bitmap with lowest-first allocation).

DARSIE's per-TB physical register freelist (seed 000 §4.3; paper-facts §1.4 row F), the
SRF index freelist of the uniform-vector design (seed 002 §2) and WarpMan's warp slots (seed 002
ch. 3) are built on it. The state is one bit per index (1 = free). After reset every
index is free.

This class is the reference for :class:`rtl.common.freelist.FreeList` and is meant to be
used directly by the timing model. It offers one method per operation
(:meth:`FreeList.alloc`, :meth:`FreeList.free`, applied immediately) and
:meth:`FreeList.step`, which applies one clock cycle of requests exactly as the RTL does.

Semantics (shared with the RTL)
-------------------------------
* **Allocation order**: ``alloc`` takes the lowest-numbered free index. ``alloc_index``
  shows that index every cycle (0 when empty), so it can be read before deciding to
  allocate. ``alloc`` while ``empty`` returns nothing and changes nothing.
* **Free**: ``free`` of ``free_index`` returns the index to the list. If the index is
  ``>= entries`` (out of range) or is already free (double free), ``error`` is raised
  in that cycle and the state is not changed.
* **Same-cycle alloc + free**: both are judged against the state at the start of the
  cycle. The index freed in a cycle becomes allocatable in the next cycle (no bypass):
  an ``alloc`` while ``empty`` fails even if a ``free`` arrives in the same cycle, and a
  ``free`` of the index being allocated in that same cycle is a double free (it was free
  at the start of the cycle).
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import ConfigError, SimtlabError
from golden.structures.ports import OutputPorts

__all__ = ["FreeListParams", "FreeListOps", "FreeListOutputs", "FreeList"]


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class FreeListParams:
    """Parameters of a free list.

    Attributes
    ----------
    entries : int
        Number of indices managed (>= 1); indices are ``0 .. entries - 1``.
    index_width : int or None
        Width in bits of the index ports. ``None`` means just enough for ``entries - 1``.
        A wider port lets a caller present out-of-range indices (for instance a DARSIE
        8-bit physical register tag over a smaller list), which ``free`` reports as errors.
    """

    entries: int
    index_width: int | None = None

    def __post_init__(self):
        if not _is_int(self.entries) or self.entries < 1:
            raise ConfigError(f"freelist.entries: must be an integer >= 1, not {self.entries!r}")
        minimum = max(1, (self.entries - 1).bit_length())
        if self.index_width is None:
            object.__setattr__(self, "index_width", minimum)
        elif not _is_int(self.index_width) or self.index_width < minimum:
            raise ConfigError(
                f"freelist.index_width: must be an integer >= {minimum} for "
                f"{self.entries} entries, not {self.index_width!r}")


@dataclass(frozen=True)
class FreeListOps:
    """Requests presented to the free list in one clock cycle (names are the RTL input ports)."""

    alloc: bool = False
    free: bool = False
    free_index: int = 0


@dataclass(frozen=True)
class FreeListOutputs(OutputPorts):
    """Every RTL output port of the free list in one cycle (names are the RTL output ports)."""

    alloc_index: int
    empty: int
    error: int
    free_count: int


class FreeList:
    """Free list of indices with lowest-first allocation and checked frees (see module docstring)."""

    def __init__(self, params: FreeListParams):
        if not isinstance(params, FreeListParams):
            raise ConfigError(f"freelist: expected FreeListParams, not {type(params).__name__}")
        self._params = params
        self._free = [True] * params.entries
        self._n_free = params.entries      # sum(self._free), kept in step with it

    # ------------------------------------------------------------------ inspection
    @property
    def params(self) -> FreeListParams:
        return self._params

    @property
    def free_count(self) -> int:
        """Number of free indices."""
        return self._n_free

    @property
    def empty(self) -> bool:
        """True when no index is free (``alloc`` would fail)."""
        return self._n_free == 0

    @property
    def full(self) -> bool:
        """True when every index is free (nothing allocated)."""
        return self._n_free == self._params.entries

    @property
    def free_bitmap(self) -> int:
        """Free bits as an integer bitmap (bit ``i`` set = index ``i`` is free)."""
        return sum(1 << i for i, f in enumerate(self._free) if f)

    @property
    def next_index(self) -> int | None:
        """The index the next ``alloc`` would return, or ``None`` when empty."""
        return self._free.index(True) if self._n_free else None

    def is_free(self, index: int) -> bool:
        if not _is_int(index) or not 0 <= index < self._params.entries:
            raise SimtlabError(
                f"freelist.is_free: index {index!r} out of range 0..{self._params.entries - 1}")
        return self._free[index]

    # ------------------------------------------------------------------ operations
    def alloc(self) -> int | None:
        """Take the lowest free index and return it; return ``None`` (no change) when empty."""
        index = self.next_index
        if index is not None:
            self._free[index] = False
            self._n_free -= 1
        return index

    def free_error(self, index: int) -> bool:
        """Whether ``free(index)`` would be an error (out of range or double free)."""
        if not _is_int(index) or not 0 <= index < (1 << self._params.index_width):
            raise SimtlabError(
                f"freelist.free: index {index!r} does not fit in {self._params.index_width} bits")
        return index >= self._params.entries or self._free[index]

    def free(self, index: int) -> bool:
        """Return ``index`` to the list. Return ``False`` (no change) on a double free or an
        out-of-range index, ``True`` when the index was accepted."""
        if self.free_error(index):
            return False
        self._free[index] = True
        self._n_free += 1
        return True

    def step(self, ops: FreeListOps) -> FreeListOutputs:
        """Apply one cycle of requests (both judged on the start-of-cycle state)."""
        peek = self.next_index
        free_count = self.free_count
        error = bool(ops.free) and self.free_error(ops.free_index)
        if ops.alloc and peek is not None:
            self._free[peek] = False
            self._n_free -= 1
        if ops.free and not error:
            self._free[ops.free_index] = True
            self._n_free += 1
        return FreeListOutputs(
            alloc_index=0 if peek is None else peek, empty=int(peek is None),
            error=int(error), free_count=free_count)
