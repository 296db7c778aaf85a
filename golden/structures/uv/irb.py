"""Reference model of the instruction reuse buffer (IRB) of one SM (seed 002 ch. 2,
§2.4.3 and the reliability variant of §2.4.4; digest: paper-facts §2.6, §2.7).

What it stores
--------------
``entries`` (8) ways, fully associative, shared by all warps of the SM (the tag has no
warp ID, which is what lets one warp reuse another's result). Per way:

* ``valid`` (1 bit; not in the paper's count, see below);
* ``tag``: the partial PC (``tag_bits`` = 10);
* ``opcode`` (``opcode_bits`` = 8): guards against aliasing on the partial PC;
* ``src[0 .. sources-1]``: the scalar source values (``sources`` = 3 x ``value_bits`` = 32);
* ``dst``: the destination value (``value_bits``);
* ``age``: the way's true-LRU rank, ``age_bits`` = log2(entries) (the paper's "3 LRU
  bits"). The ages of the ways are always a permutation of ``0 .. entries-1``; 0 is most
  recently used. Reset: way ``i`` has age ``i`` and every way is invalid;
* with ``parity=True`` (§2.4.4): one even-parity bit over tag, opcode, sources and dst,
  computed when the way is written.

:attr:`IRBParams.entry_bits` is the paper's entry, 10 + 8 + 3x32 + 32 + 3 = 149 bits, so
:attr:`IRBParams.total_bits` = 1,192 bits for 8 entries (+8 with parity). The paper
counts no valid bit; a hardware IRB needs one (or a reserved tag) so that nothing hits
after reset, so :attr:`IRBParams.state_bits` adds ``entries`` valid bits.

Stored data word (fault-injection bit numbering)
------------------------------------------------
The bits of a way that ``fi_bit`` numbers are, from bit 0 upward: ``tag``
(bits ``0 .. tag_bits-1``), ``opcode``, ``src0`` .. ``src{sources-1}``, ``dst``, then the
parity bit (bit :attr:`IRBParams.data_bits`). ``valid`` and ``age`` are not in the word.

Per-cycle interface (shared port for port with :class:`rtl.uv.irb.IRB`)
----------------------------------------------------------------------
Combinational, on the start-of-cycle state:

1. lookup ``lk_en`` of ``lk_tag``/``lk_opcode`` with the actual sources ``lk_src0..2``:
   ``hit`` when a valid way holds both that tag and that opcode (``hit_way``: the
   lowest-index such way, 0 without a hit); ``value`` is that way's ``dst`` (0 without a
   hit); ``parity_error`` when the hit way's stored parity disagrees with its data
   (always 0 without parity); ``match`` = hit, every used source equal and no parity
   error -- the instruction can skip EX and write ``value``;
2. ``victim``: the way an update should fill -- the lowest-index invalid way if any,
   else the least recently used way (largest age). Shown every cycle.

State change at the end of the cycle, in this order:

3. a lookup that hit touches ``hit_way`` (true LRU: every way whose age is below the
   touched way's age ages by 1, the touched way gets age 0);
4. update ``up_en`` writes way ``up_way`` (valid = 1, ``up_tag``, ``up_opcode``,
   ``up_src*``, ``up_dst`` and the parity of those) and touches it;
5. fault injection ``fi_en`` (parity variant only) flips bit ``fi_bit`` of way
   ``fi_way``'s stored data word (after the update, so it can hit a way written in the
   same cycle).

Which instructions look up (only intra-warp uniform ones), which way an update fills
(the hit way on a mismatch or parity error, ``victim`` on a miss) and when (after
execution) is the timing mechanism's business. The Ops always carry three source
fields; with ``sources`` < 3 the unused ones must be 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import SimtlabError
from golden.structures._check import below, fits, param_int
from golden.structures.ports import OutputPorts

__all__ = ["IRBParams", "IRBOps", "IRBOutputs", "IRBEntry", "IRB"]

STRUCT = "uv_irb"

#: Source fields carried by the ops (``lk_src0..2``, ``up_src0..2``).
MAX_SOURCES = 3


def _parity(word: int) -> int:
    return bin(word).count("1") & 1


@dataclass(frozen=True)
class IRBParams:
    """Sizes of one SM's IRB; defaults are the paper's 8 x 149 bits.

    Attributes
    ----------
    entries : int
        Ways, a power of two >= 2 (8).
    tag_bits : int
        Partial-PC tag width (10).
    opcode_bits : int
        Opcode width (8).
    value_bits : int
        Width of a source or destination value (32 in the paper; 64 for our PTX, whose
        addresses are 64-bit).
    sources : int
        Source values per entry, 1..3 (3).
    parity : bool
        One even-parity bit per entry (the reliability variant of §2.4.4).
    """

    entries: int = 8
    tag_bits: int = 10
    opcode_bits: int = 8
    value_bits: int = 32
    sources: int = 3
    parity: bool = False

    def __post_init__(self):
        param_int(STRUCT, "entries", self.entries, 2)
        if self.entries & (self.entries - 1):
            raise SimtlabError(f"{STRUCT}: entries must be a power of two, not {self.entries}")
        param_int(STRUCT, "tag_bits", self.tag_bits, 1)
        param_int(STRUCT, "opcode_bits", self.opcode_bits, 1)
        param_int(STRUCT, "value_bits", self.value_bits, 1)
        param_int(STRUCT, "sources", self.sources, 1, MAX_SOURCES)
        if not isinstance(self.parity, bool):
            # JSON traces carry the flag as an int
            if self.parity in (0, 1) and isinstance(self.parity, int):
                object.__setattr__(self, "parity", bool(self.parity))
            else:
                raise SimtlabError(f"{STRUCT}: parity must be a bool, not {self.parity!r}")

    @property
    def age_bits(self) -> int:
        """LRU rank width, log2(entries) (the paper's 3 LRU bits for 8 entries)."""
        return (self.entries - 1).bit_length()

    @property
    def way_bits(self) -> int:
        """Bits of a way number (``hit_way``, ``victim``, ``up_way``, ``fi_way``)."""
        return self.age_bits

    @property
    def data_bits(self) -> int:
        """Tag + opcode + sources + dst: the bits the parity covers (146 by default)."""
        return self.tag_bits + self.opcode_bits + (self.sources + 1) * self.value_bits

    @property
    def word_bits(self) -> int:
        """The stored data word that ``fi_bit`` numbers: data + the parity bit if any."""
        return self.data_bits + int(self.parity)

    @property
    def fi_bit_bits(self) -> int:
        """Width of the ``fi_bit`` port (enough for ``data_bits``, the parity bit's number)."""
        return self.data_bits.bit_length()

    @property
    def entry_bits(self) -> int:
        """The paper's entry: tag + opcode + sources + dst + LRU (+ parity): 149 (150)."""
        return self.data_bits + self.age_bits + int(self.parity)

    @property
    def total_bits(self) -> int:
        """The paper's IRB size, entries x entry_bits: 1,192 bits (1,200 with parity)."""
        return self.entries * self.entry_bits

    @property
    def state_bits(self) -> int:
        """Every stored bit of the model: total_bits + one valid bit per way."""
        return self.total_bits + self.entries


@dataclass(frozen=True)
class IRBOps:
    """Requests of one cycle (RTL input ports)."""

    lk_en: int = 0
    lk_tag: int = 0
    lk_opcode: int = 0
    lk_src0: int = 0
    lk_src1: int = 0
    lk_src2: int = 0
    up_en: int = 0
    up_way: int = 0
    up_tag: int = 0
    up_opcode: int = 0
    up_src0: int = 0
    up_src1: int = 0
    up_src2: int = 0
    up_dst: int = 0
    fi_en: int = 0
    fi_way: int = 0
    fi_bit: int = 0


@dataclass(frozen=True)
class IRBOutputs(OutputPorts):
    """Every RTL output port in one cycle."""

    hit: int
    hit_way: int
    match: int
    value: int
    parity_error: int
    victim: int


@dataclass(frozen=True)
class IRBEntry:
    """One way as stored (inspection)."""

    valid: bool
    tag: int
    opcode: int
    srcs: tuple[int, ...]
    dst: int
    age: int
    parity: int


class IRB:
    """Instruction reuse buffer of one SM (see module docstring)."""

    def __init__(self, params: IRBParams | None = None, *, recorder=None, check: bool = True):
        params = IRBParams() if params is None else params
        if not isinstance(params, IRBParams):
            raise SimtlabError(f"{STRUCT}: expected IRBParams, not {type(params).__name__}")
        self._p = params
        self._checked = check or recorder is not None
        self._recorder = recorder
        n = params.entries
        self.valid = [False] * n
        #: stored data word per way (layout in the module docstring), parity bit included
        self.words = [0] * n
        self.ages = list(range(n))

    @property
    def params(self) -> IRBParams:
        return self._p

    # ------------------------------------------------------------------ word layout
    def _pack(self, tag: int, opcode: int, srcs, dst: int) -> int:
        p = self._p
        word, pos = tag, p.tag_bits
        word |= opcode << pos
        pos += p.opcode_bits
        for s in srcs:
            word |= s << pos
            pos += p.value_bits
        word |= dst << pos
        if p.parity:
            word |= _parity(word) << p.data_bits
        return word

    def entry(self, way: int) -> IRBEntry:
        """Way ``way`` as stored (inspection, not a cycle)."""
        p = self._p
        below(STRUCT, "way", way, p.entries)
        w = self.words[way]
        vmask = (1 << p.value_bits) - 1
        pos = p.tag_bits + p.opcode_bits
        srcs = tuple((w >> (pos + i * p.value_bits)) & vmask for i in range(p.sources))
        return IRBEntry(valid=self.valid[way], tag=w & ((1 << p.tag_bits) - 1),
                        opcode=(w >> p.tag_bits) & ((1 << p.opcode_bits) - 1), srcs=srcs,
                        dst=(w >> (pos + p.sources * p.value_bits)) & vmask, age=self.ages[way],
                        parity=(w >> p.data_bits) & 1 if p.parity else 0)

    def _touch(self, way: int) -> None:
        a = self.ages[way]
        self.ages = [age + 1 if age < a else age for age in self.ages]
        self.ages[way] = 0

    @property
    def victim(self) -> int:
        """The way an update should fill (lowest invalid way, else the LRU way)."""
        for way, v in enumerate(self.valid):
            if not v:
                return way
        return self.ages.index(self._p.entries - 1)

    # ------------------------------------------------------------------ one cycle
    def _check(self, ops: IRBOps) -> None:
        p = self._p
        for name in ("lk_en", "up_en", "fi_en"):
            fits(STRUCT, name, getattr(ops, name), 1)
        for pre in ("lk", "up"):
            fits(STRUCT, f"{pre}_tag", getattr(ops, f"{pre}_tag"), p.tag_bits)
            fits(STRUCT, f"{pre}_opcode", getattr(ops, f"{pre}_opcode"), p.opcode_bits)
            for i in range(MAX_SOURCES):
                name = f"{pre}_src{i}"
                value = fits(STRUCT, name, getattr(ops, name), p.value_bits)
                if i >= p.sources and value:
                    raise SimtlabError(f"{STRUCT}: {name} = {value} but the IRB stores only "
                                       f"{p.sources} source(s)")
        fits(STRUCT, "up_dst", ops.up_dst, p.value_bits)
        fits(STRUCT, "up_way", ops.up_way, p.way_bits)
        fits(STRUCT, "fi_way", ops.fi_way, p.way_bits)
        fits(STRUCT, "fi_bit", ops.fi_bit, p.fi_bit_bits)
        if ops.fi_en:
            if not p.parity:
                raise SimtlabError(f"{STRUCT}: fault injection (fi_en) needs parity=True")
            below(STRUCT, "fi_bit", ops.fi_bit, p.word_bits)

    def step(self, ops: IRBOps) -> IRBOutputs:
        """Apply one cycle of requests in the documented order; return every RTL output."""
        if not isinstance(ops, IRBOps):
            raise SimtlabError(f"{STRUCT}.step: expected IRBOps, not {type(ops).__name__}")
        if self._checked:
            self._check(ops)
        p = self._p
        victim = self.victim
        hit = match = value = perr = 0
        hit_way = 0
        if ops.lk_en:
            # 1. lookup on the start-of-cycle state
            key = ops.lk_tag | (ops.lk_opcode << p.tag_bits)
            key_mask = (1 << (p.tag_bits + p.opcode_bits)) - 1
            for way in range(p.entries):
                if self.valid[way] and self.words[way] & key_mask == key:
                    hit, hit_way = 1, way
                    break
        if hit:
            e = self.entry(hit_way)
            value = e.dst
            if p.parity:
                perr = _parity(self.words[hit_way])
            srcs = (ops.lk_src0, ops.lk_src1, ops.lk_src2)[:p.sources]
            match = int(srcs == e.srcs and not perr)
        # 3.-5. end of cycle
        if hit:
            self._touch(hit_way)
        if ops.up_en:
            srcs = (ops.up_src0, ops.up_src1, ops.up_src2)[:p.sources]
            self.words[ops.up_way] = self._pack(ops.up_tag, ops.up_opcode, srcs, ops.up_dst)
            self.valid[ops.up_way] = True
            self._touch(ops.up_way)
        if ops.fi_en:
            self.words[ops.fi_way] ^= 1 << ops.fi_bit
        out = IRBOutputs(hit=hit, hit_way=hit_way, match=match, value=value,
                         parity_error=perr, victim=victim)
        if self._recorder is not None:
            self._recorder.record(ops, out)
        return out

    # ------------------------------------------------------------------ mechanism API
    def _srcs(self, srcs, what: str) -> dict[str, int]:
        srcs = tuple(srcs)
        if len(srcs) > self._p.sources:
            raise SimtlabError(f"{STRUCT}.{what}: {len(srcs)} sources given, the IRB stores "
                               f"{self._p.sources}")
        return {f"src{i}": v for i, v in enumerate(srcs)}

    def lookup(self, tag: int, opcode: int, srcs=()) -> IRBOutputs:
        """One cycle with only a lookup (``srcs``: up to ``sources`` values, missing = 0)."""
        s = self._srcs(srcs, "lookup")
        return self.step(IRBOps(lk_en=1, lk_tag=tag, lk_opcode=opcode,
                                **{f"lk_{k}": v for k, v in s.items()}))

    def update(self, way: int, tag: int, opcode: int, srcs, dst: int) -> IRBOutputs:
        """One cycle with only an update of way ``way``."""
        s = self._srcs(srcs, "update")
        return self.step(IRBOps(up_en=1, up_way=way, up_tag=tag, up_opcode=opcode, up_dst=dst,
                                **{f"up_{k}": v for k, v in s.items()}))

    def inject_fault(self, way: int, bit: int) -> IRBOutputs:
        """One cycle with only a fault injection (parity variant)."""
        return self.step(IRBOps(fi_en=1, fi_way=way, fi_bit=bit))
