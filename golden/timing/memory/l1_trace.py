"""Observing the L1 data caches' accesses: the observer protocol and a recorder.

An *L1 observer* is any callable attached with
:meth:`~golden.timing.memory.hierarchy.MemoryHierarchy.add_l1_observer` (or, for every
launch of a GPU, by appending it to :attr:`golden.timing.gpu.GPU.memory_observers`). The
hierarchy calls it once per warp memory instruction that its L1 port *accepts* on the
global/local path (a reservation fail that is retried is reported once, when accepted;
shared, const and param accesses do not use the L1 tags and are not reported)::

    observer(sm_id, cycle, warp_id, kind, space, txs)

* ``cycle``: the cycle the L1 port takes the first transaction; transaction ``i`` is
  looked up at ``cycle + i``;
* ``kind``: ``"load"``, ``"load_bypass"`` (a global load with
  ``l1.cache_global_loads: false``: it takes the port but not the tags), ``"store"`` or
  ``"atomic"``;
* ``space``: ``"global"`` or ``"local"`` (or ``"const"``/``"param"`` for stores);
* ``txs``: the coalesced :class:`~golden.timing.memory.coalescer.Transaction` s in port
  order (aligned line address, touched-sector mask, lane mask).

The observer is called before the L1 serves the access and must not change the
hierarchy; observing never changes timing or statistics. With no observer attached the
hierarchy's only cost is one test of an empty tuple per access.

:class:`L1AccessRecorder` is the observer that keeps the trace (one row per transaction)
and turns it into the address trace of the ch. 5 locality measure
(:mod:`golden.analysis.locality`).
"""

from __future__ import annotations

import numpy as np

from golden.errors import SimtlabError

#: the ``kind`` strings an observer receives, in the recorder's code order
KINDS = ("load", "load_bypass", "store", "atomic")
_KIND_CODE = {k: i for i, k in enumerate(KINDS)}


class L1AccessRecorder:
    """Records every L1 transaction it observes: SM, port cycle, warp, kind, line, sectors.

    ``kinds``: the access kinds to keep (default: all of :data:`KINDS`).
    """

    def __init__(self, kinds=KINDS):
        bad = [k for k in kinds if k not in _KIND_CODE]
        if bad:
            raise SimtlabError(f"unknown L1 access kind(s) {bad}; known: {', '.join(KINDS)}")
        self._keep = frozenset(_KIND_CODE[k] for k in kinds)
        self._rows: list[tuple[int, int, int, int, int, int]] = []

    def __call__(self, sm_id: int, cycle: int, warp_id: int, kind: str, space: str,
                 txs) -> None:
        code = _KIND_CODE[kind]
        if code not in self._keep:
            return
        rows = self._rows
        for i, tx in enumerate(txs):
            rows.append((sm_id, cycle + i, warp_id, code, tx.line_addr, tx.sector_mask))

    def __len__(self) -> int:
        return len(self._rows)

    def clear(self) -> None:
        self._rows.clear()

    def table(self) -> dict[str, np.ndarray]:
        """The trace as columns (``sm``, ``cycle``, ``warp``, ``kind`` code into
        :data:`KINDS`, ``line`` byte address, ``sectors`` mask), in observation order."""
        cols = ("sm", "cycle", "warp", "kind", "line", "sectors")
        if not self._rows:
            return {c: np.zeros(0, dtype=np.int64) for c in cols}
        arr = np.array(self._rows, dtype=np.int64)
        return {c: arr[:, i] for i, c in enumerate(cols)}

    def addresses(self, unit: str = "line", sector_bytes: int = 32,
                  order: str = "cycle") -> tuple[np.ndarray, np.ndarray]:
        """``(byte addresses, SM ids)`` of the recorded accesses, for the locality measure.

        ``unit="line"``: one access per transaction at its line address (what the L1
        port looks up); ``unit="sector"``: one access per touched sector (``sector_bytes``
        each) at the sector's address, in ascending sector order within a transaction.
        ``order="cycle"`` sorts by port cycle (stable: SMs observed in the same cycle keep
        call order), ``"call"`` keeps observation order.
        """
        if unit not in ("line", "sector"):
            raise SimtlabError(f"unit must be 'line' or 'sector', not {unit!r}")
        if order not in ("cycle", "call"):
            raise SimtlabError(f"order must be 'cycle' or 'call', not {order!r}")
        t = self.table()
        idx = np.argsort(t["cycle"], kind="stable") if order == "cycle" else np.arange(len(self))
        line, sm = t["line"][idx], t["sm"][idx]
        if unit == "line":
            return line, sm
        sectors = t["sectors"][idx]
        width = max(1, int(sectors.max()).bit_length()) if sectors.size else 1
        bits = (sectors[:, None] >> np.arange(width)[None, :]) & 1       # (tx, sector)
        tx_i, sec_i = np.nonzero(bits)                                   # row-major order
        return line[tx_i] + sec_i * sector_bytes, sm[tx_i]
