"""CAPRI compaction-adequacy prediction table (CAPT) of one core (seed 004 §3.1, §3.3,
§5.5; paper-facts §7.2, §7.3).

Reference model, port for port and cycle for cycle:
:class:`golden.structures.capri.capt.Capt` (its docstring gives the per-cycle order and
the history policies). Storage, all flip-flops:

* per entry the BADDR tag (``pc_bits`` = 32), the history (1 bit for ``1bL``/``1bS``, 2
  for ``2bit``) and ``valid``: 34 x entries bits, the paper's 272 bits at 8 entries and
  1,088 at 32. Tags and histories are not reset (an invalid entry is never observed; an
  allocation writes both); ``valid`` is;
* a true-LRU age matrix of ``entries x (entries - 1) / 2`` bits (``older_i_j`` = entry
  ``i`` used less recently than ``j``; reset: entry 0 least recently used), as in
  :class:`rtl.common.cam.CAM`. Not in the paper's count.

Logic: two associative searches (lookup port and update port, ``entries`` x ``pc_bits``
comparators each; the paper notes that the lookup may overlap branch execution), the
history-update function of the policy, a leading-one detector for the lowest invalid
entry, the LRU victim from the age matrix and the victim's tag mux for ``evict_pc``.
Under ``1bS`` the history bit is written 1 on allocation and never changes (synthesis
keeps it as a constant).

Latency: every output is combinational on the start-of-cycle state (0 cycles); the LRU
touch, the history update, the flush and the allocation take effect at the next edge.
Throughput: one lookup (with allocation), one update and one flush per cycle.
"""

from __future__ import annotations

from functools import reduce
from operator import and_

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.leading_one import LeadingOneDetector
from rtl.common.properties import properties
from rtl.darsie._util import any_of, check_int, select

__all__ = ["POLICIES", "Capt"]

POLICIES = ("1bL", "1bS", "2bit")


