"""Typed twin of DARSIE's register rename table for the timing model's hot path (seed 000 §4.3.1).

:class:`RenameTableFast` holds the same state as the reference
:class:`golden.structures.darsie.rename_table.RenameTable` of one TB (per entry its
named-register tag, the bitmask of warps renamed in it and a version per warp; the bitmap
of entries in use and a tag -> entry map) and gives the same result for each per-event
call, but performs the one operation directly instead of a whole cycle of the RTL
interface: no request or output records, no range checks (the DARSIE mechanism builds
in-range requests), no trace recorder. A run that records traces for RTL replay uses the
reference. ``tests/structures/test_darsie_typed_twins.py`` drives both with the same event
streams and checks identical results and state after every event.

This module is compiled with the timing core (``golden/native``, Cython pure-Python mode,
typed by ``rename_table_fast.pxd``); it runs unchanged as plain Python.
"""

from __future__ import annotations

from golden.errors import SimtlabError
from golden.structures.darsie.rename_table import RenameTableParams, RenameWrite

__all__ = ["RenameTableFast"]


class RenameTableFast:
    """The rename table's per-event interface for the timing model (see module docstring)."""

    def __init__(self, params: RenameTableParams | None = None):
        params = RenameTableParams() if params is None else params
        if not isinstance(params, RenameTableParams):
            raise SimtlabError(f"rename_table: expected RenameTableParams, "
                               f"not {type(params).__name__}")
        self._params = params
        self._warps = params.warps
        self._per_warp = params.per_warp_versions
        self._all_entries = (1 << params.entries) - 1
        self._tag = [0] * params.entries
        self._rmask = [0] * params.entries      # warps renamed in the entry (bit per warp)
        self._version = [[0] * params.warps for _ in range(params.entries)]
        self._valid = 0                         # entries in use (any renamed bit)
        self._where = {}                        # tag -> entry, entries in use only

    # ------------------------------------------------------------------ inspection
    @property
    def params(self) -> RenameTableParams:
        return self._params

    @property
    def valid(self) -> int:
        """Bitmap of the entries in use."""
        return self._valid

    def mapping(self, warp: int) -> dict[int, int]:
        """{named register: version} of every register ``warp`` has renamed."""
        return {self._tag[e]: self._version[e][warp]
                for e in range(self._params.entries) if self._rmask[e] >> warp & 1}

    def holders(self, reg: int, version: int) -> int:
        """Bitmask of warps renamed to (``reg``, ``version``)."""
        e = self._where.get(reg)
        if e is None:
            return 0
        held = 0
        for w in range(self._warps):
            if self._rmask[e] >> w & 1 and self._version[e][w] == version:
                held |= 1 << w
        return held

    # ------------------------------------------------------------------ per-event API
    def lookup(self, warp: int, reg: int) -> int | None:
        """Version ``warp`` reads for ``reg``, or None (use the private register)."""
        e = self._where.get(reg)
        if e is None or not self._rmask[e] >> warp & 1:
            return None
        return self._version[e][warp]

    def set(self, warp: int, reg: int, version: int) -> RenameWrite:
        """``warp`` now reads ``reg`` at ``version`` (the entry holding ``reg``, else the
        lowest free entry; with neither the table is full and nothing changes)."""
        e = self._where.get(reg)
        before = self._previous(e, warp)
        if e is None:
            free = ~self._valid & self._all_entries
            if not free:
                return RenameWrite(True, False, 0, False)
            e = (free & -free).bit_length() - 1
            self._tag[e] = reg
            self._where[reg] = e
        self._valid |= 1 << e
        if self._per_warp:
            self._rmask[e] |= 1 << warp
            self._version[e][warp] = version
        else:                                   # one version for every warp (paper's 21-bit entry)
            self._rmask[e] = (1 << self._warps) - 1
            self._version[e] = [version] * self._warps
        return before

    def drop(self, warp: int, reg: int) -> RenameWrite:
        """``warp`` reads ``reg`` from its private register again (the paper's organisation
        can only free the whole entry)."""
        e = self._where.get(reg)
        before = self._previous(e, warp)
        if e is not None:
            self._keep(e, self._rmask[e] & ~(1 << warp) if self._per_warp else 0)
        return before

    def clear_warp(self, warp: int) -> None:
        """``warp`` left the majority path: forget all its mappings (no per-warp state in
        the paper's organisation)."""
        if not self._per_warp:
            return
        gone = ~(1 << warp)
        for e in range(self._params.entries):
            if self._valid >> e & 1:
                self._keep(e, self._rmask[e] & gone)

    def flush(self) -> None:
        """Forget every mapping (a new TB in the slot)."""
        for e in range(self._params.entries):
            self._rmask[e] = 0
        self._valid = 0
        self._where.clear()

    # ------------------------------------------------------------------ helpers
    def _previous(self, e, warp) -> RenameWrite:
        """``warp``'s mapping in entry ``e`` (None: no entry holds the register) before a
        write: whether it had one, its version, and whether another warp shares it."""
        if e is None or not self._rmask[e] >> warp & 1:
            return RenameWrite(False, False, 0, False)
        vers = self._version[e]
        old = vers[warp]
        others = self._rmask[e] & ~(1 << warp)
        shared = False
        while others:
            low = others & -others
            if vers[low.bit_length() - 1] == old:
                shared = True
                break
            others ^= low
        return RenameWrite(False, True, old, shared)

    def _keep(self, e, mask) -> None:
        """Entry ``e`` keeps the renamed bits ``mask``; with none it is free again."""
        self._rmask[e] = mask
        if not mask and self._valid >> e & 1:
            self._valid &= ~(1 << e)
            del self._where[self._tag[e]]
