"""Cycle-level model of one streaming multiprocessor (SM), execution-driven.

Per cycle (:meth:`SM.tick`), in this order:

1. **writeback** -- results whose writeback cycle arrived release their scoreboard
   reservations and count RF writes;
2. **memory port** -- the oldest memory request whose MEM-pipeline stage finished is
   presented to :class:`~golden.timing.memory.hierarchy.MemoryHierarchy` (in order; a
   reservation fail keeps it at the head until ``retry_cycle``); its completion cycle
   gates the load's writeback;
3. **issue** -- each issue scheduler (:mod:`golden.timing.scheduler`) picks a warp whose
   I-buffer head is valid, not at a barrier, free of RAW/WAW hazards
   (:mod:`golden.timing.scoreboard`), with a free collector unit and pipeline unit. At
   issue the functional core executes the instruction
   (:meth:`golden.simt.engine.FunctionalLaunch.step_warp`), so branches, divergence and
   memory addresses are exact. Operands are read from the banked RF
   (:mod:`golden.timing.operand_collector`), then the instruction enters its pipeline
   (:mod:`golden.timing.pipelines`): issue in cycle ``t``, conflict-free operand read in
   ``t + read_delay``, pipeline entry ``dispatch_delay`` cycles after the last read (a
   pipeline unit counts as available to an issuing instruction when it is free by ``t +
   read_delay + dispatch_delay``), scoreboard release ``writeback_delay`` cycles after
   the result leaves the pipeline (``register_file`` section). Each scheduler records one
   stall outcome per cycle;
4. **fetch** -- loose round robin over warps with a free I-buffer slot (or an empty
   I-buffer, ``fetch_needs_empty_ibuffer``), ``fetch_width`` warps per cycle, each fetch
   one I-cache access delivering up to ``fetch_instructions`` sequential instructions
   (:mod:`golden.timing.fetch`; ``idealisations.perfect_icache`` makes every access hit).

Issue may take up to ``issue_width`` instructions from one warp per scheduler and cycle;
with ``dual_issue_distinct_units`` they must go to different pipeline classes.
Per-instruction latency comes from ``pipelines.op_classes`` (see
:mod:`golden.timing.pipelines`).

Fetch follows the PC sequentially; after an instruction issues, the SM compares the
warp's next PC (``next_pc`` of the functional core) with what the I-buffer holds and
flushes the I-buffer on a mismatch (taken branch, reconvergence, call/return).

Control hazards: where the dependence tracking holds a warp on every instruction
(``one_in_flight``, or a mechanism's tracker with ``tracks_all``), a branch holds its
warp until it resolves: its writeback, or ``pipelines.control_latency`` cycles after it
entered EX. A mechanism that predicts branches (``predict_fetch``) makes fetch follow the
predicted path after a ``bra``; at issue the mechanism says (``speculate_branch``)
whether the warp went on without waiting. Wrong-path instructions are never issued: a
mispredicted warp waits for the branch to resolve, and the fetched wrong path is flushed.

Simplifications (documented): TB dispatch is instantaneous; a warp is done when its
last thread exits, and a TB retires when all its warps are done, without waiting for
outstanding stores; predicate registers live in the same banked RF as data registers;
``%smid`` seen by kernels is the functional core's ``tb mod num_sms``, not the SM the
dispatcher chose.
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass

import numpy as np

from golden.errors import ConfigError
from golden.simt.liveness import operand_regs as _regs_of
from golden.simt.memory import LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE
from golden.timing.fetch import IBuffer, InstructionCache
from golden.timing.hooks import IssueOverride, Mechanism
from golden.timing.operand_collector import OperandCollector
from golden.timing.pipelines import CONTROL_OPCODES, PipelineClass, op_timing, pipe_of
from golden.timing.scheduler import NEVER, IssueScheduler
from golden.timing.scoreboard import TRACKERS, Scoreboard, Tagged
from golden.timing.stats import (PIPE_ALU, PIPE_MEM, PIPE_SFU, STALL_BARRIER, STALL_DEPENDENCE,
                                 STALL_ISSUE, STALL_MEMORY, STALL_NO_INSTRUCTION,
                                 STALL_STRUCTURAL)

#: Opcodes whose first operand is no destination: the timing model decodes their operands
#: as sources only (:func:`decode_program`); public for mechanisms that decode alike.
NO_DST_OPCODES = frozenset({"st", "red", "bra", "bar", "barrier", "call", "exit", "ret"})
_NO_DST = NO_DST_OPCODES
_PIPE_NAMES = {"alu": PIPE_ALU, "sfu": PIPE_SFU, "mem": PIPE_MEM}
#: Synthetic base of local memory in the timing model: thread t's 4-byte word k of local
#: memory lives at LOCAL_TIMING_BASE + (k * threads + t) * 4 (interleaved like CUDA's
#: local memory, so a warp's same-offset accesses coalesce).
LOCAL_TIMING_BASE = 1 << 44


@dataclass(frozen=True)
class DecodedInst:
    """Timing-relevant decode of one instruction slot.

    ``srcs`` / ``dsts`` are register indices (position in the program's sorted register
    table); ``hazard`` = srcs + dsts (what the scoreboard checks); ``vec`` is the vector
    width of a memory access; ``guard`` the storage key of the guard predicate;
    ``timing`` the instruction's own ``(latency, interval, lane-group cycles)`` or None
    for the pipeline's defaults (:func:`golden.timing.pipelines.op_timing`).
    """

    opcode: str | None
    pipe: int
    srcs: tuple
    dsts: tuple
    hazard: tuple
    is_mem: bool
    is_control: bool
    vec: int
    guard: str | None
    guard_negated: bool
    timing: tuple | None = None


def decode_program(program, pipelines=None, warp_size: int = 32) -> list:
    """:class:`DecodedInst` for every slot of ``program`` (index = pc >> 3).

    ``pipelines`` (a :class:`~golden.configs.schema.PipelinesConfig`) gives per-instruction
    latencies and the routing of op classes to pipelines
    (:func:`golden.timing.pipelines.pipe_of`); without it every instruction takes its
    pipeline's defaults and only the transcendental opcodes run on the SFU."""
    index = {k: i for i, k in enumerate(sorted(program.reg_types))}
    out = []
    for s in program.slots:
        inst = s.inst
        if inst is None:
            out.append(DecodedInst(None, PIPE_ALU, (), (), (), False, True, 1, None, False))
            continue
        op = inst.opcode
        ops = inst.operands
        has_dst = op not in _NO_DST and len(ops) > 0
        dst_regs = _regs_of(ops[0]) if has_dst else []
        src_ops = ops[1:] if has_dst else ops
        if op == "call":
            src_ops = ()
        src_regs = [r for o in src_ops for r in _regs_of(o)]
        guard = None
        if inst.guard is not None:
            guard = s.regs.get(inst.guard.reg.name)
            src_regs.append(inst.guard.reg)

        def idx(rs):
            return tuple(dict.fromkeys(index[s.regs[r.name]] for r in rs if r.name in s.regs))

        srcs, dsts = idx(src_regs), idx(dst_regs)
        vec = next((int(m[1:]) for m in inst.mods if m in ("v2", "v4", "v8")), 1)
        pipe = pipe_of(op, inst.types, pipelines)
        timing = (op_timing(pipelines, pipe, op, inst.types, warp_size)
                  if pipelines is not None else None)
        hazard = tuple(dict.fromkeys(srcs + dsts))
        out.append(DecodedInst(op, pipe, srcs, dsts, hazard,
                               pipe == PIPE_MEM, op in CONTROL_OPCODES, vec, guard,
                               bool(inst.guard is not None and inst.guard.negated), timing))
    return out


