"""Typed twin of the PC skip table for the timing model's hot path (seed 000 §4.3.2, §4.4).

:class:`SkipTableFast` holds the same state as the reference
:class:`golden.structures.darsie.skip_table.SkipTable` (per TB bank: a
:class:`golden.structures.cam.Cam` of PC tags with valid bits and true LRU, the warps mask,
Sync, IsLoad and LeaderWB of each entry, and the majority-path mask) and gives the same
result for each per-event call, but performs the one operation directly instead of a whole
cycle of the RTL interface: no request or output records, no range checks (the DARSIE
mechanism builds in-range requests), no trace recorder. A run that records traces for RTL
replay uses the reference. ``tests/structures/test_darsie_typed_twins.py`` drives both with
the same event streams and checks identical results and state after every event.

This module is compiled with the timing core (``golden/native``, Cython pure-Python mode,
typed by ``skip_table_fast.pxd``); it runs unchanged as plain Python.
"""

from __future__ import annotations

from golden.errors import SimtlabError
from golden.structures.cam import Cam, CamParams
from golden.structures.darsie.skip_table import (MISS, SkipArrive, SkipEntry, SkipRead,
                                                 SkipTableParams, SkipWrite)

__all__ = ["SkipTableFast"]


class _FastBank:
    """One TB's entries: the Cam of PC tags plus the payload of each entry."""

    def __init__(self, params: SkipTableParams):
        self.cam = Cam(CamParams(entries=params.entries, tag_width=params.pc_width))
        n = params.entries
        self.mask = [0] * n
        self.sync = [False] * n
        self.is_load = [False] * n
        self.leader_wb = [False] * n
        self.majority = (1 << params.warps) - 1
        self.entries = n
        # a Python int from the untyped params field: with ``entries`` typed as a C
        # integer, ``1 << entries`` is a C int shift that wraps at 32 entries
        self.all_valid = (1 << params.entries) - 1

    def live(self, i) -> bool:
        """Entry ``i`` exists and is valid."""
        return i < self.entries and bool(self.cam.valid >> i & 1)


class SkipTableFast:
    """The skip table's per-event interface for the timing model (see module docstring)."""

    def __init__(self, params: SkipTableParams | None = None):
        params = SkipTableParams() if params is None else params
        if not isinstance(params, SkipTableParams):
            raise SimtlabError(f"skip_table: expected SkipTableParams, not {type(params).__name__}")
        self._params = params
        self._sync_bit = params.sync_bit
        self._all_warps = (1 << params.warps) - 1
        self._banks = [_FastBank(params) for _ in range(params.tbs)]

    # ------------------------------------------------------------------ inspection
    @property
    def params(self) -> SkipTableParams:
        return self._params

    def bank(self, tb: int) -> _FastBank:
        """The state of TB slot ``tb`` (its Cam and entry payloads; inspection and tests)."""
        return self._banks[tb]

    def majority(self, tb: int) -> int:
        """Majority-path mask of TB slot ``tb``."""
        return self.bank(tb).majority

    def entries_of(self, tb: int) -> dict[int, SkipEntry]:
        """Valid entries of TB slot ``tb`` by index."""
        bank = self.bank(tb)
        return {i: SkipEntry(bank.cam.entry(i), bank.mask[i], bank.sync[i], bank.is_load[i],
                             bank.leader_wb[i])
                for i in range(bank.entries) if bank.live(i)}

    def full(self, tb: int) -> bool:
        """Every entry of TB slot ``tb`` is valid (an alloc would evict)."""
        bank = self.bank(tb)
        return bank.cam.valid == bank.all_valid

    def lru_order(self, tb: int) -> tuple[int, ...]:
        """Entry indices of TB slot ``tb`` from least to most recently used."""
        return self.bank(tb).cam.lru_order

    # ------------------------------------------------------------------ per-event API
    def probe(self, tb: int, pc: int) -> SkipRead:
        """Look ``pc`` up in TB ``tb`` (a hit becomes most recently used)."""
        bank = self.bank(tb)
        found = bank.cam.lookup(pc, touch=True)
        if not found.hit:
            return MISS
        i = found.index
        return SkipRead(True, i, bank.mask[i], bank.sync[i], bank.is_load[i], bank.leader_wb[i])

    def alloc(self, tb: int, pc: int, leader: int, *, is_load: bool = False,
              sync: bool = False) -> SkipWrite:
        """Leader ``leader`` allocates an entry for ``pc``: an existing entry for the PC is
        reused unchanged, else the lowest free entry, else the LRU entry is evicted."""
        bank = self.bank(tb)
        ins = bank.cam.insert(pc)
        i = ins.index
        evicted_mask = bank.mask[i] if ins.evicted else 0
        if not ins.hit:
            # paper's 82-bit entry: an empty mask marks a non-synchronising entry
            bank.mask[i] = 1 << leader if sync or self._sync_bit else 0
            bank.sync[i] = bool(sync)
            bank.is_load[i] = bool(is_load)
            bank.leader_wb[i] = False
        return SkipWrite(alloc_index=i, alloc_hit=int(ins.hit), alloc_evict=int(ins.evicted),
                         alloc_evict_pc=ins.evicted_tag, alloc_evict_mask=evicted_mask)

    def arrive(self, tb: int, index: int, warp: int) -> SkipArrive:
        """Warp ``warp`` reached the PC of entry ``index``: the new warps mask, and whether
        it covers the majority mask (the entry is then freed)."""
        bank = self.bank(tb)
        if not bank.live(index) or (not self._sync_bit and not bank.sync[index]):
            return SkipArrive(0, False)
        mask = bank.mask[index] | 1 << warp
        bank.mask[index] = mask
        majority = bank.majority
        done = mask & majority == majority
        if done:
            bank.cam.invalidate_index(index)
        return SkipArrive(mask, done)

    def leader_wb(self, tb: int, index: int) -> None:
        """The leader wrote back the value of entry ``index``."""
        bank = self.bank(tb)
        if bank.live(index):
            bank.leader_wb[index] = True

    def invalidate(self, tb: int, index: int) -> None:
        """Free entry ``index`` of TB ``tb``."""
        bank = self.bank(tb)
        bank.cam.invalidate_index(index)

    def flush_tb(self, tb: int) -> None:
        """A new TB occupies slot ``tb``: free its entries, majority mask all ones."""
        bank = self.bank(tb)
        bank.cam.flush()
        bank.majority = self._all_warps

    def store(self, tb: int) -> None:
        """TB ``tb`` executed a store: remove its load entries (§4.4)."""
        self._drop_loads(self.bank(tb))

    def global_atomic(self) -> None:
        """The SM executed a global communication primitive: remove every load entry (§4.4)."""
        for bank in self._banks:
            self._drop_loads(bank)

    def set_majority(self, tb: int, mask: int) -> None:
        """Write TB ``tb``'s majority-path mask."""
        self.bank(tb).majority = mask

    def _drop_loads(self, bank: _FastBank) -> None:
        valid = bank.cam.valid
        for i in range(bank.entries):
            if bank.is_load[i] and valid >> i & 1:
                bank.cam.invalidate_index(i)
