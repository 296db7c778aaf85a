"""DARSIE's skip microarchitecture as a timing-model mechanism (seed 000 §4.1, §4.3-§4.5).

Variants (:data:`VARIANTS`): ``darsie`` (the paper's design), ``darsie-ignore-store``
(no skip-table reset on stores, §4.4) and ``darsie-no-cf-sync`` (idealised, no DARSIE
synchronisation, §6.2; see :mod:`golden.mechanisms.darsie.nocfsync`).

Per SM: a :class:`~golden.structures.darsie.SkipTable` (one bank of ``entries`` per
resident TB slot, with the TB's majority-path mask) and a
:class:`~golden.structures.darsie.PCCoalescer` in front of its read ports. Per TB slot:
:class:`RenameTable`, :class:`VersionTable` and :class:`PhysRegFreeList` (``freelist``
registers strided over the RF banks). TBs beyond ``skip_tbs`` resident on an SM take no
part (run as the baseline).

Protocol (each step names the paper's rule)
-------------------------------------------
* **Launch** (first TB of a launch on an SM): the kernel's PCs are marked by
  :func:`golden.mechanisms.darsie.marking.mark_kernel` for the launch's block shape (CR is
  promoted to DR only for 2D TBs whose x is a power of two <= 32). A new TB in a slot
  flushes the slot (majority mask all ones, entries freed); warps that can never have a
  full active mask (partial last warp) are cleared from the majority mask.
* **Eligibility** (§4.3, §4.5): majority bit set, full SIMT active mask, PC marked DR.
* **Leader** (§4.3.1-2): the first eligible warp to *decode* (fetch) a marked PC with no
  entry for it allocates the entry (IsLoad, LeaderWB = 0), pops a physical register per
  destination from the freelist and inserts <reg, version> in the version table; it
  renames its own <warp, reg> when it issues the instruction (``lead_at_decode``; a PC
  behind an unresolved branch in the I-buffer is led at issue). Taking the freelist's
  last register makes the entry a synchronisation point (Sync). A full skip-table bank
  (unless ``replace_when_full``, which replaces its LRU entry), a freelist without enough
  registers or a full rename table make the leader execute privately (paper §4.3 K).
  The leader's result (lanes written) is captured after its functional step; LeaderWB is
  set at its writeback.
* **Followers** (§4.3.2, §4.3.4-5): at fetch, before the I-cache, an eligible warp at a
  marked PC probes the skip table through the PC coalescer (``read_ports`` distinct
  <TB, PC> keys per SM and cycle; a warp without a port retries next cycle). On a hit with
  LeaderWB it arrives (warps mask), renames its destinations to the leader's versions,
  receives the leader's values without executing (``FunctionalLaunch.skip_warp``) and
  moves its fetch PC on by 8; up to ``max_skips_per_fetch`` consecutive skips per fetch
  cycle, then it fetches the next PC in the same cycle. LeaderWB = 0: the warp waits at
  fetch for the writeback event (or the entry's removal) without probing again, so
  waiting followers do not take skip-table ports from other warps. A Sync entry: the warp arrives and is held until every majority-path warp
  arrived (and the leader wrote back). When every majority warp arrived the entry is freed.
* **Versions** (§4.3.1): a version's physical register returns to the freelist once its
  entry is gone and no warp's rename entry points to it. A warp writing a renamed
  register privately (a non-skipped writer) drops its rename entry. With ``free_dead``
  (default) a warp also drops a rename entry once the register is dead
  (:func:`golden.simt.liveness.dying_registers`): after the operands of its last reader
  are read, or when the warp skips the register's last reader or a definition nothing
  reads. PTX registers are virtual and never reused, so without this a dead DR version
  stays renamed until the warp exits and the 32-register freelist runs dry; the paper's
  register-allocated code frees it at redefinition, which register allocation makes the
  same point (issue 13 item 1). ``free_dead=false`` keeps the release at redefinition only.
* **Barriers** (§4.3.3): when ``bar.sync`` releases, every live full-mask warp rejoins
  the majority path and the TB's entries are finished; the kernel is marked with
  ``MarkingOptions.join_taint`` so that this is sound (see
  ``DarsieParams.rejoin_at_barrier``; ``rejoin_at_barrier=false`` keeps warps off the
  majority path until they exit, with the paper's marking).
* **Branches** (§4.3.3, Fig. 5): a ``bra`` of a majority-path warp is a TB-wide
  barrier (every one with ``branch_sync="all"``; by default only backward branches and
  branches on a condition not proven TB-uniform, see ``DarsieParams.branch_sync``):
  the warp is held until every majority-path warp issued a branch; the direction
  most warps took (ties: the lowest warp's) stays on the majority path, the others leave.
  A SIMD-diverged branch (or lanes exiting) makes the warp leave at once. Leaving costs a
  copy-back: every renamed register is read from its physical register (operand
  collector, bank conflicts) and written to the private one (scoreboard-reserved until
  written).
* **Memory** (§4.4): a store or shared atomic by the TB removes the TB's load entries
  (not in ``darsie-ignore-store``); a global atomic/reduction or fence removes every load
  entry of the SM. Warps that had taken a removed entry count as arrived at a later entry
  for its PC in the barrier window (``drop_keeps_arrivals``).
* **Register reads** (§4.3.1, §6.1): a renamed source is read from the physical register
  in its bank (``phys mod banks`` plus the TB slot's offset), which creates the extra bank
  conflicts the paper counts.

Counters (``darsie.*`` in :attr:`TimingStats.mechanism`): skipped, leader, follower_waits
(probes that found LeaderWB = 0: one per wait with ``wait_for_wb``, one per cycle without),
dead_releases (rename entries dropped at a register's death), port_retries, sync_points, sync_waits, branch_syncs, majority_leaves,
copyback_regs, renamed_reads, table_full, evictions, freelist_short, rename_full, load_drops,
decode_leads, abandoned_leads,
private_redundant (eligible warps that executed a marked PC), probes, coalesced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from golden.errors import ConfigError, SimtlabError
from golden.mechanisms.arguments import takes
from golden.mechanisms.claims import (DEPENDENCE_TRACKING, ELIMINATION, FETCH,
                                      REGISTER_RENAMING, TB_DISPATCH, WARP_FORMATION)
from golden.mechanisms.darsie.frontend import DeferredSkips, full_mask
from golden.mechanisms.darsie.lattice import Redundancy
from golden.mechanisms.darsie.marking import MarkingOptions, mark_kernel
from golden.mechanisms.darsie.structure_energy import BitTally, Metered
from golden.mechanisms.darsie.structure_energy import load_params as load_structure_energy
from golden.mechanisms.darsie.structure_energy import rtl_prices
from golden.structures.darsie import (CoalescerParams, PCCoalescer, PhysFreeListParams,
                                      PhysRegFreeList, RenameTable, RenameTableParams, SkipTable,
                                      SkipTableParams, VersionTable, VersionTableParams)
from golden.structures.darsie.coalescer import MAX_PORTS
from golden.structures.darsie.rename_table_fast import RenameTableFast
from golden.structures.darsie.skip_table_fast import SkipTableFast
from golden.structures.trace import TraceRecorder
from golden.timing.hooks import Mechanism
from golden.timing.rtl_energy import load_rtl_energy

VARIANTS = ("darsie", "darsie-ignore-store", "darsie-no-cf-sync")
_LOADS = frozenset({"ld", "ldu"})
_ATOMICS = frozenset({"atom", "red"})
_FENCES = frozenset({"membar", "fence"})
DR = Redundancy.DR


@dataclass(frozen=True)
class DarsieParams:
    """Parameters of the DARSIE mechanism (paper sizes as defaults, §5/§6.3).

    skip_tbs: TB slots with skip-table banks per SM (None: the config's max TBs per SM,
        at most 32). entries: skip-table entries per TB (8). read_ports: skip-table read
        ports fed by the PC coalescer (2; 1 to 4). coalescer_slots: requests the coalescer examines
        per cycle (8, our assumption). max_skips_per_fetch: instructions one warp may skip
        in one fetch cycle (not given; 4 assumed). freelist: renaming registers per TB (32).
        rename_entries: renamed registers per TB (32). version_width: 5. pc_width: 48.
        rejoin_at_barrier: the paper's rule that ``__syncthreads`` resets every majority
        bit to 1 (§4.3.3): warps that left the majority path rejoin it. With the §4.2
        marking as published this is unsound: a register written with different DR values
        on the two sides of a V branch meets to DR at the join (HS: ``%rs8`` = 0 or 1,
        then ``setp.eq.s16 %p27, %rs8, 0`` after ``bar.sync`` is marked DR), so a rejoined
        warp would copy a wrong value. Rejoining therefore marks the kernel with
        ``MarkingOptions.join_taint`` (such join values become V). Without rejoining,
        majority-path warps took the same direction at every non-DR branch since the TB
        started, so their DR values are equal and the paper's marking is sound.
        trace_dir: when set, record JSON-lines transaction traces of SM 0's skip table and
        PC coalescer and of TB slot 0's rename/version tables and freelist there.
        free_dead: drop a warp's rename entry once the register is dead (PTX liveness), so
        the version's physical register can return to the freelist (see "Versions").
        wait_for_wb: a follower that found LeaderWB = 0 waits for the writeback event
        instead of re-probing the skip table (and taking a read port) every cycle.
        branch_sync: which ``bra`` instructions are TB-wide barriers. ``"all"``: every
        one (Fig. 5's caption taken literally; the model before issue 13). ``"needed"``
        (default): only those that can split the majority path or let a warp reach a PC
        twice between barriers -- a branch whose condition the marking does not prove
        TB-uniform (a V guard, ``bra.uni`` included: ``.uni`` promises uniformity within
        a warp, not across the TB) and every backward branch (loop back-edges, so no warp
        runs ahead into the next iteration of a PC that other warps still skip with this
        iteration's value). Forward unconditional branches and forward branches on a DR
        condition pass without waiting: every majority-path warp takes them the same way.
        fetch_while_held: a warp held at a branch barrier keeps fetching its non-skippable
        instructions (its next PC is known once the branch executed), so the release does
        not start a refetch of up to 32 warps at the fetch width; a skippable PC waits for
        the release, when its skip-table probe can find the leader's entry. False: a held
        warp neither fetches nor issues (the model before issue 13).
        lead_at_decode: the leader is the first eligible warp to *decode* (fetch) the PC
        (§4.3.1 C.1, §4.3.5): its entry exists from then on, so warps fetching the PC
        while the leader's instruction waits in its I-buffer find it and wait for
        LeaderWB instead of executing privately. Only a PC certainly on the warp's path
        (no unresolved control instruction ahead of it in the I-buffer) is led at decode;
        otherwise, or with False (the model before issue 13), the leader is chosen at issue.
        replace_when_full: a leader that finds its TB's skip-table bank full replaces the
        least recently used entry (§4.3: "replaced dynamically"; the structure's LRU); the
        victim's un-arrived warps execute the PC themselves, and the warps that had taken
        it count as arrived at a later entry for the PC. Off by default, from measurement
        (issue 13): every entry in the table is for a PC of the current barrier window
        that un-arrived majority warps will still reach, so a replacement trades one skip
        for another and thrashes (2D geomean at small size 1.10 without, 1.08 with; FWS
        skips 14,080 -> 7,808 instructions). False: the leader executes privately
        (paper-facts K's safe choice).
        drop_keeps_arrivals: when a store removes a load entry (§4.4), the warps that took it
        (leader, followers that skipped it) count as arrived at a later entry for the same
        PC in the barrier window, as replacement victims do. False (the model before
        2026-12-07): they are forgotten, so a later Sync entry for the PC can wait for them
        forever (a deadlock found on the LIBOR benchmark's inputs, issue 67.6).
    """

    variant: str = "darsie"
    skip_tbs: int | None = None
    entries: int = 8
    read_ports: int = 2
    coalescer_slots: int = 8
    max_skips_per_fetch: int = 4
    freelist: int = 32
    rename_entries: int = 32
    version_width: int = 5
    pc_width: int = 48
    trace_dir: str | None = None
    trace_meta: dict = field(default_factory=dict)
    rejoin_at_barrier: bool = True
    free_dead: bool = True
    wait_for_wb: bool = True
    branch_sync: str = "needed"
    fetch_while_held: bool = True
    lead_at_decode: bool = True
    replace_when_full: bool = False
    drop_keeps_arrivals: bool = True

    def __post_init__(self):
        if self.variant not in VARIANTS:
            raise ConfigError(f"darsie: unknown variant {self.variant!r} (known: {', '.join(VARIANTS)})")
        for name in ("entries", "read_ports", "coalescer_slots", "max_skips_per_fetch", "freelist",
                     "rename_entries", "version_width", "pc_width"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise ConfigError(f"darsie.{name}: must be a positive integer, not {v!r}")
        if self.skip_tbs is not None and (not isinstance(self.skip_tbs, int)
                                          or isinstance(self.skip_tbs, bool) or self.skip_tbs < 1):
            # 0 used to read as "not given" (the config's max TBs), i.e. plain DARSIE
            raise ConfigError(f"darsie.skip_tbs: must be a positive integer (TB slots with "
                              f"skip-table banks), not {self.skip_tbs!r}")
        for name in ("free_dead", "rejoin_at_barrier", "wait_for_wb", "fetch_while_held",
                     "lead_at_decode", "replace_when_full", "drop_keeps_arrivals"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"darsie.{name}: must be true or false, not {getattr(self, name)!r}")
        if self.branch_sync not in ("all", "needed"):
            raise ConfigError(f"darsie.branch_sync: all or needed, not {self.branch_sync!r}")
        if self.read_ports > MAX_PORTS:
            raise ConfigError(f"darsie.read_ports: the PC coalescer model (and its RTL) grants "
                              f"at most {MAX_PORTS} ports per cycle, not {self.read_ports}")


@dataclass
class _Entry:
    """Mechanism-side view of one live skip-table entry (the leader's result and waiters)."""

    pc: int
    index: int
    leader: int
    dsts: list            # [(reg index, storage key, version)]
    is_load: bool
    sync: bool
    values: dict | None = None   # storage key -> (lane values, lanes written)
    wb: bool = False
    complete: bool = False       # every majority warp arrived (table entry freed)
    waiters: list = field(default_factory=list)  # warps held at this Sync entry
    fetch_held: list = field(default_factory=list)  # followers whose fetch waits for LeaderWB


class _Slot:
    """One TB slot of an SM: the TB there and its rename/version/freelist structures."""

    def __init__(self, index: int, params: DarsieParams, reg_width: int, banks: int, recorders,
                 tally: BitTally | None = None):
        self.index = index
        self.tb = None
        rec = recorders or {}
        rename = RenameTableParams(warps=32, entries=params.rename_entries, reg_width=reg_width,
                                   version_width=params.version_width)
        # the reference table only where its cycles are recorded for RTL replay; else its twin
        recorder = rec.get("rename_table")
        self.rename = (RenameTable(rename, recorder=recorder) if recorder is not None
                       else RenameTableFast(rename))
        self.version = VersionTable(VersionTableParams(entries=params.freelist, reg_width=reg_width,
                                                       version_width=params.version_width,
                                                       phys_width=max(8, (params.freelist - 1).bit_length())),
                                    recorder=rec.get("version_table"), check=False)
        self.freelist = PhysRegFreeList(PhysFreeListParams(entries=params.freelist,
                                                           tag_width=max(8, (params.freelist - 1).bit_length()),
                                                           banks=banks),
                                        recorder=rec.get("phys_freelist"))
        if tally is not None:  # every transaction priced for the energy model (§6.1)
            self.rename = Metered(self.rename, "rename_table", tally)
            self.version = Metered(self.version, "version_table", tally)
            self.freelist = Metered(self.freelist, "phys_freelist", tally)
        self.reset_state()

    def reset_state(self):
        self.entries: dict[int, _Entry] = {}
        self.writes: dict[int, int] = {}           # reg -> writes seen (version numbering)
        self.versions: dict[tuple, list] = {}      # (reg, ver) -> [phys, entry live]
        self.renamed: dict[int, dict] = {}         # warp -> {reg: version}
        self.majority = 0
        self.arrivals: dict[int, tuple] = {}       # warp held at a branch -> (pc, next pc)
        self.passed: dict[int, int] = {}           # pc -> warps that executed it privately


class _SMState:
    def __init__(self, sm, mech: "DarsieMechanism", recorders=None, count: bool = True):
        p = mech.params
        self.nslots = min(32, p.skip_tbs or sm.cfg.core.max_tbs_per_sm)
        rec = recorders or {}
        table = SkipTableParams(tbs=self.nslots, entries=p.entries, warps=32, pc_width=p.pc_width)
        # the reference table only where its cycles are recorded for RTL replay; else its twin
        recorder = rec.get("skip_table")
        self.table = (SkipTable(table, recorder=recorder) if recorder is not None
                      else SkipTableFast(table))
        self.coalescer = PCCoalescer(CoalescerParams(slots=p.coalescer_slots, tbs=self.nslots,
                                                     pc_width=p.pc_width, ports=p.read_ports),
                                     recorder=rec.get("pc_coalescer"), check=False)
        if count:
            self.table = Metered(self.table, "skip_table", mech._tally)
            self.coalescer = Metered(self.coalescer, "pc_coalescer", mech._tally)
        self.slots: list[_Slot | None] = [None] * self.nslots
        self.by_tb: dict[int, _Slot] = {}
        self.cycle = -1
        self.keys: list = []
        self.requests: list = []


class DarsieMechanism(Mechanism):
    """DARSIE (variants ``darsie`` and ``darsie-ignore-store``); see the module docstring."""

    name = "darsie"
    #: register values are read through FunctionalLaunch.warp_register (deferral may stay on)
    reads_wave_registers = False
    #: skips fetch and issue of TB-redundant instructions, renames their destination
    #: registers, and tracks (and holds at branches) the TB's static warps
    claims = frozenset({FETCH, REGISTER_RENAMING})
    #: it tracks (and holds at branches) the TB's static warps; followers wait for the
    #: leader's write-back (LeaderWB), and the majority path and
    #: Sync entries count on every warp of a TB being resident until the TB ends; skips
    #: and copy-backs write registers outside a shared scoreboard
    assumes = frozenset({ELIMINATION, TB_DISPATCH, DEPENDENCE_TRACKING, WARP_FORMATION})
    #: launch sampling (golden.timing.sampling) must keep launches whole
    sampling = "whole-launch"
    sampling_reason = ("DARSIE's TB-wide skip tables span the TBs of an SM; marking and "
                       "tables rebuilt per launch (launch_begin)")

    def __init__(self, config, params: DarsieParams | None = None):
        self.params = params or DarsieParams()
        if self.params.variant == "darsie-no-cf-sync":
            raise ConfigError("use golden.mechanisms.darsie.nocfsync for darsie-no-cf-sync")
        self.config = config
        self.banks = config.register_file.banks
        self._sms: dict[int, _SMState] = {}
        self._skips = DeferredSkips()
        self._leading: dict[int, tuple] = {}     # id(warp) -> (slot, entry) awaiting capture
        self._lead_wb: dict[tuple, tuple] = {}   # (id(warp), pc) -> (slot, entry) awaiting WB
        self._wb_wait: dict[int, _Entry] = {}    # id(follower) -> entry whose LeaderWB it awaits
        self._bar_held: dict[int, list] = {}     # id(TB) -> warps whose fetch waits at bar.sync
        self._decode_led: dict[tuple, tuple] = {}  # (id(warp), pc) -> (slot, entry) led at decode
        self._open: list = []                    # open trace recorders
        self._trace_n = 0
        self._tally = BitTally()                 # bits each structure touched this launch
        self._struct_energy = load_structure_energy()
        #: per-call RTL energies of energy.structures: rtl (None: the papers' per-bit constants)
        self._rtl_energy = (rtl_prices(load_rtl_energy())
                            if config.energy.structures == "rtl" else None)

    # ------------------------------------------------------------------ setup
    def _open_recorder(self, name: str, params, tag: str):
        meta = dict(self.params.trace_meta, variant=self.params.variant, sm=0, scope=tag,
                    launch=self._trace_n)
        path = Path(self.params.trace_dir) / f"launch{self._trace_n}_{tag}_{name}.jsonl"
        rec = TraceRecorder.open(path, name, params, meta=meta)
        self._open.append(rec)
        return rec

    def launch_begin(self, launch, sms) -> None:
        self._close_traces()
        self._sms = {}
        self._leading.clear()
        self._lead_wb.clear()
        self._wb_wait.clear()
        self._decode_led.clear()
        self._bar_held.clear()
        self._skips = DeferredSkips()
        m = mark_kernel(launch.program, launch.geo.block,
                        MarkingOptions(warp_size=32, join_taint=self.params.rejoin_at_barrier))
        self.skippable = m.skippable_pcs
        self.marking = m
        self.no_sync = self._unsynced_branches(launch.program, m)
        self.keys = sorted(launch.program.reg_types)
        self.reg_width = max(8, (len(self.keys) - 1).bit_length())
        self.dying = None  # per instruction slot: register indices dead after it
        if self.params.free_dead:
            from golden.simt.liveness import dying_registers
            d = dying_registers(launch.program)
            if d is not None:
                index = {k: i for i, k in enumerate(self.keys)}
                self.dying = [tuple(sorted(index[k] for k in x)) for x in d]
        if self.params.trace_dir is not None:
            self._trace_n += 1

    def _unsynced_branches(self, program, m) -> frozenset:
        """PCs of the ``bra`` instructions that are no TB-wide barrier (``branch_sync``
        "needed"): forward, and unconditional or on a condition the marking resolves to DR
        for this launch."""
        if self.params.branch_sync == "all":
            return frozenset()
        out = []
        for i, sl in enumerate(program.slots):
            inst = sl.inst
            pc = 8 * i
            if inst is None or inst.opcode != "bra" or sl.target is None or sl.target <= pc:
                continue
            if inst.guard is None or m.decision.resolve(m.mark(pc).value) is DR:
                out.append(pc)
        return frozenset(out)

    def _sm(self, sm) -> _SMState:
        s = self._sms.get(sm.id)
        if s is None:
            rec = None
            if sm.id == 0 and self.params.trace_dir is not None:
                probe = _SMState(sm, self, count=False)
                rec = {"skip_table": self._open_recorder("skip_table", probe.table.params, "sm0"),
                       "pc_coalescer": self._open_recorder("pc_coalescer", probe.coalescer.params,
                                                           "sm0")}
            s = _SMState(sm, self, rec)
            self._sms[sm.id] = s
        return s

    def _slot(self, sm, w) -> _Slot | None:
        """The TB slot of ``w``'s TB (allocated at the TB's first event), or None."""
        s = self._sm(sm)
        slot = s.by_tb.get(w.tb.tb_id)
        if slot is not None and slot.tb is w.tb:
            return slot
        live = {t.tb_id for t in sm.tbs}
        for tb_id in [t for t in s.by_tb if t not in live]:
            s.by_tb.pop(tb_id).tb = None
        free = [i for i in range(s.nslots) if s.slots[i] is None or s.slots[i].tb is None]
        if not free:
            return None
        i = free[0]
        slot = s.slots[i]
        if slot is None:
            rec = {}
            if sm.id == 0 and i == 0 and self.params.trace_dir is not None:
                rp = RenameTableParams(warps=32, entries=self.params.rename_entries,
                                       reg_width=self.reg_width, version_width=self.params.version_width)
                tmp = _Slot(i, self.params, self.reg_width, self.banks, None)
                rec = {"rename_table": self._open_recorder("rename_table", rp, "sm0_slot0"),
                       "version_table": self._open_recorder("version_table", tmp.version.params, "sm0_slot0"),
                       "phys_freelist": self._open_recorder("phys_freelist", tmp.freelist.params, "sm0_slot0")}
            slot = s.slots[i] = _Slot(i, self.params, self.reg_width, self.banks, rec,
                                      self._tally)
        else:
            self._recycle(slot)
        slot.tb = w.tb
        s.by_tb[w.tb.tb_id] = slot
        s.table.flush_tb(i)
        majority = 0
        for x in w.tb.warps:
            if not x.done and self._valid_full(x):
                majority |= 1 << x.widx
        slot.majority = majority
        if majority != (1 << 32) - 1:
            s.table.set_majority(i, majority)
        return slot

    @staticmethod
    def _valid_full(w) -> bool:
        wave = w.wave
        return bool(wave.valid[w.widx * 32:(w.widx + 1) * 32].all())

    def _recycle(self, slot: _Slot) -> None:
        """A new TB takes the slot: return every live version's register, clear the tables."""
        for (reg, ver), (phys, _live) in list(slot.versions.items()):
            slot.version.remove(reg, ver)
            slot.freelist.free(phys)
        slot.rename.flush()
        slot.reset_state()

    def _close_traces(self):
        for r in self._open:
            r.close()
        self._open = []

    def on_complete(self, stats) -> None:
        for s in self._sms.values():
            self._flush_coalescer(s)
        self._close_traces()
        self._tally.flush(stats, "darsie", self._struct_energy, self._rtl_energy)

    # ------------------------------------------------------------------ helpers
    def _eligible(self, slot: _Slot, w) -> bool:
        return bool(slot.majority >> w.widx & 1) and full_mask(w)

    def _dsts(self, sm, pc: int) -> list:
        d = sm.decoded[pc >> 3]
        keys = self.keys
        return [(r, keys[r]) for r in d.dsts]

    def _port(self, sm, s: _SMState, bank: int, pc: int) -> bool:
        """Request a skip-table read for <bank, pc> this cycle through the PC coalescer."""
        if s.cycle != sm.now:
            self._flush_coalescer(s)
            s.cycle = sm.now
        key = (bank, pc)
        if len(s.requests) >= self.params.coalescer_slots:
            return False
        s.requests.append(key)
        if key in s.keys:
            sm.stats.count_mechanism("darsie.coalesced")
            return True
        if len(s.keys) < self.params.read_ports:
            s.keys.append(key)
            return True
        return False

    def _flush_coalescer(self, s: _SMState) -> None:
        if s.requests:
            ports, _left = s.coalescer.coalesce(list(s.requests))
            got = [(p.tb, p.pc) for p in ports]
            if got != s.keys:
                raise SimtlabError(f"darsie: PC coalescer model chose {got}, mechanism used {s.keys}")
        s.requests = []
        s.keys = []

    def _rename_set(self, slot: _Slot, widx: int, reg: int, ver: int) -> bool:
        out = slot.rename.set(widx, reg, ver)
        if out.full:
            return False
        slot.renamed.setdefault(widx, {})[reg] = ver
        if out.old_valid and out.old_version != ver:
            self._maybe_free(slot, reg, out.old_version)
        return True

    def _rename_drop(self, slot: _Slot, widx: int, reg: int) -> None:
        m = slot.renamed.get(widx)
        if not m or reg not in m:
            return
        old = m.pop(reg)
        slot.rename.drop(widx, reg)
        self._maybe_free(slot, reg, old)

    def _drop_dead(self, sm, slot: _Slot, w, pc: int) -> None:
        """Drop ``w``'s rename entries of registers that are dead after ``pc`` (free_dead).
        Only a full-mask warp may act on a per-thread death (every thread is here)."""
        if self.dying is None:
            return
        m = slot.renamed.get(w.widx)
        if not m:
            return
        dead = [r for r in self.dying[pc >> 3] if r in m]
        if dead and full_mask(w):
            for r in dead:
                self._rename_drop(slot, w.widx, r)
            sm.stats.count_mechanism("darsie.dead_releases", len(dead))

    def _maybe_free(self, slot: _Slot, reg: int, ver: int) -> None:
        v = slot.versions.get((reg, ver))
        if v is None or v[1]:
            return
        for m in slot.renamed.values():
            if m.get(reg) == ver:
                return
        phys = slot.version.remove(reg, ver)
        if phys is None or not slot.freelist.free(phys):
            raise SimtlabError(f"darsie: version ({reg}, {ver}) had no physical register")
        del slot.versions[(reg, ver)]

    # ------------------------------------------------------------------ fetch
    def on_fetch(self, sm, w, pc: int) -> bool:
        if pc not in self.skippable:
            return False
        slot = self._slot(sm, w)
        if slot is None or not self._eligible(slot, w):
            return False
        if w.widx in slot.arrivals:
            w.hold_fetch = True  # released with the branch barrier (_leave, _resolve_branch)
            return True  # held at a branch barrier: probe once the barrier is released
        s = self._sms[sm.id]
        st = sm.stats
        waiting = self._wb_wait.get(id(w))
        if waiting is not None:
            if waiting.pc == pc and not waiting.wb and slot.entries.get(pc) is waiting:
                # still waiting for the leader's writeback: no probe, no port; the fetch
                # stage asks again once the entry changes or the warp issues (_release_fetch)
                w.hold_fetch = True
                waiting.fetch_held.append(w)
                return True
            del self._wb_wait[id(w)]
        skipped = 0
        while pc in self.skippable:
            if skipped >= self.params.max_skips_per_fetch:
                return True
            if not self._skips.can_skip(sm, w):
                if w.wave.at_barrier[w.widx]:
                    # waiting at a bar.sync: the same answer until its TB's barrier is
                    # released, by the step of the last warp to arrive (after_step)
                    w.hold_fetch = True
                    self._bar_held.setdefault(id(w.tb), []).append(w)
                return True  # older control instruction in the I-buffer: retry next cycle
            if not self._port(sm, s, slot.index, pc):
                st.count_mechanism("darsie.port_retries")
                return True
            st.count_mechanism("darsie.probes")
            r = s.table.probe(slot.index, pc)
            e = slot.entries.get(pc)
            if not r.hit and e is None and self.params.lead_at_decode \
                    and (id(w), pc) not in self._decode_led:
                # §4.3.1: the first eligible warp to decode the PC leads it; the entry exists
                # from now on, so later warps wait for its LeaderWB instead of executing
                e = self._allocate(sm, s, slot, w, pc)
                if e is not None:
                    self._decode_led[(id(w), pc)] = (slot, e)
                    st.count_mechanism("darsie.decode_leads")
                return False  # fetch normally: the leader executes it
            if not r.hit or e is None or r.mask >> w.widx & 1:
                return False  # fetch normally (it may lead this PC at issue)
            if e.sync:
                if w.ibuf.entries or self._skips.pending(w):
                    return True  # hold only a warp that really reached the PC (older ones issue first)
                arrived_mask, done = s.table.arrive(slot.index, r.index, w.widx)
                e.waiters.append(w)
                w.hold = True
                st.count_mechanism("darsie.sync_waits")
                if done:
                    e.complete = True
                    self._entry_gone(sm, slot, e)
                return True
            if not r.leader_wb:
                # wait for the LeaderWB event instead of re-probing every cycle (issue 13
                # item 4): the next probe happens once the entry has its writeback or is gone
                st.count_mechanism("darsie.follower_waits")
                if self.params.wait_for_wb:
                    self._wb_wait[id(w)] = e
                return True
            _mask, done = s.table.arrive(slot.index, r.index, w.widx)
            self._follow(sm, slot, w, e)
            if done:
                e.complete = True
                self._entry_gone(sm, slot, e)
            skipped += 1
            pc += 8
            w.fetch_pc = pc
        return False

    def _follow(self, sm, slot: _Slot, w, e: _Entry) -> None:
        """``w`` skips ``e.pc``: rename to the leader's versions, receive its values."""
        for reg, _key, ver in e.dsts:
            self._rename_set(slot, w.widx, reg, ver)
        self._drop_dead(sm, slot, w, e.pc)
        self._skips.skip(sm, w, e.pc, e.values)
        sm.stats.instructions_skipped += 1
        sm.stats.count_mechanism("darsie.skipped")

    # ------------------------------------------------------------------ issue
    def on_issue(self, sm, w, pc: int, inst):
        w.hold_fetch = False  # its issue may move its fetch PC or change its mask
        slot = self._slot(sm, w)
        if slot is None:
            return None
        d = sm.decoded[pc >> 3]
        op = d.opcode
        if op is None:
            return None
        s = self._sms[sm.id]
        led = self._decode_led.pop((id(w), pc), None) if self._decode_led else None
        if led is not None:
            e = led[1]
            # the entry is still in the table, or it is a Sync entry every majority warp
            # reached before its leader issued (the waiters need the leader's writeback)
            live = slot.entries.get(pc) is e or (e.sync and e.complete and e.waiters)
            if led[0] is slot and live and self._eligible(slot, w):
                self._own(sm, slot, w, e)
                return self._after_issue(sm, s, slot, w, d, op, inst)
            self._abandon(sm, led[0], e)
        if pc in self.skippable and self._eligible(slot, w):
            e = slot.entries.get(pc)
            r = s.table.probe(slot.index, pc)
            if e is None and not r.hit:
                if self._lead(sm, s, slot, w, pc):
                    return None
                slot.passed[pc] = slot.passed.get(pc, 0) | 1 << w.widx
            elif e is not None and r.hit and not (r.mask >> w.widx & 1):
                # another warp led while this one was already fetched: it executes, passes
                _m, done = s.table.arrive(slot.index, r.index, w.widx)
                if done:
                    e.complete = True
                    self._entry_gone(sm, slot, e)
            sm.stats.count_mechanism("darsie.private_redundant")
        return self._after_issue(sm, s, slot, w, d, op, inst)

    def _after_issue(self, sm, s: _SMState, slot: _Slot, w, d, op, inst):
        """Issue-time bookkeeping of every instruction: private writes drop renames,
        stores and atomics drop load entries (§4.4)."""
        if slot.renamed.get(w.widx):
            led = self._leading.get(id(w))
            own = {r for r, _k, _v in led[1].dsts} if led is not None else ()
            for reg in d.dsts:
                if reg not in own:
                    self._rename_drop(slot, w.widx, reg)
        if op == "st" or (op in _ATOMICS and "shared" in inst.mods):
            if self.params.variant != "darsie-ignore-store":
                self._drop_loads(sm, s, [slot], store_tb=slot.index)
        elif (op in _ATOMICS and "shared" not in inst.mods) or op in _FENCES:
            self._drop_loads(sm, s, [x for x in s.slots if x is not None and x.tb is not None],
                             store_tb=None)
        return None

    def _lead(self, sm, s: _SMState, slot: _Slot, w, pc: int) -> bool:
        """``w`` leads ``pc`` at issue: allocate its entry and take it (False: it could not)."""
        return self._allocate(sm, s, slot, w, pc, own=True) is not None

    def _own(self, sm, slot: _Slot, w, e: _Entry) -> None:
        """The leader issues ``e.pc``: rename its destinations to the new versions, capture
        its result after the functional step, set LeaderWB at its writeback."""
        for reg, _key, ver in e.dsts:
            self._rename_set(slot, w.widx, reg, ver)
        self._leading[id(w)] = (slot, e)
        self._lead_wb[(id(w), e.pc)] = (slot, e)

    def _abandon(self, sm, slot: _Slot, e: _Entry) -> None:
        """A decode-time leader will not execute ``e.pc`` as leader (it left the majority
        path, or every other warp executed the PC privately): remove the entry, release
        warps held at it (they execute the PC themselves) and free its versions."""
        if slot.tb is None or e.wb:
            return
        if slot.entries.get(e.pc) is e:
            self._sms[sm.id].table.invalidate(slot.index, e.index)
        elif not e.waiters:
            return  # already gone, nobody waits for it
        sm.stats.count_mechanism("darsie.abandoned_leads")
        self._drop_entry(sm, slot, e)

    def _drop_entry(self, sm, slot: _Slot, e: _Entry) -> None:
        """``e`` leaves the mechanism without completing (abandoned by its leader, or the
        skip table's replacement victim): warps held at it are released to execute the PC
        themselves, warps waiting for its LeaderWB probe again, its versions are freed
        once no warp is renamed to them. Warps that already skipped it keep their renames."""
        if slot.entries.get(e.pc) is e:
            del slot.entries[e.pc]
        self._release_fetch(e)
        if e.waiters:
            self._release_sync(sm, slot, e, skip=False)
        for reg, _k, ver in e.dsts:
            v = slot.versions.get((reg, ver))
            if v is not None:
                v[1] = False
                self._maybe_free(slot, reg, ver)

    def _allocate(self, sm, s: _SMState, slot: _Slot, w, pc: int,
                  own: bool = False) -> _Entry | None:
        """Allocate the skip-table entry, versions and physical registers of ``pc`` with
        ``w`` as leader (§4.3.1 C.2-C.5), or None when a structure is short (the warp then
        executes privately, paper-facts K). ``own``: the leader is issuing it now (take the
        entry at once, :meth:`_own`); otherwise (decode) nothing is allocated when every
        other majority warp already executed the PC."""
        st = sm.stats
        dsts = self._dsts(sm, pc)
        if not dsts:
            return None
        if not own:
            maj = slot.majority
            if (slot.passed.get(pc, 0) | 1 << w.widx) & maj == maj:
                return None
        if s.table.full(slot.index):
            st.count_mechanism("darsie.table_full")
            if not self.params.replace_when_full:
                return None
        if slot.freelist.free_count < len(dsts):
            st.count_mechanism("darsie.freelist_short")
            return None
        in_use = {reg for m in slot.renamed.values() for reg in m}
        if len(in_use | {r for r, _ in dsts}) > self.params.rename_entries:
            st.count_mechanism("darsie.rename_full")
            return None
        sync = slot.freelist.free_count == len(dsts)
        inst = sm.launch.program.slots[pc >> 3].inst
        is_load = inst.opcode in _LOADS
        out = s.table.alloc(slot.index, pc, w.widx, is_load=is_load, sync=sync)
        if out.alloc_evict:  # §4.3: entries are replaced dynamically (the table's LRU victim)
            victim = slot.entries.get(out.alloc_evict_pc)
            if victim is None or victim.index != out.alloc_index:
                raise SimtlabError(f"darsie: skip table evicted pc 0x{out.alloc_evict_pc:x}, "
                                   f"which the mechanism does not hold at that index")
            st.count_mechanism("darsie.evictions")
            # the warps that took the victim (its leader and followers that skipped it) are
            # past the PC: a later entry for it counts them as arrived, as for private passes
            held = 0
            for x in victim.waiters:
                held |= 1 << x.widx
            slot.passed[victim.pc] = (slot.passed.get(victim.pc, 0)
                                      | out.alloc_evict_mask & ~held)
            self._drop_entry(sm, slot, victim)
        vmax = 1 << self.params.version_width
        e = _Entry(pc=pc, index=out.alloc_index, leader=w.widx, dsts=[], is_load=is_load, sync=sync)
        for reg, key in dsts:
            phys, _last = slot.freelist.alloc()
            ver = (slot.writes.get(reg, 0) + 1) % vmax
            slot.writes[reg] = ver
            if (reg, ver) in slot.versions:
                raise SimtlabError(f"darsie: version ({reg}, {ver}) still live at overflow")
            slot.version.insert(reg, ver, phys)
            slot.versions[(reg, ver)] = [phys, True]
            if own:
                self._rename_set(slot, w.widx, reg, ver)
            e.dsts.append((reg, key, ver))
        slot.entries[pc] = e
        if own:
            self._leading[id(w)] = (slot, e)
            self._lead_wb[(id(w), pc)] = (slot, e)
        st.count_mechanism("darsie.leader")
        if sync:
            st.count_mechanism("darsie.sync_points")
        # warps of this block that already executed the PC privately count as arrived
        passed = slot.passed.pop(pc, 0) & slot.majority
        done = False
        while passed and not done:
            x = (passed & -passed).bit_length() - 1
            passed &= passed - 1
            _m, done = s.table.arrive(slot.index, e.index, x)
        if done:
            e.complete = True
            self._entry_gone(sm, slot, e)
        return e

    def after_step(self, sm, w, pc: int, rec) -> None:
        w.hold_fetch = False
        if self._bar_held:
            held = self._bar_held.get(id(w.tb))
            if held is not None and not w.wave.at_barrier[held[-1].widx]:
                for x in held:   # this step released their bar.sync: fetch asks again
                    x.hold_fetch = False
                del self._bar_held[id(w.tb)]
        lead = self._leading.pop(id(w), None)
        if lead is not None:
            _slot, e = lead
            am = rec.active_mask
            written = ((am >> np.arange(32)) & 1).astype(bool)
            read = sm.launch.warp_register
            e.values = {key: (read(w.wave, w.widx, key).copy(), written)
                        for _r, key, _v in e.dsts}
        self._skips.drain(sm, w)

    def on_writeback(self, sm, w, pc: int, regs: list) -> list:
        lead = self._lead_wb.pop((id(w), pc), None)
        if lead is not None:
            slot, e = lead
            e.wb = True
            self._release_fetch(e)
            s = self._sms[sm.id]
            if not e.complete and slot.entries.get(e.pc) is e:
                s.table.leader_wb(slot.index, e.index)
            if e.sync and e.complete and e.waiters:
                self._entry_gone(sm, slot, e)
        return regs

    # ------------------------------------------------------------------ entries
    @staticmethod
    def _release_fetch(e: _Entry) -> None:
        """Followers waiting at fetch for ``e``'s LeaderWB probe again (the entry got its
        writeback or left the table)."""
        if e.fetch_held:
            for x in e.fetch_held:
                x.hold_fetch = False
            e.fetch_held = []

    def _entry_gone(self, sm, slot: _Slot, e: _Entry) -> None:
        """Entry ``e`` left the table (all majority warps arrived, or removed)."""
        if slot.entries.get(e.pc) is e:
            del slot.entries[e.pc]
        self._release_fetch(e)
        if e.sync and e.waiters:
            if e.complete and not e.wb:
                return  # the leader's writeback releases the waiters (they then rename)
            self._release_sync(sm, slot, e, skip=e.complete)
        for reg, _k, ver in e.dsts:
            v = slot.versions.get((reg, ver))
            if v is not None:
                v[1] = False
                self._maybe_free(slot, reg, ver)

    def _release_sync(self, sm, slot: _Slot, e: _Entry, skip: bool = True) -> None:
        """Release the warps held at Sync entry ``e`` (they skip it if it completed)."""
        waiters, e.waiters = e.waiters, []
        for w in waiters:
            w.hold = False
            w.hold_fetch = False
            if w.done:
                continue
            if skip:
                self._follow(sm, slot, w, e)
                w.fetch_pc = e.pc + 8
        sm.wake_schedulers()

    def _drop_loads(self, sm, s: _SMState, slots, store_tb) -> None:
        """§4.4: a store (or global atomic/fence) removes the load entries. The warps that
        took a removed entry (its leader and the followers that skipped it) are past its
        PC: like the victims of a replacement, they count as arrived at a later entry for
        the PC in this barrier window (``slot.passed``). Without this a later Sync entry
        for the PC waits for them forever (LIBBENCH on a 2-SM Pascal deadlocked)."""
        took = {}
        if self.params.drop_keeps_arrivals:
            # the mechanism's own record of who took each entry (not a priced table read:
            # the invalidation itself is what the store costs)
            table = getattr(s.table, "_obj", s.table)
            for slot in slots:
                rows = table.entries_of(slot.index)
                for e in slot.entries.values():
                    r = rows.get(e.index) if e.is_load else None
                    if r is not None:
                        held = 0
                        for x in e.waiters:
                            held |= 1 << x.widx
                        took[id(e)] = r.mask & ~held
        if store_tb is not None:
            s.table.store(store_tb)
        else:
            s.table.global_atomic()
        for slot in slots:
            for e in [e for e in slot.entries.values() if e.is_load]:
                sm.stats.count_mechanism("darsie.load_drops")
                mask = took.get(id(e), 0)
                if mask and not e.complete:
                    slot.passed[e.pc] = slot.passed.get(e.pc, 0) | mask
                self._entry_gone(sm, slot, e)

    def _check_entries(self, sm, s: _SMState, slot: _Slot) -> None:
        """After the majority mask shrank: entries every remaining majority warp passed
        are complete; branch synchronisation may now be resolved."""
        maj = slot.majority
        for pc, e in list(slot.entries.items()):
            r = s.table.entries_of(slot.index).get(e.index)
            if r is not None and r.mask & maj == maj:
                s.table.invalidate(slot.index, e.index)
                e.complete = True
                self._entry_gone(sm, slot, e)

    # ------------------------------------------------------------------ majority path
    def _leave(self, sm, slot: _Slot, w, copy_back: bool = True) -> None:
        """``w`` leaves the majority path (§4.3.3): copy renamed values back, clear state."""
        s = self._sms[sm.id]
        if not slot.majority >> w.widx & 1:
            return
        slot.majority &= ~(1 << w.widx)
        s.table.set_majority(slot.index, slot.majority)
        sm.stats.count_mechanism("darsie.majority_leaves")
        held = slot.renamed.pop(w.widx, {})
        if held:
            slot.rename.clear_warp(w.widx)
            if copy_back and not w.done:
                self._copy_back(sm, slot, w, held)
            for reg, ver in held.items():
                self._maybe_free(slot, reg, ver)
        slot.arrivals.pop(w.widx, None)
        w.hold_fetch = False
        if w.hold_issue:
            w.hold_issue = False
            sm.wake_schedulers()
        if w.hold and not any(w in e.waiters for e in slot.entries.values()):
            w.hold = False
            sm.wake_schedulers()
        self._check_entries(sm, s, slot)
        self._resolve_branch(sm, slot)

    def _copy_back(self, sm, slot: _Slot, w, held: dict) -> None:
        regs = sorted(held)
        fake = [self._phys_index(sm, slot, w, held[r], r) for r in regs]
        done = sm.read_operands(w, fake)
        sm.schedule_writeback(w, regs, done)
        sm.stats.count_mechanism("darsie.copyback_regs", len(regs))

    def _phys_index(self, sm, slot: _Slot, w, ver: int, reg: int) -> int:
        """A register index that the operand collector maps to the bank holding the
        physical register of (reg, ver) (renamed registers are strided over the banks,
        offset per TB slot)."""
        v = slot.versions.get((reg, ver))
        phys = v[0] if v is not None else reg
        bank = (slot.freelist.bank_of(phys) + slot.index * self.params.freelist) % self.banks
        return sm.register_in_bank(w, bank)

    def on_operand_read(self, sm, w, pc: int, regs: list) -> list:
        slot = self._sms.get(sm.id).by_tb.get(w.tb.tb_id) if sm.id in self._sms else None
        if slot is None or slot.tb is not w.tb:
            return regs
        m = slot.renamed.get(w.widx)
        if not m:
            return regs
        out = []
        for r in regs:
            ver = m.get(r)
            if ver is None:
                out.append(r)
                continue
            got = slot.rename.lookup(w.widx, r)
            phys = slot.version.lookup(r, got) if got is not None else None
            if phys is None:
                raise SimtlabError(f"darsie: renamed register {r} of warp {w.widx} has no version")
            sm.stats.count_mechanism("darsie.renamed_reads")
            out.append(self._phys_index(sm, slot, w, ver, r))
        self._drop_dead(sm, slot, w, pc)
        return out

    def on_branch(self, sm, w, pc: int, record, diverged: bool) -> None:
        slot = self._sms.get(sm.id).by_tb.get(w.tb.tb_id) if sm.id in self._sms else None
        if slot is None or slot.tb is not w.tb:
            return
        op = sm.decoded[pc >> 3].opcode
        if op in ("bar", "barrier"):
            wave = w.wave
            if self.params.rejoin_at_barrier and not wave.at_barrier.any():
                # barrier released: majority bits reset (§4.3.3; sound with the marking's
                # join_taint, see DarsieParams). Every warp is past every PC before the
                # barrier, so the TB's entries are finished (as at a branch barrier).
                s = self._sms[sm.id]
                for e in list(slot.entries.values()):
                    if e.waiters:
                        raise SimtlabError(f"darsie: warps held at Sync pc 0x{e.pc:x} at a "
                                           f"barrier release")
                    s.table.invalidate(slot.index, e.index)
                    e.complete = True
                    self._entry_gone(sm, slot, e)
                slot.passed.clear()
                maj = 0
                for x in w.tb.warps:
                    if not x.done and full_mask(x):
                        maj |= 1 << x.widx
                if maj & ~slot.majority:
                    sm.stats.count_mechanism("darsie.rejoins", (maj & ~slot.majority).bit_count())
                slot.majority = maj
                s.table.set_majority(slot.index, maj)
                for x in w.tb.warps:  # eligibility changed: fetch asks DARSIE again
                    x.hold_fetch = False
            elif slot.majority >> w.widx & 1:
                self._resolve_branch(sm, slot)
            return
        if not slot.majority >> w.widx & 1:
            return
        if record.finished or w.done:
            self._leave(sm, slot, w, copy_back=False)
            return
        if diverged or not full_mask(w):
            self._leave(sm, slot, w)
            return
        if op != "bra" or pc in self.no_sync:
            return
        slot.arrivals[w.widx] = (pc, sm.launch.next_pc(w.wave, w.widx))
        if self.params.fetch_while_held:
            w.hold_issue = True    # it may fetch ahead; skippable PCs wait for the release
        else:
            w.hold = True
        sm.stats.count_mechanism("darsie.branch_waits")
        self._resolve_branch(sm, slot)

    def _resolve_branch(self, sm, slot: _Slot) -> None:
        """Release the TB-wide branch barrier once every majority warp has arrived at a
        branch (or waits at bar.sync): the most common (branch, direction) stays."""
        if not slot.arrivals:
            return
        warps = slot.tb.warps
        maj = slot.majority
        at_bar = []
        for x in warps:
            if not maj >> x.widx & 1 or x.done:
                continue
            if x.widx in slot.arrivals:
                continue
            if x.wave.at_barrier[x.widx]:
                at_bar.append(x)
                continue
            return
        groups: dict = {}
        for widx, key in sorted(slot.arrivals.items()):
            groups.setdefault(key, []).append(widx)
        best = max(groups.values(), key=lambda g: (len(g), -g[0]))
        arrived = dict(slot.arrivals)
        slot.arrivals.clear()
        sm.stats.count_mechanism("darsie.branch_syncs")
        # every majority warp is past every PC of the block: its entries are finished
        s = self._sms[sm.id]
        for e in list(slot.entries.values()):
            if e.waiters:
                raise SimtlabError(f"darsie: warps held at Sync pc 0x{e.pc:x} at a branch sync")
            s.table.invalidate(slot.index, e.index)
            e.complete = True
            self._entry_gone(sm, slot, e)
        slot.passed.clear()
        for widx in arrived:
            warps[widx].hold = False
            warps[widx].hold_issue = False
            warps[widx].hold_fetch = False
        sm.wake_schedulers()
        for widx in arrived:
            if widx not in best:
                self._leave(sm, slot, warps[widx])
        for x in at_bar:
            self._leave(sm, slot, x)


def _params(variant: str, kwargs: dict) -> DarsieParams:
    """DarsieParams of a registry name with its arguments (``darsie:freelist=64,...``);
    unknown or internal arguments are a ConfigError naming the accepted ones."""
    ok = ("skip_tbs", "entries", "read_ports", "coalescer_slots", "max_skips_per_fetch",
          "freelist", "rename_entries", "free_dead", "rejoin_at_barrier", "wait_for_wb",
          "branch_sync", "fetch_while_held", "lead_at_decode", "replace_when_full",
          "drop_keeps_arrivals")
    bad = sorted(set(kwargs) - set(ok))
    if bad:
        raise ConfigError(f"{variant}: unknown argument(s) {', '.join(bad)} "
                          f"(accepted: {', '.join(ok)})")
    return DarsieParams(variant=variant, **kwargs)


_TAKES = takes(DarsieParams, fixed=("variant",),
                internal=("trace_dir", "trace_meta", "version_width", "pc_width"))


@_TAKES
def make_darsie(config, **kwargs):
    return DarsieMechanism(config, _params("darsie", kwargs))


@_TAKES
def make_darsie_ignore_store(config, **kwargs):
    return DarsieMechanism(config, _params("darsie-ignore-store", kwargs))
