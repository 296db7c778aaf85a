"""Reference model of the fully associative CAM with valid bits and true-LRU replacement.

The CAM stores ``entries`` tags, each with a valid bit, plus a total recency order over
all entry indices (true LRU). It stores tags only: a structure built on it (the
instruction reuse buffer of seed 002 §2.4.3, the CAPT of seed 004 §3.1, DARSIE's PC
skip table of seed 000 §4.3.2) keeps its payload in a separate array indexed by the
entry index this CAM returns.

This class is the reference for :class:`rtl.common.cam.CAM` and is meant to be used
directly by the timing model. It offers two views of the same semantics:

* one method per operation (:meth:`Cam.lookup`, :meth:`Cam.insert`,
  :meth:`Cam.invalidate_index`, :meth:`Cam.invalidate_tag`, :meth:`Cam.flush`), each
  applied immediately;
* :meth:`Cam.step`, which applies one clock cycle's worth of requests (a :class:`CamOps`)
  exactly as the RTL does and returns every RTL output (a :class:`CamOutputs`).

Same-cycle semantics (shared with the RTL)
-----------------------------------------
The operations requested in one cycle are applied **in this fixed order, each one seeing
the effect of the ones before it**:

1. lookup of ``lookup_tag`` on the contents at the start of the cycle; on a hit with
   ``lookup_touch`` set, the hit entry becomes most recently used;
2. ``flush``: every valid bit is cleared;
3. invalidate by index (``inv_index``);
4. invalidate by tag (``inv_tag``); ``inv_tag_hit`` says whether a still-valid entry held it;
5. insert of ``insert_tag``.

Insert: if a valid entry already holds the tag, that entry is reused (no write, no
eviction, ``insert_hit`` set); otherwise the lowest-indexed invalid entry is filled; if
every entry is valid, the least recently used entry is evicted and its old tag is
reported. In every case the inserted entry becomes most recently used. Tags among valid
entries are therefore always unique.

LRU: only a touching lookup hit and an insert change the recency order. Flush and
invalidation clear valid bits only; they do not change the order (an invalid entry is
always preferred to the LRU victim, and it becomes MRU when it is refilled). After reset
the order is entry 0 least recently used up to entry ``entries - 1`` most recently used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from golden.errors import ConfigError, SimtlabError
from golden.structures.ports import OutputPorts

__all__ = ["CamParams", "CamOps", "CamOutputs", "LookupResult", "InsertResult", "Cam"]


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class CamParams:
    """Parameters of a CAM.

    Attributes
    ----------
    entries : int
        Number of entries (>= 2). True LRU costs ``entries * (entries - 1) / 2`` bits of
        state in the RTL, so this is meant for small ``entries`` (up to a few tens).
    tag_width : int
        Width of a tag in bits (>= 1).
    """

    entries: int
    tag_width: int

    def __post_init__(self):
        if not _is_int(self.entries) or self.entries < 2:
            raise ConfigError(f"cam.entries: must be an integer >= 2, not {self.entries!r}")
        if not _is_int(self.tag_width) or self.tag_width < 1:
            raise ConfigError(f"cam.tag_width: must be an integer >= 1, not {self.tag_width!r}")

    @property
    def index_width(self) -> int:
        """Width in bits of an entry index port (enough for ``entries - 1``)."""
        return max(1, (self.entries - 1).bit_length())


@dataclass(frozen=True)
class CamOps:
    """Requests presented to the CAM in one clock cycle (field names are the RTL input ports)."""

    lookup_tag: int = 0
    lookup_touch: bool = False
    insert_en: bool = False
    insert_tag: int = 0
    inv_index_en: bool = False
    inv_index: int = 0
    inv_tag_en: bool = False
    inv_tag: int = 0
    flush: bool = False


@dataclass(frozen=True)
class CamOutputs(OutputPorts):
    """Every RTL output port of the CAM in one cycle (field names are the RTL output ports).

    Outputs of an operation that is not requested are 0; ``hit``/``hit_index`` are always
    driven (lookup has no enable; ``lookup_touch`` only decides the LRU update).
    """

    hit: int
    hit_index: int
    insert_index: int
    insert_hit: int
    insert_evict: int
    insert_evict_tag: int
    inv_tag_hit: int
    valid: int


class LookupResult(NamedTuple):
    """Result of :meth:`Cam.lookup`: ``index`` is meaningful only when ``hit``."""

    hit: bool
    index: int


class InsertResult(NamedTuple):
    """Result of :meth:`Cam.insert`.

    ``hit``: the tag was already present at ``index`` (nothing was written).
    ``evicted``: a valid entry was replaced; ``evicted_tag`` is its old tag (else 0).
    """

    index: int
    hit: bool
    evicted: bool
    evicted_tag: int


class Cam:
    """Fully associative CAM with valid bits and true-LRU replacement (see module docstring)."""

    def __init__(self, params: CamParams):
        if not isinstance(params, CamParams):
            raise ConfigError(f"cam: expected CamParams, not {type(params).__name__}")
        self._params = params
        self._tags = [0] * params.entries
        self._valid = 0                       # valid bits (bit i = entry i)
        self._where: dict[int, int] = {}      # tag -> index of the valid entry holding it
        # Recency order: _order[0] is the least recently used index, _order[-1] the most.
        self._order = list(range(params.entries))

    # ------------------------------------------------------------------ inspection
    @property
    def params(self) -> CamParams:
        return self._params

    @property
    def valid(self) -> int:
        """Valid bits as an integer bitmap (bit ``i`` = entry ``i``)."""
        return self._valid

    @property
    def lru_order(self) -> tuple[int, ...]:
        """Entry indices from least to most recently used."""
        return tuple(self._order)

    def entry(self, index: int) -> int | None:
        """Tag held by entry ``index``, or ``None`` if the entry is invalid."""
        self._check_index(index, "entry")
        return self._tags[index] if self._valid >> index & 1 else None

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, tag: int) -> bool:
        return tag in self._where

    # ------------------------------------------------------------------ operations
    def lookup(self, tag: int, touch: bool = True) -> LookupResult:
        """Search for ``tag``; on a hit with ``touch``, make the entry most recently used."""
        self._check_tag(tag, "lookup")
        index = self._find(tag)
        if index is None:
            return LookupResult(False, 0)
        if touch:
            self._touch(index)
        return LookupResult(True, index)

    def insert(self, tag: int) -> InsertResult:
        """Insert ``tag``: reuse its entry, else fill the lowest invalid entry, else evict LRU."""
        self._check_tag(tag, "insert")
        index = self._find(tag)
        if index is not None:
            self._touch(index)
            return InsertResult(index, True, False, 0)
        free = ~self._valid & ((1 << self._params.entries) - 1)
        if free:
            index, evicted, evicted_tag = (free & -free).bit_length() - 1, False, 0
        else:
            index = self._order[0]
            evicted, evicted_tag = True, self._tags[index]
            del self._where[evicted_tag]
        self._tags[index] = tag
        self._valid |= 1 << index
        self._where[tag] = index
        self._touch(index)
        return InsertResult(index, False, evicted, evicted_tag)

    def invalidate_index(self, index: int) -> None:
        """Clear the valid bit of entry ``index``.

        An index that fits the RTL index port but is ``>= entries`` (possible when
        ``entries`` is not a power of two) has no effect, as in the RTL.
        """
        if not _is_int(index) or not 0 <= index < (1 << self._params.index_width):
            raise SimtlabError(
                f"cam.invalidate_index: index {index!r} does not fit in "
                f"{self._params.index_width} bits")
        if index < self._params.entries:
            self._clear(index)

    def invalidate_tag(self, tag: int) -> bool:
        """Clear the valid bit of the entry holding ``tag``; return whether one did."""
        self._check_tag(tag, "invalidate_tag")
        index = self._find(tag)
        if index is None:
            return False
        self._clear(index)
        return True

    def flush(self) -> None:
        """Invalidate every entry (the recency order is kept)."""
        self._valid = 0
        self._where.clear()

    def step(self, ops: CamOps) -> CamOutputs:
        """Apply one cycle of requests in the documented order; return every RTL output."""
        valid_before = self.valid
        looked = self.lookup(ops.lookup_tag, touch=bool(ops.lookup_touch))
        if ops.flush:
            self.flush()
        if ops.inv_index_en:
            self.invalidate_index(ops.inv_index)
        inv_tag_hit = self.invalidate_tag(ops.inv_tag) if ops.inv_tag_en else False
        ins = self.insert(ops.insert_tag) if ops.insert_en else InsertResult(0, False, False, 0)
        return CamOutputs(
            hit=int(looked.hit), hit_index=looked.index,
            insert_index=ins.index, insert_hit=int(ins.hit),
            insert_evict=int(ins.evicted), insert_evict_tag=ins.evicted_tag,
            inv_tag_hit=int(inv_tag_hit), valid=valid_before)

    # ------------------------------------------------------------------ helpers
    def _find(self, tag: int) -> int | None:
        return self._where.get(tag)

    def _clear(self, index: int) -> None:
        """Clear entry ``index``'s valid bit (no effect on an invalid entry)."""
        if self._valid >> index & 1:
            self._valid &= ~(1 << index)
            del self._where[self._tags[index]]

    def _touch(self, index: int) -> None:
        self._order.remove(index)
        self._order.append(index)

    def _check_tag(self, tag, what: str) -> None:
        if not _is_int(tag) or not 0 <= tag < (1 << self._params.tag_width):
            raise SimtlabError(
                f"cam.{what}: tag {tag!r} does not fit in {self._params.tag_width} bits")

    def _check_index(self, index, what: str) -> None:
        if not _is_int(index) or not 0 <= index < self._params.entries:
            raise SimtlabError(
                f"cam.{what}: index {index!r} out of range 0..{self._params.entries - 1}")
