"""Fully associative CAM with valid bits and true-LRU replacement (tags only).

The instruction reuse buffer (seed 002 §2.4.3), the CAPT (seed 004 §3.1) and DARSIE's
PC skip table (seed 000 §4.3.2) are built on it: they keep their payload in a separate
array indexed by the entry index this CAM returns. Reference model:
:class:`golden.structures.cam.Cam`.
"""

from __future__ import annotations

from functools import reduce
from operator import and_, or_

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.leading_one import LeadingOneDetector
from rtl.common.params import check_int
from rtl.common.properties import properties

__all__ = ["CAM"]


class CAM(wiring.Component):
    """Fully associative CAM of ``entries`` tags with valid bits and true LRU.

    Storage is clocked (``sync`` domain). All outputs are combinational functions of the
    current contents and of this cycle's inputs (latency 0 cycles); every state change
    happens at the next clock edge (visible 1 cycle later). Throughput: one lookup, one
    insert, one invalidate-by-index, one invalidate-by-tag and one flush per cycle.

    Same-cycle order. The requests of one cycle are applied in this order, each seeing
    the effect of the previous ones: (1) lookup on the start-of-cycle contents, with an
    optional LRU touch of the hit entry; (2) flush; (3) invalidate by index;
    (4) invalidate by tag; (5) insert. So a flush together with an insert leaves only the
    inserted tag, in entry 0; an insert never evicts an entry invalidated in the same
    cycle while a free entry exists; and a touching lookup hit makes its entry MRU before
    the insert chooses its LRU victim.

    Insert. If a valid entry already holds ``insert_tag`` it is reused (``insert_hit``,
    nothing written, no eviction). Otherwise the lowest-indexed invalid entry is filled,
    or, when all entries are valid, the least recently used one is evicted
    (``insert_evict``, old tag on ``insert_evict_tag``). Valid tags are thus unique.

    LRU. A total recency order over all entries, kept as an age matrix of
    ``entries * (entries - 1) / 2`` flip-flops (``older_i_j`` set = entry ``i`` was used
    less recently than entry ``j``). Only a lookup hit with ``lookup_touch`` and an insert
    (hit, fill or eviction) make an entry most recently used; a same-cycle insert is
    applied after the lookup touch, so the inserted entry ends as MRU. Flush and
    invalidation do not change the order. Reset order: entry 0 least recently used.

    Parameters
    ----------
    entries : int
        Number of entries, at least 2.
    tag_width : int
        Tag width in bits, at least 1.

    Attributes
    ----------
    lookup_tag : Signal(tag_width), in
        Tag to search for. Lookup is always active.
    lookup_touch : Signal(1), in
        On a lookup hit, make the hit entry most recently used at the next edge.
    hit : Signal(1), out
        A valid entry holds ``lookup_tag`` (start-of-cycle contents).
    hit_index : Signal(range(entries)), out
        Index of that entry; 0 on a miss.
    insert_en : Signal(1), in
        Insert ``insert_tag`` at the next edge.
    insert_tag : Signal(tag_width), in
        Tag to insert.
    insert_index : Signal(range(entries)), out
        Entry the insert uses (existing, lowest free, or LRU victim); 0 without ``insert_en``.
    insert_hit : Signal(1), out
        The tag was already present; the existing entry is reused.
    insert_evict : Signal(1), out
        The insert replaces a valid entry (all entries were valid and the tag absent).
    insert_evict_tag : Signal(tag_width), out
        Tag of the evicted entry; 0 when ``insert_evict`` is low.
    inv_index_en : Signal(1), in
        Invalidate entry ``inv_index`` at the next edge.
    inv_index : Signal(range(entries)), in
        Entry to invalidate; a value ``>= entries`` has no effect.
    inv_tag_en : Signal(1), in
        Invalidate the entry holding ``inv_tag`` (if any) at the next edge.
    inv_tag : Signal(tag_width), in
        Tag to invalidate.
    inv_tag_hit : Signal(1), out
        ``inv_tag_en`` and an entry still valid after steps (2)-(3) held ``inv_tag``.
    flush : Signal(1), in
        Invalidate every entry at the next edge.
    valid : Signal(entries), out
        Valid bits at the start of the cycle (bit ``i`` = entry ``i``).
    """

    def __init__(self, *, entries: int, tag_width: int):
        self._entries = check_int("CAM", "entries", entries, 2)
        self._tag_width = check_int("CAM", "tag_width", tag_width, 1)
        index = range(entries)
        super().__init__({
            "lookup_tag": In(tag_width),
            "lookup_touch": In(1),
            "hit": Out(1),
            "hit_index": Out(index),
            "insert_en": In(1),
            "insert_tag": In(tag_width),
            "insert_index": Out(index),
            "insert_hit": Out(1),
            "insert_evict": Out(1),
            "insert_evict_tag": Out(tag_width),
            "inv_index_en": In(1),
            "inv_index": In(index),
            "inv_tag_en": In(1),
            "inv_tag": In(tag_width),
            "inv_tag_hit": Out(1),
            "flush": In(1),
            "valid": Out(entries),
        })

    @property
    def entries(self) -> int:
        return self._entries

    @property
    def tag_width(self) -> int:
        return self._tag_width

    def elaborate(self, platform):
        m = Module()
        n = self._entries

        tags = [Signal(self._tag_width, name=f"tag_{i}") for i in range(n)]
        valid = [Signal(name=f"valid_{i}") for i in range(n)]
        # Age matrix, upper triangle only: older[i, j] (i < j) = entry i less recently used.
        older = {(i, j): Signal(init=1, name=f"older_{i}_{j}")
                 for i in range(n) for j in range(i + 1, n)}

        def encode(onehot):
            """Binary index of a one-hot (or all-zero) vector of 1-bit values."""
            return reduce(or_, [Mux(bit, i, 0) for i, bit in enumerate(onehot)], Const(0, 1))

        def any_of(bits):
            return reduce(or_, bits)

        def touch(age, enable, onehot, stage):
            """Age matrix after making the entry selected by ``onehot`` most recently used."""
            new = {}
            for (i, j), old in age.items():
                sig = Signal(name=f"older_{i}_{j}_{stage}")
                m.d.comb += sig.eq(Mux(enable & onehot[i], 0, Mux(enable & onehot[j], 1, old)))
                new[i, j] = sig
            return new

        def is_older(age, i, j):
            return age[i, j] if i < j else ~age[j, i]

        m.d.comb += self.valid.eq(Cat(*valid))

        # (1) Lookup on start-of-cycle contents, optional LRU touch.
        lookup_match = [Signal(name=f"lookup_match_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += lookup_match[i].eq(valid[i] & (tags[i] == self.lookup_tag))
        m.d.comb += [
            self.hit.eq(any_of(lookup_match)),
            self.hit_index.eq(encode(lookup_match)),
        ]
        age_looked = touch(older, self.lookup_touch, lookup_match, "looked")

        # (2) flush, (3) invalidate by index, (4) invalidate by tag.
        valid_inv = [Signal(name=f"valid_inv_{i}") for i in range(n)]
        inv_tag_match = [Signal(name=f"inv_tag_match_{i}") for i in range(n)]
        valid_kept = [Signal(name=f"valid_kept_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += [
                valid_inv[i].eq(valid[i] & ~self.flush
                                & ~(self.inv_index_en & (self.inv_index == i))),
                inv_tag_match[i].eq(valid_inv[i] & (tags[i] == self.inv_tag)),
                valid_kept[i].eq(valid_inv[i] & ~(self.inv_tag_en & inv_tag_match[i])),
            ]
        m.d.comb += self.inv_tag_hit.eq(self.inv_tag_en & any_of(inv_tag_match))

        # (5) Insert: existing entry, else lowest free entry, else LRU victim.
        insert_match = [Signal(name=f"insert_match_{i}") for i in range(n)]
        victim = [Signal(name=f"victim_{i}") for i in range(n)]
        insert_sel = [Signal(name=f"insert_sel_{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += [
                insert_match[i].eq(valid_kept[i] & (tags[i] == self.insert_tag)),
                victim[i].eq(reduce(and_,
                                    [is_older(age_looked, i, j) for j in range(n) if j != i])),
            ]
        # Lowest-indexed free entry, as a one-hot vector.
        m.submodules.free_lod = free_lod = LeadingOneDetector(width=n)
        m.d.comb += free_lod.bits.eq(~Cat(*valid_kept))
        lowest_free, any_free = free_lod.onehot, free_lod.valid
        any_match = any_of(insert_match)
        evict = Signal()
        m.d.comb += evict.eq(self.insert_en & ~any_match & ~any_free)
        for i in range(n):
            m.d.comb += insert_sel[i].eq(self.insert_en & Mux(
                any_match, insert_match[i], Mux(any_free, lowest_free[i], victim[i])))
        m.d.comb += [
            self.insert_index.eq(encode(insert_sel)),
            self.insert_hit.eq(self.insert_en & any_match),
            self.insert_evict.eq(evict),
            self.insert_evict_tag.eq(Mux(
                evict, reduce(or_, [Mux(victim[i], tags[i], 0) for i in range(n)]), 0)),
        ]

        # Next state.
        age_next = touch(age_looked, self.insert_en, insert_sel, "inserted")
        for i in range(n):
            m.d.sync += valid[i].eq(valid_kept[i] | insert_sel[i])
            with m.If(insert_sel[i]):
                m.d.sync += tags[i].eq(self.insert_tag)
        for key, sig in older.items():
            m.d.sync += sig.eq(age_next[key])

        fv = properties(platform)
        if fv is not None:
            fv.expose(self, tags=tags, valid=valid)
            for i in range(n):
                for j in range(i + 1, n):
                    fv.check(m, ~(valid[i] & valid[j] & (tags[i] == tags[j])),
                             "at most one valid entry per tag", owner=self)
            for i in range(n):
                for j in range(n):
                    for k in range(n):
                        if len({i, j, k}) == 3:
                            fv.check(m, ~(is_older(older, i, j) & is_older(older, j, k))
                                     | is_older(older, i, k),
                                     "the LRU age matrix is a total order (transitive)",
                                     owner=self)
            fv.check(m, sum(victim) == 1, "exactly one LRU victim", owner=self)
            fv.check(m, self.hit == any_of([valid[i] & (tags[i] == self.lookup_tag)
                                            for i in range(n)]),
                     "hit iff a valid entry holds the tag", owner=self)
            fv.check(m, ~self.hit | reduce(or_, [(self.hit_index == i) & valid[i]
                                                 & (tags[i] == self.lookup_tag)
                                                 for i in range(n)]),
                     "hit_index names the matching valid entry", owner=self)
            fv.check(m, ~self.insert_evict | Cat(*valid_kept).all(),
                     "an insert evicts only when every entry is valid", owner=self)
            dropped = (self.flush | (self.inv_index_en & (self.inv_index == self.insert_index))
                       | (self.inv_tag_en & (self.inv_tag == self.insert_tag)))
            fv.check(m, ~(self.insert_hit & dropped),
                     "an insert never reuses an entry invalidated in the same cycle", owner=self)
        return m
