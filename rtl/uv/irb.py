"""Instruction reuse buffer (IRB) of one SM (seed 002 ch. 2, §2.4.3; parity of the
reliability variant, §2.4.4): 8 fully associative ways shared by the SM's warps.

Reference model, port for port and cycle for cycle:
:class:`golden.structures.uv.irb.IRB` (its docstring gives the per-cycle order and the
bit numbering of the stored data word). Storage, all flip-flops:

* per way a data word (``word<i>``: tag, opcode, the ``sources`` source values, the
  destination value and, with ``parity``, the even-parity bit) -- 146 (147) bits at the
  paper's size. An 8-way fully associative tag match needs every tag at once, so the tag
  part is a CAM in any technology; the value part is read in the same cycle through the
  hit way's one-hot select. The words are not cleared by ``rst`` (an invalid way's data
  is never observed, and an update rewrites the whole word);
* per way a ``valid`` bit (reset 0) and a log2(entries)-bit LRU ``age`` (reset: way i has
  age i), the paper's "3 LRU bits".

Latency: ``hit``, ``hit_way``, ``match``, ``value``, ``parity_error`` and ``victim`` are
combinational on the start-of-cycle state (0 cycles); the touch of a hit, the update and
the fault injection take effect at the next edge. Throughput: one lookup, one update and
one fault injection per cycle.
"""

from __future__ import annotations

from functools import reduce
from operator import and_

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from rtl.common.properties import properties
from rtl.darsie._util import any_of, check_int, encode, index_width, select

__all__ = ["IRB"]

MAX_SOURCES = 3


