"""Reference model of DARSIE's PC skip table with the per-TB majority-path masks (seed 000 §4.3.2, §4.3.5, §4.4, §6.3).

What it stores
--------------
The table is banked per thread block (TB) slot of the SM: ``tbs`` banks (32 in the paper)
of ``entries`` entries (8 per TB, §6.3: "One TB is allocated 8 PC skip table entries that
are replaced dynamically"; §5's "1 entry per TB" is taken as a typo). Each entry holds

* **PC** (``pc_width`` = 48 bits) of a TB-redundant instruction currently being skipped;
* **warps mask** (``warps`` = 32 bits, one per warp of the TB): the warps that have
  reached this PC, the leader included (paper: "warps waiting bitmask");
* **Sync** (1 bit): this PC is a TB synchronisation point (the leader found the physical
  register freelist about to empty, §4.3.5), so arriving warps wait until every
  majority-path warp has arrived;
* **IsLoad** (1 bit): the instruction is a load, removed on a store by the TB or a global
  communication primitive (§4.4);
* **LeaderWB** (1 bit): the leader has written the redundant value back.

plus, per bank, the TB's **majority-path mask** (``warps`` bits, reset to all ones), and,
per bank, the valid bits and true-LRU order of a :class:`golden.structures.cam.Cam`
(PC match and replacement; "replaced dynamically" with no stated policy, LRU assumed).

Bits per entry: the paper counts 82 = PC 48 + mask 32 + IsLoad + LeaderWB, and prints
"20092 bits (2624 bytes)" for 256 entries; 256 x 82 = 20,992 bits = 2,624 B, so 20092
is a typo. The RTL needs one more bit per entry (**83**): a single mask cannot both mark
a synchronisation point (paper: "non-zero waiting mask") and record which followers have
already skipped, which the table needs to free the entry "once all follower warps in the
TB have skipped the instruction" (§4.3.5). Here the mask always records arrivals and the
Sync bit marks synchronisation. Valid bits and LRU state come on top (see synth notes).

Per-cycle interface (shared with :class:`rtl.darsie.skip_table.SkipTable`)
------------------------------------------------------------------------
Two read ports (``rd0``, ``rd1``; §5: "2 read ports, 1 write port"), each probing one PC
of one TB, fed by the PC coalescer. A read returns hit, entry index and the entry's
fields; a read hit makes the entry most recently used. One write port (``wr_op``, one
:class:`SkipOp` per cycle) and three bulk operations (store, global atomic, majority
write). Order within a cycle, each step seeing the previous ones:

1. read port 0, then read port 1, on the start-of-cycle contents (LRU touches in that order);
2. the write-port operation ``wr_op`` on bank ``wr_tb``:

   * ``ALLOC`` (leader): insert ``wr_pc`` (CAM insert: an existing entry for the PC is
     reused without change and reported by ``alloc_hit``; else the lowest invalid entry;
     else the LRU entry is evicted, reported with its PC and mask). A new entry gets
     mask = leader bit ``wr_warp``, Sync = ``wr_sync``, IsLoad = ``wr_is_load``, LeaderWB = 0;
   * ``ARRIVE`` (follower reached the PC, skipping or waiting): on valid entry
     ``wr_index``, set bit ``wr_warp``; ``arrive_mask`` is the new mask; when it covers the
     start-of-cycle majority mask (every majority warp has arrived) ``arrive_done`` is set
     and the entry is freed;
   * ``LEADER_WB``: set LeaderWB of valid entry ``wr_index``;
   * ``INVALIDATE``: free entry ``wr_index``;
   * ``FLUSH_TB``: free every entry of the bank and set its majority mask to all ones
     (a new TB was launched into the slot);

3. ``store_en``: free every IsLoad entry of bank ``store_tb`` (§4.4 case 1);
4. ``atomic_en``: free every IsLoad entry of every bank (§4.4 case 2, conservatively all loads);
5. ``maj_en``: write ``maj_mask`` into the majority mask of bank ``maj_tb`` (warps leaving
   the majority path clear their bit; ``__syncthreads`` writes all ones, §4.3.3).

Outputs of an operation that is not requested are 0. ``full`` and ``majority`` describe
bank ``wr_tb`` at the start of the cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

from golden.errors import SimtlabError
from golden.structures.cam import Cam, CamParams

from golden.structures._check import below, fits, param_int, width_of
from golden.structures.ports import OutputPorts

__all__ = ["SkipOp", "SkipTableParams", "SkipTableOps", "SkipTableOutputs", "SkipRead",
           "SkipWrite", "SkipArrive", "SkipEntry", "SkipTable"]

STRUCT = "skip_table"


class SkipOp(IntEnum):
    """Operation of the skip table's write port (the RTL ``wr_op`` port, 3 bits)."""

    NONE = 0
    ALLOC = 1
    ARRIVE = 2
    LEADER_WB = 3
    INVALIDATE = 4
    FLUSH_TB = 5