def _blocked(sb, d) -> int:
    """``sb.blocked(d)`` of a warp's dependence tracker; the baseline :class:`Scoreboard`
    is called directly when the core is compiled (no Python method lookup)."""
    if type(sb) is Scoreboard:
        fsb = sb
        return fsb.blocked(d)
    return sb.blocked(d)


class WarpSlot:
    """A resident warp: its functional state handle, I-buffer, scoreboard and fetch PC."""

    __slots__ = ("tb", "wave", "at_bar", "widx", "slot", "gid", "sched", "ibuf", "sb", "fetch_pc",
                 "done", "age", "hold", "hold_issue", "hold_fetch", "mem_wait", "dyn")

    def __init__(self, tb, widx: int, slot: int, gid: int, ibuf_entries: int, age: int,
                 tracker=Scoreboard):
        self.tb = tb
        self.wave = tb.wave
        #: the wave's per-warp barrier flags as bytes (the issue walk reads this warp's;
        #: compiled, a typed memoryview: no numpy indexing per warp scanned)
        self.at_bar = tb.wave.at_barrier.view(np.uint8)
        self.widx = widx
        self.slot = slot
        self.gid = gid
        self.sched = None
        self.ibuf = IBuffer(ibuf_entries)
        self.sb = tracker()   # dependence tracking (golden/timing/scoreboard.py)
        self.fetch_pc = 0
        self.done = False
        self.age = age
        #: set by a mechanism to stop this warp fetching and issuing (e.g. DARSIE's
        #: TB-wide synchronisation); counted as a ``barrier`` stall; see hooks.py
        self.hold = False
        self.hold_issue = False
        #: set by a mechanism whose ``on_fetch`` would refuse this warp's fetch until an
        #: SM event it sees (a writeback, an issue) changes that: the fetch stage refuses
        #: the warp without asking the mechanisms (see hooks.py)
        self.hold_fetch = False
        #: the instruction at the I-buffer head waited on a memory (long-latency)
        #: dependence before it issued; read by mechanisms in their issue hooks
        self.mem_wait = False
        #: None for a static warp; a :class:`~golden.timing.dynamic_warps.DynWarp` when a
        #: warp-formation policy chooses its threads (golden/timing/dynamic_warps.py)
        self.dyn = None


class ResidentTB:
    """A thread block resident on an SM: its wave (functional state), its resident warps
    and, after a partial dispatch, its *unissued* warps (``pending``, in warp-id order).

    Registers, threads and scheduler entries are held per warp (``held_*``: what the
    TB's resident and finished-but-unreclaimed warps still hold); shared memory and the
    TB slot are held by the TB until its last warp finishes."""

    __slots__ = ("tb_id", "wave", "warps", "live", "threads", "regs", "shared", "pending",
                 "regs_per_warp", "held_regs", "held_threads", "held_warps", "dispatched")

    def __init__(self, tb_id, wave, threads, regs, shared):
        self.tb_id = tb_id
        self.wave = wave
        self.warps: list = []
        self.live = 0
        self.threads = threads
        self.regs = regs
        self.shared = shared
        self.pending: deque = deque()
        self.regs_per_warp = regs // wave.nwarps
        self.held_regs = 0
        self.held_threads = 0
        self.held_warps = 0
        self.dispatched = 0   # cycle the TB was dispatched

    def warp_threads(self, widx: int) -> int:
        """Threads of warp ``widx`` (the last warp of a TB may be partly filled)."""
        return min(32, self.threads - 32 * widx)