class IRB(wiring.Component):
    """Instruction reuse buffer (see module docstring).

    Parameters
    ----------
    entries : int
        Ways, a power of two >= 2 (8).
    tag_bits, opcode_bits, value_bits : int
        Partial-PC tag (10), opcode (8) and value (32, or 64) widths.
    sources : int
        Source values per way, 1..3 (3). The ``*_src`` ports beyond ``sources`` exist but
        are ignored.
    parity : bool
        One even-parity bit per way, checked on a hit (``parity_error``).
    fault_injection : bool
        With ``parity``, build the test port ``fi_en``/``fi_way``/``fi_bit`` that flips
        one stored bit (the ports exist either way; without this they are ignored). Not
        a golden parameter: the area rows leave it out.

    Ports are the fields of :class:`golden.structures.uv.IRBOps` (inputs) and
    :class:`golden.structures.uv.IRBOutputs` (outputs), same names and meanings.
    """

    def __init__(self, *, entries: int = 8, tag_bits: int = 10, opcode_bits: int = 8,
                 value_bits: int = 32, sources: int = 3, parity: bool = False,
                 fault_injection: bool = True):
        check_int("IRB", "entries", entries, 2)
        if entries & (entries - 1):
            raise ValueError(f"IRB entries must be a power of two, not {entries}")
        for name, value in (("tag_bits", tag_bits), ("opcode_bits", opcode_bits),
                            ("value_bits", value_bits), ("sources", sources)):
            check_int("IRB", name, value, 1)
        if sources > MAX_SOURCES:
            raise ValueError(f"IRB sources must be at most {MAX_SOURCES}, not {sources}")
        for name, value in (("parity", parity), ("fault_injection", fault_injection)):
            if not isinstance(value, (bool, int)) or value not in (0, 1):
                raise TypeError(f"IRB {name} must be a bool, not {value!r}")
        self._entries, self._tag_bits, self._opcode_bits = entries, tag_bits, opcode_bits
        self._value_bits, self._sources, self._parity = value_bits, sources, bool(parity)
        self._fi = bool(parity) and bool(fault_injection)
        wb = index_width(entries)
        data_bits = tag_bits + opcode_bits + (sources + 1) * value_bits
        self._data_bits = data_bits
        ports = {
            "lk_en": In(1), "lk_tag": In(tag_bits), "lk_opcode": In(opcode_bits),
            **{f"lk_src{i}": In(value_bits) for i in range(MAX_SOURCES)},
            "up_en": In(1), "up_way": In(wb), "up_tag": In(tag_bits),
            "up_opcode": In(opcode_bits),
            **{f"up_src{i}": In(value_bits) for i in range(MAX_SOURCES)},
            "up_dst": In(value_bits),
            "fi_en": In(1), "fi_way": In(wb), "fi_bit": In(data_bits.bit_length()),
            "hit": Out(1), "hit_way": Out(wb), "match": Out(1), "value": Out(value_bits),
            "parity_error": Out(1), "victim": Out(wb),
        }
        super().__init__(ports)

    @property
    def entries(self) -> int:
        return self._entries

    @property
    def word_bits(self) -> int:
        """Stored data word per way (data + parity bit)."""
        return self._data_bits + int(self._parity)

    def elaborate(self, platform):
        m = Module()
        n, vb, ns = self._entries, self._value_bits, self._sources
        ab = index_width(n)
        kb = self._tag_bits + self._opcode_bits
        W = self.word_bits
        valid = [Signal(name=f"valid{i}") for i in range(n)]
        word = [Signal(W, name=f"word{i}", reset_less=True) for i in range(n)]
        age = [Signal(ab, init=i, name=f"age{i}") for i in range(n)]

        # 1. lookup: tag + opcode CAM, first hit wins
        key = Cat(self.lk_tag, self.lk_opcode)
        hits = [Signal(name=f"tag_hit{i}") for i in range(n)]
        first = [Signal(name=f"first_hit{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += hits[i].eq(self.lk_en & valid[i] & (word[i][:kb] == key))
            m.d.comb += first[i].eq(hits[i] & ~any_of([Const(0, 1)] + hits[:i]))
        hit = any_of(hits)
        hw = Signal(W)
        m.d.comb += hw.eq(select(first, word, W))
        srcs_equal = reduce(and_, [hw[kb + j * vb: kb + (j + 1) * vb] == getattr(self, f"lk_src{j}")
                                   for j in range(ns)])
        perr = Signal()
        if self._parity:
            m.d.comb += perr.eq(hit & hw.xor())
        m.d.comb += [
            self.hit.eq(hit),
            self.hit_way.eq(encode(first)),
            self.value.eq(hw[kb + ns * vb: kb + (ns + 1) * vb]),
            self.parity_error.eq(perr),
            self.match.eq(hit & srcs_equal & ~perr),
        ]

        # 2. victim: lowest invalid way, else the LRU way (age = entries - 1)
        invalid = [~v for v in valid]
        first_invalid = [inv & ~any_of([Const(0, 1)] + invalid[:i]) for i, inv in enumerate(invalid)]
        lru = [a == n - 1 for a in age]
        m.d.comb += self.victim.eq(Mux(any_of(invalid), encode(first_invalid), encode(lru)))

        # 3. touch of the hit way, 4. update + touch, 5. fault injection
        hit_age = select(first, age, ab)
        age1 = [Signal(ab, name=f"age_touched{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += age1[i].eq(Mux(hit, Mux(first[i], 0, Mux(age[i] < hit_age, age[i] + 1, age[i])),
                                       age[i]))
        up_sel = [Signal(name=f"up_sel{i}") for i in range(n)]
        for i in range(n):
            m.d.comb += up_sel[i].eq(self.up_en & (self.up_way == i))
        up_age = select([self.up_way == i for i in range(n)], age1, ab)
        data = Cat(self.up_tag, self.up_opcode, *[getattr(self, f"up_src{j}") for j in range(ns)],
                   self.up_dst)
        new_word = Cat(data, data.xor()) if self._parity else data
        flip = Signal(W)
        if self._fi:
            m.d.comb += flip.eq(Cat(*[self.fi_bit == b for b in range(W)]))
        for i in range(n):
            m.d.sync += age[i].eq(Mux(self.up_en, Mux(up_sel[i], 0,
                                                      Mux(age1[i] < up_age, age1[i] + 1, age1[i])),
                                      age1[i]))
            with m.If(up_sel[i]):
                m.d.sync += valid[i].eq(1)
            written = Mux(up_sel[i], new_word, word[i])
            if self._fi:
                written = written ^ Mux(self.fi_en & (self.fi_way == i), flip, 0)
            m.d.sync += word[i].eq(written)

        fv = properties(platform)
        if fv is not None:
            for i in range(n):
                for j in range(i + 1, n):
                    fv.check(m, age[i] != age[j], "the LRU ages are a permutation of the ways",
                             owner=self)
                fv.check(m, age[i] < n, "every age is below the number of ways", owner=self)
            for i in range(n):
                lowest = hits[i] & ~any_of([Const(0, 1)] + hits[:i])
                fv.check(m, ~(self.hit & (self.hit_way == i)) | lowest,
                         "the hit way is the lowest-numbered matching way", owner=self)
            fv.check(m, ~self.match | (self.hit & srcs_equal),
                     "a reuse match needs a tag hit and equal sources", owner=self)
            victim_age = select([self.victim == v for v in range(n)], age, ab)
            fv.check(m, any_of(invalid) | (victim_age == n - 1),
                     "with every way valid the victim is the least recently used", owner=self)
            if self._parity and not self._fi:
                for i in range(n):
                    fv.check(m, ~word[i].xor(), "every stored word has even parity", owner=self)
                fv.check(m, ~self.parity_error, "without injected faults parity never errs",
                         owner=self)
        return m