@dataclass(frozen=True)
class SkipTableParams:
    """Sizes of the PC skip table; defaults are the paper's (§6.3).

    Attributes
    ----------
    tbs : int
        TB banks (TB slots of an SM): 32.
    entries : int
        Entries per TB: 8 (>= 2, the LRU of :class:`Cam`).
    warps : int
        Warps per TB, i.e. width of the warps and majority masks: 32.
    pc_width : int
        PC tag width: 48.
    sync_bit : bool
        True (default): our 83-bit entry, a Sync bit next to the mask, which records every
        arrival. False: the paper's 82-bit entry (§6.3, issue 69 item 4): no Sync bit, a
        non-zero mask *is* the synchronisation mark (§4.3.5), so a non-synchronising entry
        keeps mask 0, arrivals at it are not recorded (``arrive_mask`` 0, ``arrive_done``
        never set) and it is freed only by eviction, invalidation, a store or a flush
        (docs/darsie-state-budget.md §2).
    """

    tbs: int = 32
    entries: int = 8
    warps: int = 32
    pc_width: int = 48
    sync_bit: bool = True

    def __post_init__(self):
        param_int(STRUCT, "tbs", self.tbs, 1)
        param_int(STRUCT, "entries", self.entries, 2)
        param_int(STRUCT, "warps", self.warps, 1)
        param_int(STRUCT, "pc_width", self.pc_width, 1)
        if not isinstance(self.sync_bit, bool):
            raise SimtlabError(f"{STRUCT}: sync_bit must be True or False, not {self.sync_bit!r}")

    @property
    def tb_width(self) -> int:
        return width_of(self.tbs)

    @property
    def index_width(self) -> int:
        return width_of(self.entries)

    @property
    def warp_width(self) -> int:
        return width_of(self.warps)

    @property
    def bits_per_entry(self) -> int:
        """Payload bits per entry: PC + mask + Sync + IsLoad + LeaderWB (83 at paper sizes;
        82 without the Sync bit, the paper's §6.3 count)."""
        return self.pc_width + self.warps + (3 if self.sync_bit else 2)


@dataclass(frozen=True)
class SkipTableOps:
    """Requests of one cycle (field names are the RTL input ports)."""

    rd0_en: int = 0
    rd0_tb: int = 0
    rd0_pc: int = 0
    rd1_en: int = 0
    rd1_tb: int = 0
    rd1_pc: int = 0
    wr_op: int = SkipOp.NONE
    wr_tb: int = 0
    wr_index: int = 0
    wr_pc: int = 0
    wr_warp: int = 0
    wr_is_load: int = 0
    wr_sync: int = 0
    store_en: int = 0
    store_tb: int = 0
    atomic_en: int = 0
    maj_en: int = 0
    maj_tb: int = 0
    maj_mask: int = 0


@dataclass(frozen=True)
class SkipTableOutputs(OutputPorts):
    """Every RTL output port in one cycle (names are the RTL output ports)."""

    rd0_hit: int
    rd0_index: int
    rd0_mask: int
    rd0_sync: int
    rd0_is_load: int
    rd0_leader_wb: int
    rd1_hit: int
    rd1_index: int
    rd1_mask: int
    rd1_sync: int
    rd1_is_load: int
    rd1_leader_wb: int
    alloc_index: int
    alloc_hit: int
    alloc_evict: int
    alloc_evict_pc: int
    alloc_evict_mask: int
    arrive_mask: int
    arrive_done: int
    full: int
    majority: int


class SkipRead(NamedTuple):
    """Result of a probe (one read port): ``index`` and the fields are 0 on a miss."""

    hit: bool
    index: int
    mask: int
    sync: bool
    is_load: bool
    leader_wb: bool


