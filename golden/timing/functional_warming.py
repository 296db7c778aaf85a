"""Functional warming: the memory accesses of fast-forwarded thread blocks update the cache
tags (and DRAM open rows), without timing.

Thread-block sampling (:mod:`golden.timing.tb_sampling`) runs the skipped units' TBs on the
functional executor. Without warming their loads and stores never reach the L1s, the L2 or
DRAM, so the next detailed unit meets the memory state the last *detailed* TBs left: for a
streaming kernel the L2 lacks the dirty lines that the skipped waves wrote, and the
detailed intervals are those of a colder GPU than the full run's at the same point. This is
SMARTS's *functional warming* (Wunderlich et al., ISCA 2003, sec. 4: "large-structure
state" is kept warm during fast-forwarding) applied to GPU thread blocks, as TBPoint
assumes for its skipped TBs.

:class:`FunctionalWarmer` stores the TB -> SM placement of the TBs being fast-forwarded and
counts what it replayed (``counts``). It is called by the functional executor's memory tap
(:attr:`golden.simt.engine.FunctionalLaunch.mem_tap`) with each warp memory access in the
order the executor runs them. For each warp it does what the SM's memory port and the
hierarchy do to *state*, not to time or counters:

* the address space as :meth:`golden.timing.sm.SM._mem_request` resolves it (generic ->
  shared/local/global by window; local addresses interleaved per thread at
  ``LOCAL_TIMING_BASE``), bytes per lane times the vector width;
* coalescing by the hierarchy's own :class:`~golden.timing.memory.coalescer.Coalescer`
  into line transactions with sector masks (what the L1 port sees);
* loads: the SM's L1 tags (looked up; missing sectors -- the whole line with
  ``fetch_line`` -- filled at once: allocate-on-fill with no fill latency), then the L2
  for what the L1 missed; global loads bypass the L1 when ``cache_global_loads`` is false;
* stores: L1 write-through, no allocate (a resident line gets the sectors); L2 write-back:
  a hit or a ``lazy_fetch_on_read`` miss makes the sectors valid and dirty, a
  ``write_allocate`` miss fills the line's fetch mask clean (the write went to DRAM);
* atomics: the line leaves the L1; the L2 reads it (fill on miss) and the sectors are dirty;
* L2 misses fill the slice's tags (sectors per the L2's fetch policy); an evicted dirty
  line and every DRAM read/write leave their DRAM bank with that row open
  (``dram_rows``; bank timing fields are not touched).

* const/param loads: the SM's constant cache; its misses read the L2 like a load.

Not warmed (simplifications): shared memory (no state across TBs), MSHRs, queues and calendars (transient, not state that outlives a wave), the coarse-L1 fetch
groups (warmed as single lines). The ordering inside a skipped unit is the functional
executor's (PC groups of a wave), not the cycle-level interleaving, so the LRU order can
differ from a full run's; the set of resident lines equals it whenever no set overflows
(``tests/test_functional_warming.py``). No counter of the timing statistics changes.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from golden.simt.memory import LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE
from golden.timing.memory.const_cache import CONST_BASE, PARAM_BASE
from golden.timing.sm import LOCAL_TIMING_BASE

_U4 = np.uint64(4)


class FunctionalWarmer:
    """Replays fast-forwarded warps' memory accesses into ``memory``'s tags (module
    docstring). ``threads``: the launch's thread slots (``num_tbs x warps per TB x 32``,
    for the local-memory interleave); ``dram_rows``: also open the DRAM rows."""

    def __init__(self, memory, threads: int, *, dram_rows: bool = True):
        self.memory = memory
        self.threads = np.uint64(threads)
        self.dram_rows = dram_rows
        #: linear TB id -> SM id of the TBs being fast-forwarded (set by :meth:`place`)
        self.tb_sm: dict[int, int] = {}
        #: replayed work: warp accesses, transactions, L1/L2 misses filled, DRAM rows opened
        self.counts: Counter = Counter()
        cfg = memory._cfg.memory
        self._cache_global = cfg.l1.cache_global_loads
        l2 = memory.l2
        self._l2 = l2
        self._write_alloc = l2._write_alloc
        self._sector = l2.sector_bytes

    def place(self, tb_ids, sm_ids) -> None:
        """TB ``tb_ids[i]`` runs on SM ``sm_ids[i]`` (whose L1 its accesses warm)."""
        self.tb_sm.update(zip((int(t) for t in tb_ids), (int(s) for s in sm_ids)))

    # ------------------------------------------------------------------ the tap
    def __call__(self, w, warps, mem, vec: int) -> None:
        """The executor's memory tap: ``warps`` (a wave warp index or an array of them) ran
        ``mem`` (lanes in warp order)."""
        if isinstance(warps, (int, np.integer)):
            warps = (int(warps),)
        wpt = w.wpt
        tb_ids = w.tb_ids
        addrs_all, act_all = mem.addrs, mem.active
        for i, x in enumerate(warps):
            x = int(x)
            act = act_all[i * 32:i * 32 + 32]
            if not act.any():
                continue
            tb = int(tb_ids[x // wpt])
            self.warp_access(self.tb_sm[tb], tb * wpt + x % wpt, mem.space,
                             addrs_all[i * 32:i * 32 + 32], act, mem.size, vec,
                             mem.is_store, mem.is_atomic)

    def warp_access(self, sm_id: int, gid: int, space: str, addrs, active, size: int,
                    vec: int, is_store: bool, is_atomic: bool) -> None:
        """One warp's access (``gid``: the launch's warp id, ``size``: bytes per lane of
        one vector element) applied to SM ``sm_id``'s L1, the L2 and DRAM rows."""
        if space == "generic":
            first = int(addrs[active][0])
            if SHARED_WINDOW <= first < SHARED_WINDOW + WINDOW_SIZE:
                return
            if LOCAL_WINDOW <= first < LOCAL_WINDOW + WINDOW_SIZE:
                space, addrs = "local", addrs - np.uint64(LOCAL_WINDOW)
            else:
                space = "global"
        if space == "shared":
            return
        if space in ("const", "param") and not is_store and not is_atomic:
            self._const_load(sm_id, space, addrs, active, size * vec)
            return
        if space == "local":
            t = np.uint64(gid * 32) + np.arange(32, dtype=np.uint64)
            addrs = (np.uint64(LOCAL_TIMING_BASE) + ((addrs // _U4) * self.threads + t) * _U4
                     + addrs % _U4)
            nbytes = size
        else:
            nbytes = size * vec
        txs = self.memory.coalescer.coalesce(np.ascontiguousarray(addrs, dtype=np.uint64),
                                             active, nbytes)
        c = self.counts
        c["warp_accesses"] += 1
        c["transactions"] += len(txs)
        l1 = self.memory.l1[sm_id]
        tags = l1.tags
        if is_atomic:
            for tx in txs:
                tags.invalidate(tx.line_addr)
                self._l2_read(tx.line_addr, tx.sector_mask, dirty=True)
            return
        if is_store:
            for tx in txs:
                if tags.probe(tx.line_addr) is not None:
                    tags.fill(tx.line_addr, tx.sector_mask)
                self._l2_write(tx.line_addr, tx.sector_mask)
            return
        bypass = (space == "global" and not self._cache_global) or not tags.enabled
        for tx in txs:
            line = tx.line_addr
            if bypass:
                self._l2_read(line, tx.sector_mask)
                continue
            missing = tags.lookup(line, tx.sector_mask)
            if not missing:
                continue
            if l1.fetch_line:
                missing = l1._line_missing(line)
            tags.fill(line, missing)
            c["l1_fills"] += 1
            self._l2_read(line, missing)

    def _const_load(self, sm_id: int, space: str, addrs, active, nbytes: int) -> None:
        """A const/param load: the SM's constant cache, its misses read from the L2 (as
        :meth:`MemoryHierarchy._const_load`; the cache's own hit/miss tallies are kept)."""
        cc = self.memory.const[sm_id]
        hits, misses = cc.hits, cc.misses
        base = CONST_BASE if space == "const" else PARAM_BASE
        line_b = self._l2._line
        n = max(1, cc.line_bytes // self._sector)
        for line in cc.lines(addrs, active, nbytes):
            if cc.lookup(line):
                continue
            addr = base + line
            l2_line = addr - addr % line_b
            self._l2_read(l2_line, ((1 << n) - 1) << ((addr - l2_line) // self._sector))
        cc.hits, cc.misses = hits, misses

    # ------------------------------------------------------------------ L2 and DRAM
    def _slice(self, line: int):
        return self._l2.slices[self._l2.slice_of(line)]

    def _l2_fill(self, sl, line: int, sectors: int, dirty: bool) -> None:
        victim = sl.tags.fill(line, sectors, dirty=dirty)
        if victim is not None and victim[1].dirty:
            self.counts["l2_dirty_evictions"] += 1
            self._open_row(victim[0])

    def _l2_read(self, line: int, sectors: int, dirty: bool = False) -> None:
        sl = self._slice(line)
        missing = sl.tags.lookup(line, sectors)
        if missing:
            self.counts["l2_fills"] += 1
            self._l2_fill(sl, line, self._l2._fetch_mask(sl, line, missing), False)
            self._open_row(line)
        if dirty:
            st = sl.tags.probe(line)
            if st is not None:
                st.dirty |= sectors & st.valid

    def _l2_write(self, line: int, sectors: int) -> None:
        sl = self._slice(line)
        if sl.tags.probe(line) is not None or not self._write_alloc:
            self._l2_fill(sl, line, sectors, True)
            return
        self._open_row(line)        # the write itself goes on to DRAM
        self.counts["l2_fills"] += 1
        self._l2_fill(sl, line, self._l2._fetch_mask(sl, line, sectors), False)

    def _open_row(self, addr: int) -> None:
        if not self.dram_rows:
            return
        dram = self.memory.dram
        ch, bank, row, _ = dram.locate(addr)
        b = dram.channels[ch].banks[bank]
        if b.open_row != row:
            b.open_row = row
            self.counts["dram_rows_opened"] += 1