class Capt(wiring.Component):
    """Compaction-adequacy prediction table (see module docstring).

    Parameters
    ----------
    entries : int
        Entries, >= 2 (32, the paper's default; 8 is the paper's cost example).
    policy : str
        History policy: ``"1bL"`` (1b-Latest), ``"1bS"`` (1b-Sticky) or ``"2bit"``
        (saturating counter, MSB predicts adequate, new entries start at binary 10).
    pc_bits : int
        Width of the BADDR tag (32).

    Ports
    -----
    lookup_en, lookup_pc, alloc_en : In
        A divergent warp looks up its branch PC; on a miss with ``alloc_en`` an entry is
        allocated (first invalid, else LRU) with history = adequate.
    update_en, update_pc, update_adequate : In
        The WCU's adequacy outcome for a branch; the entry's history follows the policy.
    flush : In(1)
        Kernel end: invalidate every entry.
    hit, hit_history : Out
        The lookup hit; the hit entry's history (0 on a miss).
    predict_adequate : Out(1)
        The history's MSB on a hit, 1 on a miss (the warp stalls); 0 without lookup_en.
    alloc, evict, evict_pc : Out
        An entry was allocated; it replaced a valid entry; that entry's BADDR.
    update_hit : Out(1)
        A valid entry held ``update_pc``.

    The ports are the fields of :class:`golden.structures.capri.CaptOps` (inputs) and
    :class:`golden.structures.capri.CaptOutputs` (outputs).
    """

    def __init__(self, *, entries: int = 32, policy: str = "1bL", pc_bits: int = 32):
        self._entries = check_int("Capt", "entries", entries, 2)
        if policy not in POLICIES:
            raise ValueError(f"Capt policy must be one of {POLICIES}, not {policy!r}")
        self._policy = policy
        self._pc_bits = check_int("Capt", "pc_bits", pc_bits, 1)
        hb = self.history_bits
        super().__init__({
            "lookup_en": In(1), "lookup_pc": In(pc_bits), "alloc_en": In(1),
            "update_en": In(1), "update_pc": In(pc_bits), "update_adequate": In(1),
            "flush": In(1),
            "hit": Out(1), "hit_history": Out(hb), "predict_adequate": Out(1),
            "alloc": Out(1), "evict": Out(1), "evict_pc": Out(pc_bits), "update_hit": Out(1),
        })

    @property
    def entries(self) -> int:
        return self._entries

    @property
    def policy(self) -> str:
        return self._policy

    @property
    def history_bits(self) -> int:
        """1 for 1bL and 1bS, 2 for 2bit."""
        return 2 if self._policy == "2bit" else 1

    def _next_history(self, h, adequate):
        if self._policy == "1bL":
            return adequate
        if self._policy == "2bit":
            return Mux(adequate, Mux(h == 3, 3, h + 1), Mux(h == 0, 0, h - 1))
        return h                                           # 1bS: sticky

    def elaborate(self, platform):
        m = Module()
        n, hb = self._entries, self.history_bits
        init = 2 if self._policy == "2bit" else 1
        tags = [Signal(self._pc_bits, name=f"baddr{i}", reset_less=True) for i in range(n)]
        hist = [Signal(hb, name=f"history{i}", reset_less=True) for i in range(n)]
        valid = [Signal(name=f"valid{i}") for i in range(n)]
        older = {(i, j): Signal(init=1, name=f"older_{i}_{j}")
                 for i in range(n) for j in range(i + 1, n)}

        def touch(age, enable, onehot, stage):
            new = {}
            for (i, j), old in age.items():
                sig = Signal(name=f"older_{i}_{j}_{stage}")
                m.d.comb += sig.eq(Mux(enable & onehot[i], 0, Mux(enable & onehot[j], 1, old)))
                new[i, j] = sig
            return new

        def is_older(age, i, j):
            return age[i, j] if i < j else ~age[j, i]

        # 1. lookup on the start-of-cycle contents, LRU touch on a hit
        lk = [Signal(name=f"lookup_match{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += lk[i].eq(self.lookup_en & valid[i] & (tags[i] == self.lookup_pc))
        hit = Signal()
        hit_hist = Signal(hb)
        m.d.comb += [hit.eq(any_of(lk)), hit_hist.eq(select(lk, hist, hb))]
        m.d.comb += [
            self.hit.eq(hit),
            self.hit_history.eq(hit_hist),
            self.predict_adequate.eq(Mux(hit, hit_hist[hb - 1], self.lookup_en)),
        ]
        age_looked = touch(older, hit, lk, "looked")

        # 2. update port: second associative search, history per the policy
        up = [Signal(name=f"update_match{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += up[i].eq(self.update_en & valid[i] & (tags[i] == self.update_pc))
        m.d.comb += self.update_hit.eq(any_of(up))

        # 3. flush, 4. allocation on a miss: lowest invalid entry, else the LRU victim
        kept = [Signal(name=f"valid_kept{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += kept[i].eq(valid[i] & ~self.flush)
        m.submodules.free_lod = free = LeadingOneDetector(width=n)
        m.d.comb += free.bits.eq(~Cat(*kept))
        victim = [Signal(name=f"victim{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += victim[i].eq(reduce(and_, [is_older(age_looked, i, j)
                                                   for j in range(n) if j != i]))
        alloc = Signal()
        evict = Signal()
        sel = [Signal(name=f"alloc_sel{i}") for i in range(n)]
        m.d.comb += [alloc.eq(self.lookup_en & self.alloc_en & ~hit),
                     evict.eq(alloc & ~free.valid)]
        for i in range(n):
            m.d.comb += sel[i].eq(alloc & Mux(free.valid, free.onehot[i], victim[i]))
        m.d.comb += [
            self.alloc.eq(alloc),
            self.evict.eq(evict),
            self.evict_pc.eq(Mux(evict, select(victim, tags, self._pc_bits), 0)),
        ]

        # next state
        age_next = touch(age_looked, alloc, sel, "alloc")
        for key, sig in older.items():
            m.d.sync += sig.eq(age_next[key])
        for i in range(n):
            m.d.sync += valid[i].eq(kept[i] | sel[i])
            with m.If(sel[i]):
                m.d.sync += [tags[i].eq(self.lookup_pc), hist[i].eq(init)]
            with m.Elif(up[i]):
                m.d.sync += hist[i].eq(self._next_history(hist[i], self.update_adequate))

        fv = properties(platform)
        if fv is not None:
            for i in range(n):
                for j in range(i + 1, n):
                    fv.check(m, ~(valid[i] & valid[j] & (tags[i] == tags[j])),
                             "at most one valid entry per branch PC", owner=self)
            fv.check(m, sum(victim) == 1, "exactly one LRU victim", owner=self)
            fv.check(m, ~self.lookup_en | hit | self.predict_adequate,
                     "a miss predicts adequate (compact on a miss)", owner=self)
            fv.check(m, ~hit | (self.predict_adequate == hit_hist[hb - 1]),
                     "a hit predicts from the history's top bit", owner=self)
            fv.check(m, ~evict | Cat(*kept).all(), "an allocation evicts only a full table",
                     owner=self)
            allocated = fv.past(m, alloc, "alloc")
            was_pc = fv.past(m, self.lookup_pc, "alloc_pc")
            fv.check(m, ~allocated | any_of([valid[i] & (tags[i] == was_pc) & (hist[i] == init)
                                             for i in range(n)]),
                     "an allocated entry holds its PC with the initial history", owner=self)
        return m