class SkipWrite(NamedTuple):
    """Outputs of the write port in one cycle (the ``alloc_*`` and ``arrive_*`` ports of
    :class:`SkipTableOutputs`); all 0 for an operation that does not drive them."""

    alloc_index: int = 0
    alloc_hit: int = 0
    alloc_evict: int = 0
    alloc_evict_pc: int = 0
    alloc_evict_mask: int = 0
    arrive_mask: int = 0
    arrive_done: int = 0


class SkipArrive(NamedTuple):
    """Result of :meth:`SkipTable.arrive`: the entry's new warps mask and whether every
    majority-path warp has now arrived (the entry was freed)."""

    mask: int
    done: bool


@dataclass(frozen=True)
class SkipEntry:
    """Contents of one valid entry (inspection)."""

    pc: int
    mask: int
    sync: bool
    is_load: bool
    leader_wb: bool


MISS = SkipRead(False, 0, 0, False, False, False)
NO_WRITE = SkipWrite()


class _Bank:
    """One TB's entries: a Cam of PC tags (valid bits, LRU) plus the payload arrays."""

    def __init__(self, params: SkipTableParams):
        self.cam = Cam(CamParams(entries=params.entries, tag_width=params.pc_width))
        n = params.entries
        self.mask = [0] * n
        self.sync = [False] * n
        self.is_load = [False] * n
        self.leader_wb = [False] * n
        self.majority = (1 << params.warps) - 1

    def valid(self, i: int) -> bool:
        return bool(self.cam.valid >> i & 1)