class SM:
    """One SM: front end, schedulers, operand collector, pipelines, memory port."""

    def __init__(self, sm_id: int, config, launch, decoded, memory, stats, mechanisms=()):
        core = config.core
        self.id = sm_id
        self.cfg = config
        self.launch = launch
        self.decoded = decoded
        self.memory = memory
        self.stats = stats
        self.mechanisms = tuple(mechanisms)
        self.warp_size = core.warp_size
        self.icache = InstructionCache(core.icache)
        self.oc = OperandCollector(config.register_file, core.num_schedulers_per_sm)
        rf = config.register_file
        #: an issuing instruction enters its pipeline ``entry_offset`` cycles after issue
        #: (conflict-free operand read); a unit counts as available if free by then
        self.entry_offset = rf.read_delay + rf.dispatch_delay
        self.dispatch_extra = rf.dispatch_delay - 1
        self.wb_delay = rf.writeback_delay
        self.bypass = config.pipelines.bypass
        self.control_latency = config.pipelines.control_latency
        #: mechanisms that predict branches at fetch: the SM then speculates past branches
        #: (hooks.py: predict_fetch / speculate_branch)
        self.predictors = tuple(m for m in self.mechanisms
                                if type(m).predict_fetch is not Mechanism.predict_fetch)
        #: mechanisms that free a finished warp's resources early (hooks.py: reclaim_warp)
        self.reclaimers = tuple(m for m in self.mechanisms
                                if type(m).reclaim_warp is not Mechanism.reclaim_warp)
        #: mechanisms that form the warps of a TB themselves (hooks.py: form_warps)
        self.formers = tuple(m for m in self.mechanisms
                             if type(m).form_warps is not Mechanism.form_warps)
        if self.formers and self.predictors:
            raise ConfigError("dynamic warps (form_warps) cannot be combined with a mechanism "
                              "that predicts branches at fetch (it reads per-warp SIMT stacks)")
        #: mechanisms told when warps become resident / finish
        self.warp_observers = tuple(
            m for m in self.mechanisms if type(m).on_warp_start is not Mechanism.on_warp_start
            or type(m).on_warp_exit is not Mechanism.on_warp_exit)
        p = config.pipelines
        self.pipes = [PipelineClass(p.alu, core.warp_size), PipelineClass(p.sfu, core.warp_size),
                      PipelineClass(p.mem, core.warp_size)]
        self.schedulers = [IssueScheduler(i, core.scheduler, core.two_level_active_warps)
                           for i in range(core.num_schedulers_per_sm)]
        # unit of each pipeline class a scheduler is pinned to (-1: any free unit)
        n_sched = core.num_schedulers_per_sm
        self.sched_units = [
            tuple(s % len(pc.free_at) if core.sub_core_units and k != PIPE_MEM
                  and len(pc.free_at) >= n_sched else -1 for k, pc in enumerate(self.pipes))
            for s in range(n_sched)]
        self.issue_width = core.issue_width
        self.dual_distinct = core.dual_issue_distinct_units
        self.fetch_width = core.fetch_width
        self.fetch_insts = core.fetch_instructions
        self.fetch_empty = core.fetch_needs_empty_ibuffer
        self.perfect_icache = config.idealisations.perfect_icache
        self.ibuf_entries = core.ibuffer_entries
        self.tracker = TRACKERS[config.pipelines.dependence_tracking]
        self.n_slots = core.max_warps_per_sm
        self.free_slots = list(range(core.max_warps_per_sm))
        #: True (set by mechanisms that free single warps' entries, e.g. WarpMan): warp w
        #: of a TB only takes an entry of scheduler w mod num_schedulers, so each TB's
        #: warps stay interleaved over the schedulers as GPGPU-Sim's per-CTA warp ids
        #: give. False (default): the lowest free entry, which whole-TB release already
        #: keeps interleaved.
        self.slot_interleave = False
        self.warps: list = []          # resident warps, in dispatch order
        self.tbs: list = []
        self._fetch_ptr = 0
        self._wb: list = []            # heap (cycle, seq, warp, regs, pc)
        self._memq: deque = deque()    # [ready_cycle, warp, access, regs, pc]
        self._seq = 0
        self._age = 0
        self.retired: list = []        # TBs retired in the last tick
        #: resources were freed in the last tick (a TB retired or a warp was reclaimed):
        #: the dispatcher runs (GPU._simulate)
        self.freed = False
        #: what one TB of the launch needs (golden.timing.occupancy.Occupancy; set by the
        #: launch's KernelRun)
        self.occupancy = None
        #: the TB with dispatched-but-unissued warps (partial-TB dispatch), at most one
        self.partial_tb = None
        # occupancy counters (resources in use)
        self.used_threads = 0
        self.used_regs = 0
        self.used_shared = 0
        self.used_warps = 0
        self.n_prog = len(decoded) * 8
        self.local_threads = 1
        self.now = 0
        # Per-SM event skipping (see GPU.run): a tick without progress that leaves the SM
        # ``quiescent`` lets it sleep until its next_event(); ``sleep_since`` is the last
        # cycle it ticked (None while awake), ``wake_at`` the cycle it ticks again.
        self.quiescent = False
        self.sleep_since = None
        self.wake_at = 0
        self._fetch_refused = False
        #: per-PC counters of the launch (golden/timing/pc_profile.py); None = off
        self.pc_profile = None

    # ------------------------------------------------------------------ dispatch
    def add_tb(self, tb_id: int, threads: int, regs: int, shared: int,
               n_warps: int | None = None) -> None:
        """Make thread block ``tb_id`` resident (resources were checked by the dispatcher):
        all its warps, or with ``n_warps`` only the first ``n_warps`` (a partial dispatch;
        the others wait in ``tb.pending`` until :meth:`activate_pending`)."""
        wave = self.launch.make_wave([tb_id])
        tb = ResidentTB(tb_id, wave, threads, regs, shared)
        tb.dispatched = self.now
        n = wave.nwarps if n_warps is None else n_warps
        tb.live = wave.nwarps
        self.tbs.append(tb)
        self.used_shared += shared
        if n < wave.nwarps:   # the unissued warps are known as the first ones start
            tb.pending.extend(range(n, wave.nwarps))
            self.partial_tb = tb
        for widx in range(n):
            self._start_warp(tb, widx)
        for m in self.formers:
            f = m.form_warps(self, tb)
            if f is not None:
                if tb.pending:
                    raise ConfigError(f"{type(m).__name__}: dynamic warps need whole thread "
                                      "blocks (no partial-TB dispatch)")
                f.start()
                break

    def _start_warp(self, tb: ResidentTB, widx: int) -> None:
        """Give warp ``widx`` of ``tb`` a scheduler entry and registers: it becomes resident."""
        wave = tb.wave
        fs = self.free_slots
        slot = -1
        if self.slot_interleave:
            n_sched = len(self.schedulers)
            for i in range(len(fs)):
                if fs[i] % n_sched == widx % n_sched:
                    slot = fs.pop(i)
                    break
            if slot < 0:
                raise ConfigError(f"SM {self.id}: no free entry of scheduler "
                                  f"{widx % n_sched} for warp {widx} of TB {tb.tb_id}")
        else:
            slot = fs.pop(0)
        w = WarpSlot(tb, widx, slot, tb.tb_id * wave.nwarps + widx, self.ibuf_entries,
                     self._age, self.tracker)
        self._age += 1
        w.fetch_pc = self.launch.next_pc(wave, widx)
        for m in self.mechanisms:
            t = m.make_tracker(self, w)
            if t is not None:
                w.sb = t
        w.sched = self.schedulers[slot % len(self.schedulers)]
        w.sched.add(w)
        tb.warps.append(w)
        self.warps.append(w)
        nt = tb.warp_threads(widx)
        tb.held_regs += tb.regs_per_warp
        tb.held_threads += nt
        tb.held_warps += 1
        self.used_regs += tb.regs_per_warp
        self.used_threads += nt
        self.used_warps += 1
        for m in self.warp_observers:
            m.on_warp_start(self, w)

    def warp_fits(self, regs_per_warp: int, threads: int = 32, widx: int = -1) -> bool:
        """True when one more warp (``regs_per_warp`` registers, ``threads`` threads; with
        ``slot_interleave``, warp ``widx`` of its TB) gets a scheduler entry, registers and
        threads on this SM now."""
        core = self.cfg.core
        return (self.used_warps < core.max_warps_per_sm and bool(self.free_slots)
                and self.used_regs + regs_per_warp <= core.registers_per_sm
                and self.used_threads + threads <= core.max_threads_per_sm
                and (not self.slot_interleave or widx < 0
                     or self.entries_fit(widx, 1) == 1))

    def entries_fit(self, first_widx: int, count: int) -> int:
        """How many of warps ``first_widx`` .. ``first_widx + count - 1`` of a TB, in warp-id
        order, get a free entry of their own scheduler (warp w: scheduler w mod
        num_schedulers); all of them without ``slot_interleave`` (any free entry serves,
        counted elsewhere)."""
        if not self.slot_interleave:
            return count
        n_sched = len(self.schedulers)
        free = [0] * n_sched
        for s in self.free_slots:
            free[s % n_sched] += 1
        k = 0
        for i in range(count):
            j = (first_widx + i) % n_sched
            if free[j] == 0:
                break
            free[j] -= 1
            k += 1
        return k

    def activate_pending(self) -> int:
        """Make the partial TB's unissued warps resident, in warp-id order, while they fit
        (called when resources were freed, before new TBs are dispatched). Returns how
        many became resident."""
        tb = self.partial_tb
        if tb is None:
            return 0
        n = 0
        while tb.pending and self.warp_fits(tb.regs_per_warp, tb.warp_threads(tb.pending[0]),
                                            tb.pending[0]):
            self._start_warp(tb, tb.pending.popleft())
            n += 1
        if not tb.pending:
            self.partial_tb = None
        if n:
            self.wake_schedulers()
        return n

    def _release_warp(self, tb: ResidentTB, w: WarpSlot) -> None:
        nt = tb.warp_threads(w.widx)
        tb.held_regs -= tb.regs_per_warp
        tb.held_threads -= nt
        tb.held_warps -= 1
        self.used_regs -= tb.regs_per_warp
        self.used_threads -= nt
        self.used_warps -= 1
        self.freed = True

    def finish_warp(self, w: WarpSlot) -> None:
        """Warp ``w`` is done (for warp-formation policies: every thread of its TB exited)."""
        self._finish_warp(w)

    def _finish_warp(self, w: WarpSlot) -> None:
        w.done = True
        w.ibuf.flush()
        w.sched.remove(w)
        self.warps.remove(w)
        self.free_slots.append(w.slot)
        self.free_slots.sort()
        tb = w.tb
        for m in self.warp_observers:
            m.on_warp_exit(self, w)
        if self.reclaimers and any([m.reclaim_warp(self, w) for m in self.reclaimers]):
            self._release_warp(tb, w)
        tb.live -= 1
        if tb.live == 0:
            self.tbs.remove(tb)
            self.used_threads -= tb.held_threads
            self.used_regs -= tb.held_regs
            self.used_warps -= tb.held_warps
            self.used_shared -= tb.shared
            tb.held_regs = tb.held_threads = tb.held_warps = 0
            self.retired.append(tb)
            self.freed = True

    # ------------------------------------------------------------------ one cycle
    def tick(self, now: int) -> bool:
        """Simulate cycle ``now``; return True if anything happened (for event skipping)."""
        progress = False
        self.now = now  # current cycle, for mechanisms
        st = self.stats
        st.sm_cycles += 1
        st.resident_warp_cycles += len(self.warps)
        wb = self._wb
        if wb and wb[0][0] <= now:
            progress = True
            self._writeback(now)
        if self._memq and self._memq[0][0] <= now:
            progress = self._memory_port(now) or progress
        stalls = st.stalls
        prof = self.pc_profile
        for sched in self.schedulers:
            if sched.warps:
                if not sched.dirty and now < sched.wake:
                    # nothing this scheduler depends on changed since it stalled: same outcome
                    stalls[sched.last_reason] += 1
                    st.scheduler_cycles += 1
                    if prof is not None:
                        prof.outcome(sched.last_reason, sched.stall_pc, 1)
                    continue
                sched.dirty = False
                reason = self._issue(sched, now)
                if reason == STALL_ISSUE:
                    progress = True
                    sched.dirty = True
                elif not sched.dirty:
                    sched.wake = self._wake_cycle(sched, now)
                sched.last_reason = reason
                stalls[reason] += 1
                st.scheduler_cycles += 1
                if prof is not None:
                    prof.outcome(reason, sched.stall_pc, 1)
        if self.warps and self._fetch(now):
            progress = True
        if not progress:
            # May the SM sleep until next_event()? Only if nothing asked for a re-evaluation
            # next cycle: no dirty scheduler (e.g. a two-level active-set swap) and no
            # mechanism that refused a fetch this cycle (it may retry, e.g. a port conflict).
            q = not self._fetch_refused
            if q:
                for sched in self.schedulers:
                    if sched.dirty and sched.warps:
                        q = False
                        break
            self.quiescent = q
        return progress

    def _wake_cycle(self, sched: IssueScheduler, now: int) -> int:
        """Earliest cycle at which a stalled scheduler's outcome can change by itself (an
        I-buffer entry becoming valid, a pipeline unit or a collector unit freeing). Events
        (writeback, fetch, barrier release, warp arrival/exit) set ``sched.dirty`` instead."""
        wake = sched.head_ready  # earliest not-yet-valid I-buffer head, from _issue's walk
        eo = self.entry_offset
        for p in self.pipes:
            for f in p.free_at:
                if now < f - eo < wake:
                    wake = f - eo
        r = self.oc.next_release()
        if r is not None and now < r < wake:
            wake = r
        return wake

    def wake_schedulers(self) -> None:
        """Force every scheduler to re-evaluate next cycle (for mechanisms that change warp
        state behind the SM's back, e.g. releasing a warp they held)."""
        for sched in self.schedulers:
            sched.dirty = True

    # ------------------------------------------------------------------ mechanism services
    # The operations a mechanism may ask of the SM beyond reading its public fields and
    # setting warp holds (golden/timing/hooks.py, "SM services"); the SM's queues and
    # counters behind them stay private.
    def read_operands(self, w: WarpSlot, regs) -> int:
        """Read ``regs`` (register indices as the banked RF maps them, see
        :meth:`register_in_bank`) for warp ``w`` through the operand collector at cycle
        ``now``, counting RF reads and bank conflicts as for an issued instruction's sources;
        return the cycle the operands are ready."""
        return self.oc.read(self.now, w.slot, regs, self.stats)

    def schedule_writeback(self, w: WarpSlot, regs, cycle: int, pc: int = -1) -> None:
        """Write registers ``regs`` of warp ``w`` back at ``cycle`` outside the issue path
        (e.g. DARSIE's copy-back of renamed registers): they are reserved in the warp's
        dependence tracker now and released at ``cycle``, where the ``on_writeback`` hooks
        see them (with ``pc``; -1: no instruction) and RF writes are counted as for an issued
        instruction's destinations. Wakes the schedulers."""
        w.sb.reserve(regs, False)
        self._seq += 1
        heapq.heappush(self._wb, (cycle, self._seq, w, tuple(regs), pc))
        self.wake_schedulers()

    def register_in_bank(self, w: WarpSlot, bank: int) -> int:
        """A register index that the operand collector maps to RF bank ``bank`` for warp
        ``w`` (under the configured bank mapping), for a mechanism that reads a register it
        keeps outside the warp's own (e.g. DARSIE's renamed physical registers)."""
        oc = self.oc
        return (bank - w.slot) % oc.banks if oc.skew else bank

    @property
    def operand_read_delay(self) -> int:
        """Cycles from issue to the first operand read (the operand collector's
        ``read_delay``)."""
        return self.oc.read_delay

    def account_idle(self, cycles: int) -> None:
        """Skipped ``cycles`` in which nothing changed: each scheduler repeats its outcome."""
        st = self.stats
        st.sm_cycles += cycles
        st.resident_warp_cycles += len(self.warps) * cycles
        for sched in self.schedulers:
            if sched.warps:
                st.stalls[sched.last_reason] += cycles
                st.scheduler_cycles += cycles
                if self.pc_profile is not None:
                    self.pc_profile.outcome(sched.last_reason, sched.stall_pc, cycles)

    def sleep(self, now: int) -> None:
        """Stop ticking after cycle ``now`` (which made no progress and left the SM
        quiescent) until :meth:`next_event`; ``wake_at`` is huge if the SM waits only for
        a new thread block."""
        self.sleep_since = now
        nxt = self.next_event(now)
        self.wake_at = NEVER if nxt is None else nxt

    def wake(self, upto: int) -> None:
        """End a sleep: the cycles after ``sleep_since`` up to ``upto`` repeated the last
        stall outcomes (as if ticked without progress); tick again from ``upto + 1``."""
        self.account_idle(upto - self.sleep_since)
        self.sleep_since = None
        self.wake_at = 0

    def next_event(self, now: int) -> int | None:
        """Earliest future cycle at which this SM's state can change (None if never)."""
        cands = []
        if self._wb:
            cands.append(self._wb[0][0])
        if self._memq:
            cands.append(self._memq[0][0])
        for w in self.warps:
            h = w.ibuf.head_at
            if h > now:  # (an empty I-buffer's head_at is EMPTY, never > now)
                cands.append(h)
        eo = self.entry_offset
        for p in self.pipes:
            for f in p.free_at:
                if f - eo > now:  # issue in t needs the unit by t + entry_offset (_issue)
                    cands.append(f - eo)
        r = self.oc.next_release()
        if r is not None and r > now:
            cands.append(r)
        cands = [c for c in cands if c > now]
        return min(cands) if cands else None

    # ------------------------------------------------------------------ writeback
    def _writeback(self, now: int) -> None:
        wb = self._wb
        st = self.stats
        oc = self.oc
        while wb and wb[0][0] <= now:
            _, _, w, regs, pc = heapq.heappop(wb)
            w.sb.release(regs)
            w.sched.dirty = True
            counted = regs
            if self.pc_profile is not None:
                self.pc_profile.enter()
            for m in self.mechanisms:
                counted = m.on_writeback(self, w, pc, list(counted))
            if self.pc_profile is not None:
                self.pc_profile.leave(pc)
            for r in counted:
                st.rf_writes[oc.bank(w.slot, r)] += 1

    # ------------------------------------------------------------------ memory
    def _memory_port(self, now: int) -> bool:
        q = self._memq
        head = q[0]
        ready, w, acc, regs, pc = head
        space, addrs, size = acc
        if self.pc_profile is not None:
            self.pc_profile.mem_enter()
        r = self.memory.serve(self.id, now, w.gid, addrs[0], addrs[1], size, addrs[2],
                              addrs[3], space)
        if self.pc_profile is not None:
            self.pc_profile.mem_leave(pc)
        if not r.ok:
            head[0] = max(now + 1, r.retry_cycle if r.retry_cycle is not None else now + 1)
            return False
        q.popleft()
        if regs:
            self._seq += 1
            heapq.heappush(self._wb, (max(r.completion_cycle + self.wb_delay, now + 1),
                                      self._seq, w, regs, pc))
        elif w.sb.tracks_all:  # a store reaches WB once the memory system accepted it
            self._seq += 1
            heapq.heappush(self._wb, (now + max(self.wb_delay, 1), self._seq, w, regs, pc))
        return True

    def _mem_request(self, w: WarpSlot, mem, vec: int, dyn=None):
        """(space, (addrs, active, is_store, is_atomic), bytes per lane) for the hierarchy."""
        addrs = mem.addrs
        active = mem.active
        space = mem.space
        if space == "generic":
            a = addrs[active]
            first = int(a[0]) if a.size else 0
            if SHARED_WINDOW <= first < SHARED_WINDOW + WINDOW_SIZE:
                space, addrs = "shared", addrs - np.uint64(SHARED_WINDOW)
            elif LOCAL_WINDOW <= first < LOCAL_WINDOW + WINDOW_SIZE:
                space, addrs = "local", addrs - np.uint64(LOCAL_WINDOW)
            else:
                space = "global"
        if space == "local":
            threads = np.uint64(self.launch.geo.num_tbs * self.launch.geo.warps_per_tb * 32)
            if dyn is None:
                t = np.uint64(w.gid * 32) + np.arange(32, dtype=np.uint64)
            else:  # a dynamic warp: lane l holds thread slot dyn.slots[l] of the TB's wave
                t = (np.uint64(w.tb.tb_id * w.wave.nwarps * 32)
                     + dyn.slots.astype(np.uint64))
            addrs = (np.uint64(LOCAL_TIMING_BASE) + ((addrs // np.uint64(4)) * threads + t)
                     * np.uint64(4) + addrs % np.uint64(4))
            return space, (addrs, active, mem.is_store, mem.is_atomic), mem.size
        return space, (addrs, active, mem.is_store, mem.is_atomic), mem.size * vec

    # ------------------------------------------------------------------ issue
    def _issue(self, sched: IssueScheduler, now: int) -> int:
        decoded = self.decoded
        pipes = self.pipes
        eo = self.entry_offset
        reason = None
        spc = -1   # I-buffer head of the warp that decided ``reason`` (pc_profile)
        has_inst = False
        at_bar = False
        head_ready = NEVER
        for w in sched.order():
            ib = w.ibuf
            if ib.size == 0:
                continue
            h = ib.head_at
            if h > now:
                if h < head_ready:
                    head_ready = h
                continue
            has_inst = True
            if w.at_bar[w.widx]:
                at_bar = True
                sched.long_stall(w)  # two_level: a warp waiting at a barrier leaves the active set
                continue
            if w.hold or w.hold_issue:  # a mechanism holds the warp (like a barrier wait)
                at_bar = True
                continue
            d = decoded[ib.head_pc >> 3]
            blk = _blocked(w.sb, d)
            if blk:
                if reason is None:
                    reason = (STALL_MEMORY if blk == 2 else STALL_STRUCTURAL if blk == 3
                              else STALL_DEPENDENCE)
                    spc = ib.head_pc
                if blk == 2:
                    sched.long_stall(w)
                    w.mem_wait = True
                continue
            units = self.sched_units[sched.index]
            pc_ = pipes[d.pipe]
            if not pc_.available(now + eo, units[d.pipe]) or not self.oc.free_unit(now):
                if reason is None:
                    reason = STALL_STRUCTURAL
                    spc = ib.head_pc
                continue
            if self.pc_profile is not None:
                sched.stall_pc = ib.head_pc  # an issue cycle belongs to the first issued
            self._execute(w, ib.head_pc, d, now)
            n = 1
            used = 1 << d.pipe  # pipeline classes issued to this cycle (dual issue rule)
            while n < self.issue_width and not w.done and ib.size and ib.head_at <= now \
                    and not w.at_bar[w.widx] and not w.hold and not w.hold_issue:
                d = decoded[ib.head_pc >> 3]
                if (self.dual_distinct and used & (1 << d.pipe)) or _blocked(w.sb, d):
                    break
                pc_ = pipes[d.pipe]
                if not pc_.available(now + eo, units[d.pipe]) or not self.oc.free_unit(now):
                    break
                self._execute(w, ib.head_pc, d, now)
                used |= 1 << d.pipe
                n += 1
            sched.issued(w)
            return STALL_ISSUE
        sched.head_ready = head_ready
        if not has_inst:
            if self.pc_profile is not None:
                sched.stall_pc = self._waiting_pc(sched, now, False)
            return STALL_NO_INSTRUCTION
        if reason is None:
            if self.pc_profile is not None:
                sched.stall_pc = self._waiting_pc(sched, now, True)
            return STALL_BARRIER if at_bar else STALL_STRUCTURAL
        if self.pc_profile is not None:
            sched.stall_pc = spc
        return reason

    def _waiting_pc(self, sched: IssueScheduler, now: int, held: bool) -> int:
        """pc_profile only: the PC a stalled scheduler's first warp in order waits to issue.
        ``held``: the first warp with a valid I-buffer head that waits at a barrier or is
        held by a mechanism (its head); otherwise the first warp without a valid head (its
        I-buffer head still arriving, or its fetch PC). -1 if there is none."""
        for w in sched.order():
            ib = w.ibuf
            ready = ib.size > 0 and ib.head_at <= now
            if held:
                if ready and (w.at_bar[w.widx] or w.hold or w.hold_issue):
                    return ib.head_pc
            elif not ready:
                return ib.head_pc if ib.size else w.fetch_pc
        return -1

    def _execute(self, w: WarpSlot, pc: int, d: DecodedInst, now: int) -> None:
        """Issue the I-buffer head of ``w``: functional step, operand read, pipeline."""
        st = self.stats
        action = None
        prof = self.pc_profile
        if prof is not None:
            prof.enter()
        for m in self.mechanisms:
            a = m.on_issue(self, w, pc, self.launch.program.slots[pc >> 3].inst)
            if a is not None and action != "eliminate":  # an elimination always stands
                action = a
        wave = w.wave
        self.launch.clock = now
        w.ibuf.pop()
        # the tracker and threads that issue (a formation policy may re-form w in its step)
        sb = w.sb
        dyn = w.dyn
        if dyn is None:
            rec = self.launch.step_warp(wave, w.widx)
        else:
            rec = dyn.policy.step(w)
        for m in self.mechanisms:
            m.after_step(self, w, pc, rec)
        st.instructions_issued += 1
        active = rec.active_mask.bit_count()
        if prof is not None:
            prof.issue(pc, active, action)
        if action == "eliminate":
            st.instructions_skipped += 1
        else:
            ov = action if isinstance(action, IssueOverride) else None
            name = ov.pipe if ov is not None else action
            pipe_id = _PIPE_NAMES.get(name, d.pipe) if name else d.pipe
            own = d.timing if pipe_id == d.pipe else None
            # a control instruction resolves control_latency cycles after it enters EX
            resolve = d.is_control and self.control_latency and pipe_id == d.pipe
            if resolve:
                iv = self.pipes[pipe_id].interval
                own = (self.control_latency, iv, iv)
            # speculation past a predicted branch (hooks.py: predict_fetch)
            spec = bool(self.predictors) and d.opcode == "bra" and self._speculated(w, pc, rec)
            pc_ = self.pipes[pipe_id]
            latency = own[0] if own else pc_.latency
            if ov is not None and ov.latency is not None:
                latency = ov.latency
            # lane-cycles for the energy model: the instruction's own execution latency
            # (a mechanism's extra stages are its own logic, not the execution unit's)
            st.record_execute(pipe_id, active, latency, ov.lanes if ov is not None else None)
            srcs = d.srcs
            for m in self.mechanisms:
                srcs = m.on_operand_read(self, w, pc, list(srcs))
            ready = self.oc.read(now, w.slot, srcs, st) + self.dispatch_extra
            unit = self.sched_units[w.sched.index][pipe_id]
            if ov is None:
                done = pc_.occupy(ready, own, unit)
            elif ov.interval is None and ov.latency is None:
                # the instruction's own occupancy, after injected work, plus extra stages
                done = pc_.occupy(ready, own, unit, ov.inject_interval) + ov.extra_latency
            else:  # per-instruction occupancy (hooks.IssueOverride)
                interval = (ov.interval if ov.interval is not None
                            else (own[1] if own else pc_.interval))
                done = pc_.occupy_cycles(ready, interval, latency + ov.extra_latency, unit,
                                         ov.inject_interval)
            if d.is_mem and rec.mem is not None and rec.mem.active.any():
                # ``done``: the request reaches the memory system (writeback_delay is added
                # when its data returns, in _memory_port)
                tok = sb.reserve(d.dsts, True, rec.active_mask)
                regs = d.dsts if tok is None else Tagged(d.dsts, tok)
                space, acc, size = self._mem_request(w, rec.mem, d.vec, dyn)
                self._memq.append([done, w, (space, acc, size), regs, pc])
            elif (d.dsts or sb.tracks_all) and not spec:
                tok = sb.reserve(d.dsts, False, rec.active_mask)
                regs = d.dsts if tok is None else Tagged(d.dsts, tok)
                self._seq += 1
                # bypass (pipelines.bypass): a dependent enters EX1 in the cycle after the
                # producer's last EX stage, so it may issue entry_offset cycles earlier;
                # a control instruction with control_latency releases when it resolves
                release = (max(now + 1, done - self.entry_offset) if self.bypass and d.dsts
                           and not d.is_mem else done if resolve else done + self.wb_delay)
                heapq.heappush(self._wb, (release, self._seq, w, regs, pc))
        if d.is_control:
            for m in self.mechanisms:
                m.on_branch(self, w, pc, rec, rec.diverged)
            if d.opcode in ("bar", "barrier", "exit", "ret"):
                self.wake_schedulers()  # may have released warps waiting at a barrier
        w.mem_wait = False
        if prof is not None:
            prof.leave(pc)
        if w.done:
            return
        if rec.finished:
            self._finish_warp(w)
            return
        # Re-steer fetch when the next PC is not what the I-buffer holds.
        # the step's own next PC unless a mechanism ran after it (it may move the warp)
        nxt = rec.next_pc
        if nxt is None or self.mechanisms:
            nxt = self.launch.next_pc(wave, w.widx) if w.dyn is None else w.dyn.pc
        ib = w.ibuf
        if ib.size:
            if ib.head_pc != nxt:
                ib.flush()
                w.fetch_pc = nxt
        elif w.fetch_pc != nxt:
            w.fetch_pc = nxt

    def _speculated(self, w: WarpSlot, pc: int, rec) -> bool:
        """Ask the predicting mechanisms whether ``w`` went on past the ``bra`` at ``pc``
        without waiting for it (hooks.py: speculate_branch)."""
        nxt = None if rec.finished else self.launch.next_pc(w.wave, w.widx)
        fetched = w.ibuf.head_pc if w.ibuf.size else w.fetch_pc
        spec = False
        for m in self.predictors:
            if m.speculate_branch(self, w, pc, rec, fetched, nxt):
                spec = True
        return spec

    # ------------------------------------------------------------------ fetch
    def _fetch(self, now: int) -> bool:
        """Fetch stage: serve up to ``fetch_width`` warps in loose round-robin order. One
        fetch is one I-cache access that delivers up to ``fetch_instructions`` sequential
        instructions (as many as the warp's I-buffer has room for). With
        ``fetch_needs_empty_ibuffer`` only warps with an empty I-buffer are fetched for
        (GPGPU-Sim). Mechanisms see every instruction of a fetch through ``on_fetch`` and
        may skip it (move ``fetch_pc``) or refuse it (the fetch stops there)."""
        warps = self.warps
        n = len(warps)
        start = self._fetch_ptr % n
        fetched = 0
        skipped = False  # a mechanism moved a warp's fetch PC (skipped instructions): progress
        self._fetch_refused = False
        st = self.stats
        n_prog = self.n_prog
        mechanisms = self.mechanisms
        prof = self.pc_profile
        for k in range(n):
            w = warps[(start + k) % n]
            ib = w.ibuf
            room = ib.capacity - ib.size
            if room <= 0 or (self.fetch_empty and ib.size) or w.fetch_pc >= n_prog \
                    or w.hold:
                continue
            if w.hold_fetch:  # a mechanism refuses this warp's fetch until it releases it
                if not w.done:
                    self._fetch_refused = True
                continue
            ready = None
            got = 0
            for _ in range(min(room, self.fetch_insts)):
                pc = w.fetch_pc
                if pc >= n_prog or w.done:
                    break
                refused = False
                if prof is not None:
                    prof.enter()
                for m in mechanisms:
                    if m.on_fetch(self, w, pc):
                        refused = True
                if prof is not None:
                    prof.leave(pc, w.fetch_pc)
                if refused:
                    if w.fetch_pc != pc:
                        skipped = True
                    self._fetch_refused = True
                    break
                if w.fetch_pc != pc:
                    skipped = True  # a mechanism skipped instructions at fetch (PC += 8 ...)
                    pc = w.fetch_pc
                    if pc >= n_prog or w.done:
                        break
                if ready is None:  # one I-cache access per fetch
                    if self.perfect_icache:
                        lat = self.icache.hit_latency
                        st.icache_hits += 1
                    else:
                        h = self.icache.hits
                        lat = self.icache.probe(pc)
                        if self.icache.hits > h:
                            st.icache_hits += 1
                        else:
                            st.icache_misses += 1
                    ready = now + max(1, lat)
                ib.push(pc, ready)
                if ib.size == 1:
                    w.sched.dirty = True  # a new I-buffer head (schedulers look only at heads)
                w.fetch_pc = pc + 8
                st.instructions_fetched += 1
                st.instructions_decoded += 1
                got += 1
                if self.predictors and self.decoded[pc >> 3].opcode == "bra":
                    target = None
                    inst = self.launch.program.slots[pc >> 3].inst
                    for m in self.predictors:
                        t = m.predict_fetch(self, w, pc, inst)
                        if t is not None:
                            target = t
                    if target is not None:
                        w.fetch_pc = target
                        break  # a redirect ends the fetch group (one I-cache line)
            if got:
                fetched += 1
                if fetched >= self.fetch_width:
                    self._fetch_ptr = (start + k + 1) % n
                    break
        return fetched > 0 or skipped
