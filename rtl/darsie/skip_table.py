"""DARSIE PC skip table with per-TB majority-path masks (seed 000 §4.3.2, §4.4, §6.3).

Reference model and full semantics: :class:`golden.structures.darsie.skip_table.SkipTable`.

Why not :class:`rtl.common.cam.CAM`: the skip table needs two read (match) ports plus a
third match for the leader's insert, and a one-cycle removal of every IsLoad entry on a
store; the common CAM has one lookup port and invalidates one entry per cycle. Each TB
bank therefore keeps its own tags, valid bits and the same true-LRU age matrix as the
CAM (the golden model reuses :class:`golden.structures.cam.Cam`, so the LRU behaviour is
checked against the common reference), and reuses
:class:`rtl.common.leading_one.LeadingOneDetector` for the lowest free entry.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .ops import SkipOp
from rtl.common.leading_one import LeadingOneDetector
from rtl.common.properties import properties

from ._util import any_of, check_int, encode, index_width, select

__all__ = ["SkipTable", "SkipTableBank"]


class SkipTable(wiring.Component):
    """PC skip table of an SM: ``tbs`` banks of ``entries`` entries, each entry PC + warps
    mask + Sync + IsLoad + LeaderWB, plus one majority-path mask per bank.

    Latency 0: every output is a combinational function of the start-of-cycle state and
    this cycle's inputs; state changes at the next ``sync`` edge. Throughput per cycle:
    two reads, one write-port operation, one store, one global atomic and one majority
    write. Same-cycle order: reads (LRU touch port 0 then 1), ``wr_op``, store, atomic,
    majority write (see the golden model's docstring).

    State per bank: ``entries * (pc_width + warps + 4)`` bits (payload + valid) +
    ``entries * (entries - 1) / 2`` LRU age bits + ``warps`` majority bits.

    Parameters
    ----------
    tbs : int
        TB banks (32 in the paper).
    entries : int
        Entries per TB, at least 2 (8).
    warps : int
        Warps per TB = mask width (32).
    pc_width : int
        PC width (48).

    Attributes
    ----------
    rd0_en, rd1_en : Signal(1), in
        Read port enable.
    rd0_tb, rd1_tb : Signal(tb_width), in
        TB bank probed.
    rd0_pc, rd1_pc : Signal(pc_width), in
        PC probed.
    rd0_hit, rd1_hit : Signal(1), out
        A valid entry of the bank holds the PC (a hit is made most recently used).
    rd0_index, rd1_index : Signal(index_width), out
        Its index (0 on a miss).
    rd0_mask, rd1_mask : Signal(warps), out
        Its warps mask (warps that reached the PC).
    rd0_sync, rd1_sync : Signal(1), out
        Its Sync bit.
    rd0_is_load, rd1_is_load : Signal(1), out
        Its IsLoad bit.
    rd0_leader_wb, rd1_leader_wb : Signal(1), out
        Its LeaderWB bit.
    wr_op : Signal(SkipOp), in
        Write-port operation (:class:`rtl.darsie.ops.SkipOp`, 3 bits: 0 none, 1 alloc,
        2 arrive, 3 leader_wb, 4 invalidate, 5 flush_tb; 6, 7 do nothing).
    wr_tb : Signal(tb_width), in
        Bank of the write-port operation.
    wr_index : Signal(index_width), in
        Entry for arrive / leader_wb / invalidate.
    wr_pc : Signal(pc_width), in
        PC to allocate.
    wr_warp : Signal(warp_width), in
        Leader (alloc) or arriving warp (arrive).
    wr_is_load, wr_sync : Signal(1), in
        IsLoad and Sync of an allocated entry.
    store_en : Signal(1), in
        Bank ``store_tb`` executed a store: free its IsLoad entries.
    store_tb : Signal(tb_width), in
        Storing TB.
    atomic_en : Signal(1), in
        Global communication primitive: free every IsLoad entry of every bank.
    maj_en : Signal(1), in
        Write ``maj_mask`` into bank ``maj_tb``'s majority-path mask.
    maj_tb : Signal(tb_width), in
        Bank of the majority write.
    maj_mask : Signal(warps), in
        New majority-path mask.
    alloc_index : Signal(index_width), out
        Entry the alloc uses (existing, lowest free or LRU victim).
    alloc_hit : Signal(1), out
        The PC was already present: nothing written.
    alloc_evict : Signal(1), out
        The alloc replaced a valid entry.
    alloc_evict_pc : Signal(pc_width), out
        PC of the replaced entry.
    alloc_evict_mask : Signal(warps), out
        Warps mask of the replaced entry (warps to release).
    arrive_mask : Signal(warps), out
        Mask after an arrive on a valid entry.
    arrive_done : Signal(1), out
        That mask covers the majority mask: the entry is freed.
    full : Signal(1), out
        Every entry of bank ``wr_tb`` is valid.
    majority : Signal(warps), out
        Majority-path mask of bank ``wr_tb``.
    """

    def __init__(self, *, tbs: int = 32, entries: int = 8, warps: int = 32, pc_width: int = 48,
                 sync_bit: bool = True):
        # The paper's 82-bit entry (golden SkipTableParams.sync_bit=False) has a golden
        # model only so far (issue 69 item 4, docs/darsie-state-budget.md).
        if sync_bit is not True:
            raise ValueError("SkipTable: only sync_bit=True (the 83-bit entry) has an RTL; "
                             "the paper's 82-bit entry is golden-only")
        self._tbs = check_int("SkipTable", "tbs", tbs, 1)
        self._entries = check_int("SkipTable", "entries", entries, 2)
        self._warps = check_int("SkipTable", "warps", warps, 1)
        self._pc_width = check_int("SkipTable", "pc_width", pc_width, 1)
        tbw, idx, ww = index_width(tbs), index_width(entries), index_width(warps)
        ports = {}
        for k in (0, 1):
            ports.update({f"rd{k}_en": In(1), f"rd{k}_tb": In(tbw), f"rd{k}_pc": In(pc_width),
                          f"rd{k}_hit": Out(1), f"rd{k}_index": Out(idx),
                          f"rd{k}_mask": Out(warps), f"rd{k}_sync": Out(1),
                          f"rd{k}_is_load": Out(1), f"rd{k}_leader_wb": Out(1)})
        ports.update({
            "wr_op": In(SkipOp), "wr_tb": In(tbw), "wr_index": In(idx), "wr_pc": In(pc_width),
            "wr_warp": In(ww), "wr_is_load": In(1), "wr_sync": In(1),
            "store_en": In(1), "store_tb": In(tbw), "atomic_en": In(1),
            "maj_en": In(1), "maj_tb": In(tbw), "maj_mask": In(warps),
            "alloc_index": Out(idx), "alloc_hit": Out(1), "alloc_evict": Out(1),
            "alloc_evict_pc": Out(pc_width), "alloc_evict_mask": Out(warps),
            "arrive_mask": Out(warps), "arrive_done": Out(1),
            "full": Out(1), "majority": Out(warps),
        })
        super().__init__(ports)

    @property
    def tbs(self) -> int:
        return self._tbs

    @property
    def entries(self) -> int:
        return self._entries

    @property
    def warps(self) -> int:
        return self._warps

    @property
    def pc_width(self) -> int:
        return self._pc_width

    def elaborate(self, platform):
        m = Module()
        n, nw = self._entries, self._warps

        warp_bit = Signal(nw)
        m.d.comb += warp_bit.eq(Cat(*[self.wr_warp == w for w in range(nw)]))
        index_sel = Signal(n)
        m.d.comb += index_sel.eq(Cat(*[self.wr_index == i for i in range(n)]))

        banks = []
        for b in range(self._tbs):
            bank = SkipTableBank(entries=n, warps=nw, pc_width=self._pc_width)
            m.submodules[f"bank{b}"] = bank
            banks.append(bank)
            for k in (0, 1):
                m.d.comb += [
                    getattr(bank, f"rd{k}_sel").eq(getattr(self, f"rd{k}_en")
                                                   & (getattr(self, f"rd{k}_tb") == b)),
                    getattr(bank, f"rd{k}_pc").eq(getattr(self, f"rd{k}_pc")),
                ]
            m.d.comb += [
                bank.wsel.eq(self.wr_tb == b),
                bank.wr_op.eq(self.wr_op),
                bank.index_sel.eq(index_sel),
                bank.wr_pc.eq(self.wr_pc),
                bank.warp_bit.eq(warp_bit),
                bank.wr_is_load.eq(self.wr_is_load),
                bank.wr_sync.eq(self.wr_sync),
                bank.drop_loads.eq(self.atomic_en | (self.store_en & (self.store_tb == b))),
                bank.maj_we.eq(self.maj_en & (self.maj_tb == b)),
                bank.maj_mask.eq(self.maj_mask),
            ]

        # Output muxes: at most one bank is selected per port, so OR the banks' gated outputs.
        for k in (0, 1):
            match = any_of([getattr(bk, f"rd{k}_match") for bk in banks])
            m.d.comb += [
                getattr(self, f"rd{k}_hit").eq(match.any()),
                getattr(self, f"rd{k}_index").eq(encode([match[i] for i in range(n)])),
            ]
            for x in ("mask", "sync", "is_load", "leader_wb"):
                m.d.comb += getattr(self, f"rd{k}_{x}").eq(
                    any_of([getattr(bk, f"rd{k}_{x}") for bk in banks]))
        alloc = any_of([bk.alloc_sel for bk in banks])
        m.d.comb += [
            self.alloc_index.eq(encode([alloc[i] for i in range(n)])),
            self.alloc_hit.eq(any_of([bk.alloc_hit for bk in banks])),
            self.alloc_evict.eq(any_of([bk.evict for bk in banks])),
            self.alloc_evict_pc.eq(any_of([bk.evict_pc for bk in banks])),
            self.alloc_evict_mask.eq(any_of([bk.evict_mask for bk in banks])),
            self.arrive_mask.eq(any_of([bk.arrive_mask for bk in banks])),
            self.arrive_done.eq(any_of([bk.arrive_done for bk in banks])),
            self.full.eq(any_of([bk.full for bk in banks])),
            self.majority.eq(any_of([bk.majority for bk in banks])),
        ]

        fv = properties(platform)
        if fv is not None:
            fv.check(m, ~self.arrive_done | ((self.arrive_mask & self.majority) == self.majority),
                     "an entry is freed only when every majority-path warp has arrived",
                     owner=self)
            fv.check(m, ~(self.alloc_hit & self.alloc_evict), "an alloc hit never evicts",
                     owner=self)
            fv.check(m, ~self.alloc_evict | self.full, "an alloc evicts only a full bank",
                     owner=self)
        return m


class SkipTableBank(wiring.Component):
    """One TB's bank of the skip table: ``entries`` entries (PC, warps mask, Sync, IsLoad,
    LeaderWB, valid), the true-LRU age matrix and the TB's majority-path mask.

    :class:`SkipTable` instantiates one per TB slot (32 in the paper) and ORs their gated
    outputs, so the area flow can synthesise one bank and count it ``tbs`` times. The
    inputs are the table's ports already decoded for this bank (``rd0_sel`` = read port 0
    probes this TB, ``wsel`` = the write-port operation targets it, ...); every output is 0
    unless its request selected this bank. Same-cycle order as :class:`SkipTable`.
    """

    def __init__(self, *, entries: int = 8, warps: int = 32, pc_width: int = 48):
        self._entries = check_int("SkipTableBank", "entries", entries, 2)
        self._warps = check_int("SkipTableBank", "warps", warps, 1)
        self._pc_width = check_int("SkipTableBank", "pc_width", pc_width, 1)
        n = entries
        ports = {}
        for k in (0, 1):
            ports.update({f"rd{k}_sel": In(1), f"rd{k}_pc": In(pc_width), f"rd{k}_match": Out(n),
                          f"rd{k}_mask": Out(warps), f"rd{k}_sync": Out(1),
                          f"rd{k}_is_load": Out(1), f"rd{k}_leader_wb": Out(1)})
        ports.update({
            "wsel": In(1), "wr_op": In(SkipOp), "index_sel": In(n), "wr_pc": In(pc_width),
            "warp_bit": In(warps), "wr_is_load": In(1), "wr_sync": In(1),
            "drop_loads": In(1), "maj_we": In(1), "maj_mask": In(warps),
            "alloc_sel": Out(n), "alloc_hit": Out(1), "evict": Out(1),
            "evict_pc": Out(pc_width), "evict_mask": Out(warps),
            "arrive_mask": Out(warps), "arrive_done": Out(1), "full": Out(1), "majority": Out(warps),
        })
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        n, nw = self._entries, self._warps
        all_warps = (1 << nw) - 1
        wsel = self.wsel
        op_alloc = self.wr_op == SkipOp.ALLOC
        op_arrive = self.wr_op == SkipOp.ARRIVE
        op_wb = self.wr_op == SkipOp.LEADER_WB
        op_inv = self.wr_op == SkipOp.INVALIDATE
        op_flush = self.wr_op == SkipOp.FLUSH_TB
        index_sel = [self.index_sel[i] for i in range(n)]

        tags = [Signal(self._pc_width, name=f"pc_{i}") for i in range(n)]
        valid = [Signal(name=f"valid_{i}") for i in range(n)]
        mask = [Signal(nw, name=f"mask_{i}") for i in range(n)]
        sync = [Signal(name=f"sync_{i}") for i in range(n)]
        is_load = [Signal(name=f"is_load_{i}") for i in range(n)]
        leader_wb = [Signal(name=f"leader_wb_{i}") for i in range(n)]
        majority = Signal(nw, init=all_warps, name="majority_mask")
        older = {(i, j): Signal(init=1, name=f"older_{i}_{j}")
                 for i in range(n) for j in range(i + 1, n)}

        def touch(age, onehot, stage):
            new = {}
            for (i, j), old in age.items():
                sig = Signal(name=f"older_{i}_{j}_{stage}")
                m.d.comb += sig.eq(Mux(onehot[i], 0, Mux(onehot[j], 1, old)))
                new[i, j] = sig
            return new

        def is_older(age, i, j):
            return age[i, j] if i < j else ~age[j, i]

        # (1) reads, each touching its hit entry.
        age = older
        for k in (0, 1):
            sel, pc = getattr(self, f"rd{k}_sel"), getattr(self, f"rd{k}_pc")
            match = [Signal(name=f"rd{k}_match_{i}") for i in range(n)]
            for i in range(n):
                m.d.comb += match[i].eq(sel & valid[i] & (tags[i] == pc))
            m.d.comb += [
                getattr(self, f"rd{k}_match").eq(Cat(*match)),
                getattr(self, f"rd{k}_mask").eq(select(match, mask, nw)),
                getattr(self, f"rd{k}_sync").eq(select(match, sync, 1)),
                getattr(self, f"rd{k}_is_load").eq(select(match, is_load, 1)),
                getattr(self, f"rd{k}_leader_wb").eq(select(match, leader_wb, 1)),
            ]
            age = touch(age, match, f"rd{k}")

        # (2) write port.
        m.d.comb += [self.full.eq(wsel & Cat(*valid).all()),
                     self.majority.eq(Mux(wsel, majority, 0))]
        alloc_en = wsel & op_alloc
        ins_match = [Signal(name=f"ins_match_{i}") for i in range(n)]
        victim = [Signal(name=f"victim_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += [
                ins_match[i].eq(valid[i] & (tags[i] == self.wr_pc)),
                victim[i].eq(Cat(*[is_older(age, i, j) for j in range(n) if j != i]).all()),
            ]
        lod = LeadingOneDetector(width=n)
        m.submodules.free = lod
        m.d.comb += lod.bits.eq(~Cat(*valid))
        any_match = Signal(name="ins_any_match")
        m.d.comb += any_match.eq(any_of(ins_match))
        evict = Signal(name="evict_now")
        m.d.comb += evict.eq(alloc_en & ~any_match & ~lod.valid)
        alloc_sel = [Signal(name=f"alloc_sel_{i}") for i in range(n)]
        alloc_new = [Signal(name=f"alloc_new_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += [
                alloc_sel[i].eq(alloc_en & Mux(any_match, ins_match[i],
                                               Mux(lod.valid, lod.onehot[i], victim[i]))),
                alloc_new[i].eq(alloc_sel[i] & ~any_match),
            ]
        ev = [evict & victim[i] for i in range(n)]
        m.d.comb += [
            self.alloc_sel.eq(Cat(*alloc_sel)),
            self.alloc_hit.eq(alloc_en & any_match),
            self.evict.eq(evict),
            self.evict_pc.eq(select(ev, tags, self._pc_width)),
            self.evict_mask.eq(select(ev, mask, nw)),
        ]

        arrive = [Signal(name=f"arrive_{i}") for i in range(n)]
        new_mask = [Signal(nw, name=f"new_mask_{i}") for i in range(n)]
        done = [Signal(name=f"done_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += [
                arrive[i].eq(wsel & op_arrive & index_sel[i] & valid[i]),
                new_mask[i].eq(mask[i] | self.warp_bit),
                done[i].eq((new_mask[i] & majority) == majority),
            ]
        m.d.comb += [
            self.arrive_mask.eq(select(arrive, new_mask, nw)),
            self.arrive_done.eq(any_of([a & d for a, d in zip(arrive, done)])),
        ]

        # (3)-(4) store / atomic: free IsLoad entries after the write-port operation.
        drop = self.drop_loads
        for i in range(n):
            kept = (valid[i] & ~(wsel & op_inv & index_sel[i]) & ~(wsel & op_flush)
                    & ~(arrive[i] & done[i]))
            valid_w = kept | alloc_sel[i]
            load_w = Mux(alloc_new[i], self.wr_is_load, is_load[i])
            m.d.sync += valid[i].eq(valid_w & ~(drop & load_w))
            with m.If(alloc_new[i]):
                m.d.sync += [tags[i].eq(self.wr_pc), mask[i].eq(self.warp_bit),
                             sync[i].eq(self.wr_sync), is_load[i].eq(self.wr_is_load),
                             leader_wb[i].eq(0)]
            with m.Elif(arrive[i]):
                m.d.sync += mask[i].eq(new_mask[i])
            with m.Elif(wsel & op_wb & index_sel[i] & valid[i]):
                m.d.sync += leader_wb[i].eq(1)

        # (5) majority write (after a flush's all-ones).
        with m.If(self.maj_we):
            m.d.sync += majority.eq(self.maj_mask)
        with m.Elif(wsel & op_flush):
            m.d.sync += majority.eq(all_warps)

        age_next = touch(age, alloc_sel, "alloc")
        for key, sig in older.items():
            m.d.sync += sig.eq(age_next[key])

        fv = properties(platform)
        if fv is not None:
            for i in range(n):
                for j in range(i + 1, n):
                    fv.check(m, ~(valid[i] & valid[j] & (tags[i] == tags[j])),
                             "at most one valid entry per PC", owner=self)
            fv.check(m, sum(victim) == 1, "exactly one LRU victim", owner=self)
            if n >= 3:
                for i in range(n):
                    read = self.rd0_match[i] | self.rd1_match[i]
                    fv.check(m, ~read | ~victim[i], "an entry read this cycle is not the LRU victim",
                             owner=self)
            for i in range(n):
                kept_i = (valid[i] & ~(wsel & op_inv & index_sel[i]) & ~(wsel & op_flush)
                          & ~(arrive[i] & done[i]))
                stays = fv.past(m, kept_i & ~alloc_new[i] & ~(drop & is_load[i]), f"stays_{i}")
                was = fv.past(m, mask[i], f"mask_{i}")
                fv.check(m, ~stays | ((mask[i] & was) == was),
                         "an entry's arrival mask only grows until it is freed", owner=self)
                fv.check(m, ~stays | valid[i], "an entry neither freed nor replaced stays valid",
                         owner=self)
            dropped = fv.past(m, drop, "drop_loads")
            fv.check(m, ~dropped | ~any_of([valid[i] & is_load[i] for i in range(n)]),
                     "no IsLoad entry survives a store or atomic", owner=self)
            flushed = fv.past(m, wsel & op_flush & ~self.maj_we, "flush")
            fv.check(m, ~flushed | ((~Cat(*valid) == (1 << n) - 1) & (majority == all_warps)),
                     "a TB flush empties the bank and resets the majority mask", owner=self)
        return m