class SkipTable:
    """PC skip table of an SM with per-TB majority masks (see module docstring).

    Per-event methods (:meth:`probe`, :meth:`alloc`, :meth:`arrive`, :meth:`leader_wb`,
    :meth:`invalidate`, :meth:`flush_tb`, :meth:`store`, :meth:`global_atomic`,
    :meth:`set_majority`) each perform exactly one cycle through :meth:`step`, so a
    recorder attached with ``recorder=`` sees them as trace lines. The timing model's hot
    path uses the typed twin :class:`golden.structures.darsie.skip_table_fast.SkipTableFast`
    instead (same per-event results, no cycle records; tests/structures/
    test_darsie_typed_twins.py holds the two equal event by event).
    """

    def __init__(self, params: SkipTableParams | None = None, *, recorder=None, check: bool = True):
        params = SkipTableParams() if params is None else params
        if not isinstance(params, SkipTableParams):
            raise SimtlabError(f"{STRUCT}: expected SkipTableParams, not {type(params).__name__}")
        self._params = params
        # Range checks of every transaction field (for callers driving the structure
        # like an RTL port); a simulator that builds in-range requests may turn them
        # off, except while a recorder writes a trace for RTL replay.
        self._checked = check or recorder is not None
        self._banks = [_Bank(params) for _ in range(params.tbs)]
        self._recorder = recorder

    # ------------------------------------------------------------------ inspection
    @property
    def params(self) -> SkipTableParams:
        return self._params

    def majority(self, tb: int) -> int:
        """Majority-path mask of TB slot ``tb``."""
        return self._banks[self._tb(tb, "majority")].majority

    def entries_of(self, tb: int) -> dict[int, SkipEntry]:
        """Valid entries of TB slot ``tb`` by index."""
        bank = self._banks[self._tb(tb, "entries_of")]
        return {i: SkipEntry(bank.cam.entry(i), bank.mask[i], bank.sync[i], bank.is_load[i],
                             bank.leader_wb[i])
                for i in range(self._params.entries) if bank.valid(i)}

    def full(self, tb: int) -> bool:
        """Every entry of TB slot ``tb`` is valid (an alloc would evict)."""
        bank = self._banks[self._tb(tb, "full")]
        return bank.cam.valid == (1 << self._params.entries) - 1

    def lru_order(self, tb: int) -> tuple[int, ...]:
        """Entry indices of TB slot ``tb`` from least to most recently used."""
        return self._banks[self._tb(tb, "lru_order")].cam.lru_order

    # ------------------------------------------------------------------ per-event API
    def probe(self, tb: int, pc: int) -> SkipRead:
        """Read port 0: look ``pc`` up in TB ``tb`` (a hit becomes most recently used)."""
        out = self.step(SkipTableOps(rd0_en=1, rd0_tb=tb, rd0_pc=pc))
        return SkipRead(bool(out.rd0_hit), out.rd0_index, out.rd0_mask, bool(out.rd0_sync),
                        bool(out.rd0_is_load), bool(out.rd0_leader_wb))

    def alloc(self, tb: int, pc: int, leader: int, *, is_load: bool = False,
              sync: bool = False) -> SkipTableOutputs:
        """Leader allocates an entry for ``pc`` (see ``ALLOC``); returns the cycle's outputs."""
        return self.step(SkipTableOps(wr_op=SkipOp.ALLOC, wr_tb=tb, wr_pc=pc, wr_warp=leader,
                                      wr_is_load=int(is_load), wr_sync=int(sync)))

    def arrive(self, tb: int, index: int, warp: int) -> SkipArrive:
        """Warp ``warp`` reached the PC of entry ``index``; returns the new mask and whether
        every majority warp has arrived."""
        out = self.step(SkipTableOps(wr_op=SkipOp.ARRIVE, wr_tb=tb, wr_index=index, wr_warp=warp))
        return SkipArrive(out.arrive_mask, bool(out.arrive_done))

    def leader_wb(self, tb: int, index: int) -> None:
        """The leader wrote back the value of entry ``index``."""
        self.step(SkipTableOps(wr_op=SkipOp.LEADER_WB, wr_tb=tb, wr_index=index))

    def invalidate(self, tb: int, index: int) -> None:
        """Free entry ``index`` of TB ``tb``."""
        self.step(SkipTableOps(wr_op=SkipOp.INVALIDATE, wr_tb=tb, wr_index=index))

    def flush_tb(self, tb: int) -> None:
        """A new TB occupies slot ``tb``: free its entries, majority mask all ones."""
        self.step(SkipTableOps(wr_op=SkipOp.FLUSH_TB, wr_tb=tb))

    def store(self, tb: int) -> None:
        """TB ``tb`` executed a store: remove its load entries (§4.4)."""
        self.step(SkipTableOps(store_en=1, store_tb=tb))

    def global_atomic(self) -> None:
        """The SM executed a global communication primitive: remove every load entry (§4.4)."""
        self.step(SkipTableOps(atomic_en=1))

    def set_majority(self, tb: int, mask: int) -> None:
        """Write TB ``tb``'s majority-path mask."""
        self.step(SkipTableOps(maj_en=1, maj_tb=tb, maj_mask=mask))

    # ------------------------------------------------------------------ one cycle
    def step(self, ops: SkipTableOps) -> SkipTableOutputs:
        """Apply one cycle of requests in the documented order; return every RTL output."""
        p = self._params
        if self._checked:
            self._check(ops)
        wr_bank = self._banks[ops.wr_tb] if ops.wr_tb < p.tbs else None
        full = int(wr_bank is not None and wr_bank.cam.valid == (1 << p.entries) - 1)
        majority = wr_bank.majority if wr_bank is not None else 0

        reads = [self._read(ops.rd0_en, ops.rd0_tb, ops.rd0_pc),
                 self._read(ops.rd1_en, ops.rd1_tb, ops.rd1_pc)]

        written = NO_WRITE
        if wr_bank is not None and ops.wr_op in SkipOp._value2member_map_:
            written = self._write(wr_bank, SkipOp(ops.wr_op), ops, majority)

        if ops.store_en and ops.store_tb < p.tbs:
            self._drop_loads(self._banks[ops.store_tb])
        if ops.atomic_en:
            for bank in self._banks:
                self._drop_loads(bank)
        if ops.maj_en and ops.maj_tb < p.tbs:
            self._banks[ops.maj_tb].majority = ops.maj_mask

        r0, r1 = reads
        out = SkipTableOutputs(
            rd0_hit=int(r0.hit), rd0_index=r0.index, rd0_mask=r0.mask, rd0_sync=int(r0.sync),
            rd0_is_load=int(r0.is_load), rd0_leader_wb=int(r0.leader_wb),
            rd1_hit=int(r1.hit), rd1_index=r1.index, rd1_mask=r1.mask, rd1_sync=int(r1.sync),
            rd1_is_load=int(r1.is_load), rd1_leader_wb=int(r1.leader_wb),
            full=full, majority=majority, **written._asdict())
        if self._recorder is not None:
            self._recorder.record(ops, out)
        return out

    # ------------------------------------------------------------------ helpers
    def _read(self, en: int, tb: int, pc: int) -> SkipRead:
        """One read port: probe ``pc`` in bank ``tb`` when enabled (a hit touches the LRU)."""
        if not en or tb >= self._params.tbs:
            return MISS
        bank = self._banks[tb]
        found = bank.cam.lookup(pc, touch=True)
        if not found.hit:
            return MISS
        i = found.index
        return SkipRead(True, i, bank.mask[i], bank.sync[i], bank.is_load[i], bank.leader_wb[i])

    def _write(self, bank: _Bank, op: SkipOp, ops: SkipTableOps, majority: int) -> SkipWrite:
        """The write-port operation ``op`` of ``ops`` on ``bank`` (``majority``: its
        start-of-cycle majority mask); returns the write port's outputs."""
        i = ops.wr_index
        if op is SkipOp.ALLOC:
            ins = bank.cam.insert(ops.wr_pc)
            evicted_mask = bank.mask[ins.index] if ins.evicted else 0
            if not ins.hit:
                # paper's 82-bit entry: an empty mask marks a non-synchronising entry
                recorded = ops.wr_sync or self._params.sync_bit
                bank.mask[ins.index] = 1 << ops.wr_warp if recorded else 0
                bank.sync[ins.index] = bool(ops.wr_sync)
                bank.is_load[ins.index] = bool(ops.wr_is_load)
                bank.leader_wb[ins.index] = False
            return SkipWrite(alloc_index=ins.index, alloc_hit=int(ins.hit),
                             alloc_evict=int(ins.evicted), alloc_evict_pc=ins.evicted_tag,
                             alloc_evict_mask=evicted_mask)
        valid = i < self._params.entries and bank.valid(i)
        if op is SkipOp.ARRIVE and valid:
            if not bank.sync[i] and not self._params.sync_bit:
                return NO_WRITE             # 82-bit entry: the mask must stay empty
            bank.mask[i] |= 1 << ops.wr_warp
            done = bank.mask[i] & majority == majority
            if done:
                bank.cam.invalidate_index(i)
            return SkipWrite(arrive_mask=bank.mask[i], arrive_done=int(done))
        if op is SkipOp.LEADER_WB and valid:
            bank.leader_wb[i] = True
        elif op is SkipOp.INVALIDATE:
            bank.cam.invalidate_index(i)
        elif op is SkipOp.FLUSH_TB:
            bank.cam.flush()
            bank.majority = (1 << self._params.warps) - 1
        return NO_WRITE

    def _drop_loads(self, bank: _Bank) -> None:
        for i in range(self._params.entries):
            if bank.is_load[i] and bank.valid(i):
                bank.cam.invalidate_index(i)

    def _tb(self, tb: int, what: str) -> int:
        return below(STRUCT, f"{what}: tb", tb, self._params.tbs)

    def _check(self, ops: SkipTableOps) -> None:
        if not isinstance(ops, SkipTableOps):
            raise SimtlabError(f"{STRUCT}.step: expected SkipTableOps, not {type(ops).__name__}")
        p = self._params
        for name in ("rd0_en", "rd1_en", "wr_is_load", "wr_sync", "store_en", "atomic_en", "maj_en"):
            fits(STRUCT, name, getattr(ops, name), 1)
        for name in ("rd0_tb", "rd1_tb", "wr_tb", "store_tb", "maj_tb"):
            fits(STRUCT, name, getattr(ops, name), p.tb_width)
        for name in ("rd0_pc", "rd1_pc", "wr_pc"):
            fits(STRUCT, name, getattr(ops, name), p.pc_width)
        fits(STRUCT, "wr_op", ops.wr_op, 3)
        fits(STRUCT, "wr_index", ops.wr_index, p.index_width)
        fits(STRUCT, "wr_warp", ops.wr_warp, p.warp_width)
        fits(STRUCT, "maj_mask", ops.maj_mask, p.warps)
        if ops.wr_op == SkipOp.ALLOC or ops.wr_op == SkipOp.ARRIVE:
            below(STRUCT, "wr_warp", ops.wr_warp, p.warps)
