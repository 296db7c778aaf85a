"""The GPU: SMs, the thread-block dispatcher, the memory hierarchy and the cycle loop.

:class:`GPU.run` simulates one kernel launch cycle by cycle:

* **TB dispatcher** -- thread blocks are dispatched in linear-id order, round robin
  across SMs (the next TB goes to the SM after the one that received the previous TB,
  the first SM with room), whenever they fit the SM's free resources: resident TBs
  (``max_tbs_per_sm``), threads (``max_threads_per_sm``), warps/scheduler slots
  (``max_warps_per_sm``), registers (``registers_per_thread x threads`` rounded up to
  whole warps, from ``registers_per_sm``) and shared memory (``shared_mem_per_sm``).
  A retired TB frees its resources in the cycle it retires. One TB's needs and the TBs
  per SM they allow come from :func:`golden.timing.occupancy.tb_occupancy`.
* **cycle loop** -- every SM with resident warps ticks once per cycle. When no SM did
  anything in a cycle (no writeback, memory access, issue or fetch), the clock jumps to
  the earliest pending event (a writeback, a memory retry, an I-buffer entry or a
  pipeline/collector becoming free) and each scheduler's stall outcome is repeated
  for the skipped cycles, so long memory stalls cost no Python time per idle cycle.
* **done** -- when every TB retired and the register writes still in flight have
  been written back (:meth:`GPU._drain`). ``cycles`` is the last simulated cycle + 1.

Registers per thread, in this order: the caller's override (``regs_per_thread``); else
the figure ``ptxas -v -arch=sm_75`` reported for the kernel, when a register file
``<stem>.ptxas.yaml`` is committed beside its PTX (:mod:`golden.timing.ptxas_file`; read,
never regenerated at run time, so users without nvcc get the same numbers; a stale,
malformed or incomplete file is an error naming it); else a linear-scan liveness
estimate of the PTX (:func:`ptx_registers_per_thread`: peak number of simultaneously
live 32-bit register slots, capped at the ISA limit of 255), since nvcc's PTX declares
virtual registers (often hundreds), far more than ptxas allocates. Register files are
committed only for kernels where ptxas and the estimate give different TBs per SM on a
configuration their workload is reported on (issue 66 item 3; the comparison of every
kernel is ``docs/registers.md``, written by :mod:`golden.report.registers`).
Simplification: the estimate approximates, not reproduces, ptxas; and ptxas's figure is
Turing's (sm_75, the oldest target CUDA 13 has), not that of the papers' GPUs. When the
count is more than one TB may use on the SM (e.g. 1024-thread TBs on a 16K-register
GTX 285), it is lowered to ``registers_per_sm / threads_per_tb`` as if the kernel were
compiled with ``__launch_bounds__``; spill code is not modelled, and the original count
is reported as the counter ``baseline.registers_clamped_from``.

L2 across launches: the L2's tags (valid and dirty sectors, LRU order) carry over from
one launch to the next on the same GPU object, as GPGPU-Sim keeps its L2 between kernels;
with ``idealisations.l2_warm_on_memcpy`` the host-to-device copies made since the last
launch are filled into the L2 before the kernel starts (GPGPU-Sim's
``-gpgpu_perf_sim_memcpy``). Simplification: only tags carry over; L1s, MSHRs, DRAM rows
and queues start empty at each launch.

Deterministic: no randomness; SMs tick in id order.
"""

from __future__ import annotations

import numpy as np

from golden.errors import DeadlockError, LaunchError
from golden.simt.engine import DEFAULT_MAX_CYCLES
from golden.simt.liveness import operand_regs
from golden.timing.hooks import Mechanism
from golden.timing.memory.hierarchy import MemoryHierarchy
from golden.timing.occupancy import Occupancy, tb_occupancy
from golden.timing.ptxas_file import PtxasLookup
from golden.timing.scheduler import NEVER
from golden.timing.shared_sm import MixedSMSharing, select_kernel_order
from golden.timing.sm import SM, decode_program
from golden.timing.stats import TimingStats

MAX_REGS_PER_THREAD = 255


class StopSession:
    """The answer of :meth:`GPU.run_partitions`' ``next_launch`` that ends the whole
    concurrent session in that cycle (use the instance :data:`STOP_SESSION`)."""

    def __repr__(self) -> str:
        return "STOP_SESSION"


STOP_SESSION = StopSession()


def ptx_registers_per_thread(program) -> int:
    """Estimated registers per thread: peak register pressure of a linear-scan liveness
    estimate over the PTX (see module docstring), capped at 255.

    Each register's live range is [first, last] instruction index where it is named;
    a loop (backward branch from ``b`` to ``t``) extends every range that is live into
    the loop (starts before ``t`` and ends inside it) to ``b``. The estimate is the
    maximum, over instructions, of the 32-bit register slots (64-bit: 2, predicates: 0)
    whose ranges cover that instruction.
    """
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    loops = []
    for i, s in enumerate(program.slots):
        inst = s.inst
        if inst is None:
            continue
        names = [r.name for o in inst.operands for r in operand_regs(o)]
        if inst.guard is not None:
            names.append(inst.guard.reg.name)
        for nm in names:
            key = s.regs.get(nm)
            if key is None:
                continue
            first.setdefault(key, i)
            last[key] = i
        if s.target is not None and (s.target >> 3) <= i:
            loops.append((s.target >> 3, i))
    for t, b in loops:
        for k in first:
            if first[k] < t <= last[k] < b:
                last[k] = b
    delta = [0] * (len(program.slots) + 2)
    for k, f in first.items():
        ty = program.reg_types[k]
        w = 0 if ty == "pred" else (2 if ty.endswith("64") else 1)
        delta[f] += w
        delta[last[k] + 1] -= w
    peak = cur = 0
    for d in delta:
        cur += d
        peak = max(peak, cur)
    return max(1, min(peak, MAX_REGS_PER_THREAD))


class SMSharing:
    """Which launch holds each SM that several partitions share (:meth:`GPU.run_partitions`
    with overlapping SM sets).

    A shared SM holds the thread blocks of one launch at a time, as in GPGPU-Sim without
    ``-gpgpu_concurrent_kernel_sm``: a launch may place TBs on it only while no other
    launch has TBs there. When its last TB retires the SM is free; launches with TBs left
    then get it in GPGPU-Sim's ``select_kernel`` order: the launch that placed a TB last,
    then the others in partition order after it. A launch that takes an SM another launch
    ran on finds its L1 and constant cache empty (a lone launch starts so). ``owner``: SM
    id -> :class:`KernelRun` holding TBs there; ``last_owner``: the launch that held it
    before; ``last_issued``: the launch that placed a TB last.
    """

    #: SMs hold one launch's TBs at a time (see golden.timing.shared_sm for the other kind)
    mixed = False

    def __init__(self, memory):
        self.memory = memory
        self.owner: dict = {}
        self.last_owner: dict = {}
        self.last_issued = None

    def may_use(self, kr, sm_id: int) -> bool:
        o = self.owner.get(sm_id)
        return o is None or o is kr

    def take(self, kr, sm_id: int, now: int) -> None:
        """``kr`` places a TB on SM ``sm_id`` (which :meth:`may_use` allowed)."""
        if self.owner.get(sm_id) is None:
            prev = self.last_owner.get(sm_id)
            if prev is not None and prev is not kr:
                self.memory.reset_sm_caches(sm_id)
            self.owner[sm_id] = kr
            self.last_owner[sm_id] = kr
        self.last_issued = kr

    def release_idle(self, kr) -> bool:
        """Free the SMs of ``kr`` that hold none of its TBs; True if any was freed."""
        freed = False
        for sm in kr.sms:
            if not sm.tbs and self.owner.get(sm.id) is kr:
                del self.owner[sm.id]
                freed = True
        return freed

    def detach(self, kr) -> None:
        """``kr`` finished (nothing to undo: its SMs were freed as its TBs retired)."""

    def dispatch_order(self, runs: list) -> list:
        """``runs`` in select_kernel order: the last issuer first, then the rest after it
        (:func:`golden.timing.shared_sm.select_kernel_order`)."""
        return select_kernel_order(runs, self.last_issued)


class KernelRun:
    """One launch running on a set of SMs (all of them, or a partition of a GPU that runs
    several kernels at once): its SMs, statistics and TB dispatcher.

    The dispatcher places TBs in linear-id order, round robin over the run's SMs, whenever
    one fits an SM's free resources (see the module docstring); mechanisms may refuse an
    SM (``on_dispatch``). ``start`` is the first cycle the run's TBs tick; ``partition``
    the index of the SM set it runs on (:meth:`GPU.run_partitions`).
    """

    def __init__(self, gpu: "GPU", launch, sm_ids, config, mechanisms, memory, start: int = 0,
                 partition: int = 0, sharing: SMSharing | None = None, groups=()):
        core = config.core
        self.launch = launch
        self.partition = partition
        #: SMs shared with other partitions' launches (None: this run's SMs are its own)
        self.sharing = sharing
        self.config = config
        self.mechanisms = tuple(mechanisms)
        # register-only instructions run lazily in warp groups (FunctionalLaunch.
        # defer_registers) unless a mechanism may read wave registers itself
        launch.defer_registers = gpu.defer_registers and not any(
            getattr(m, "reads_wave_registers", True) for m in self.mechanisms)
        self.start = start
        self.stats = TimingStats.for_config(config)
        decoded = decode_program(launch.program, config.pipelines, config.core.warp_size)
        self.sms = [SM(i, config, launch, decoded, memory, self.stats, self.mechanisms)
                    for i in sm_ids]
        occ = gpu.occupancy(launch, config)
        occ.check(launch.name, config.name, core)
        for sm in self.sms:
            sm.occupancy = occ   # what one TB of the launch needs (for mechanisms)
        self.regs, self.shared = occ.regs_per_tb, occ.shared_per_tb
        #: SM id -> the mechanisms of that SM, when the run spans SMs of several kinds
        #: (``groups``: more ``(sm_ids, config, mechanisms)`` the launch also runs on, e.g.
        #: both sides of a heterogeneous GPU); None: every SM has ``self.mechanisms``
        self._sm_mechs = None
        if groups:
            self._sm_mechs = {sm.id: self.mechanisms for sm in self.sms}
            for ids, cfg, mechs in groups:
                mechs = tuple(mechs)
                dec = decode_program(launch.program, cfg.pipelines, cfg.core.warp_size)
                o = gpu.occupancy(launch, cfg)
                o.check(launch.name, cfg.name, cfg.core)
                if (o.regs_per_tb, o.shared_per_tb) != (self.regs, self.shared):
                    raise LaunchError(f"kernel {launch.name}: its TBs need different resources "
                                      f"on {config.name} and {cfg.name} SMs")
                for i in ids:
                    sm = SM(i, cfg, launch, dec, memory, self.stats, mechs)
                    sm.occupancy = o
                    self.sms.append(sm)
                    self._sm_mechs[i] = mechs
                self.mechanisms += tuple(m for m in mechs if m not in self.mechanisms)
            self.sms.sort(key=lambda sm: sm.id)
        self.sm_ids = tuple(sm.id for sm in self.sms)
        #: per-PC counters of this launch when the GPU profiles (golden/timing/pc_profile.py)
        self.pc_profile = None
        if gpu.pc_profiler is not None:
            self.pc_profile = gpu.pc_profiler.begin(launch, self.stats, memory)
            for sm in self.sms:
                sm.pc_profile = self.pc_profile
        if gpu.timeline is not None:
            gpu.timeline.attach(self, memory)   # per-SM counters (golden/timing/timeline.py)
        self.threads = launch.geo.threads_per_tb
        self.wpt = launch.geo.warps_per_tb
        self.n_tbs = launch.geo.num_tbs
        self.next_tb = 0
        self.retired = 0
        self._rr = 0
        self._core = core
        #: mechanisms that may dispatch TBs partially (hooks.py: partial_dispatch)
        self._partial = tuple(m for m in self.mechanisms
                              if type(m).partial_dispatch is not Mechanism.partial_dispatch)
        if occ.regs_clamped_from:
            self.stats.count_mechanism("baseline.registers_clamped_from", occ.regs_clamped_from)
        if sharing is not None and getattr(sharing, "mixed", False):
            sharing.attach(self)   # SMs shared with other kernels' TBs (timing/shared_sm.py)
            self._fits = lambda sm: sharing.fits(self, sm)
        elif groups:
            self._fits = self._fits_own_core

    def begin(self) -> None:
        """The launch starts: each mechanism's ``launch_begin`` with the SMs it is attached
        to (called by the cycle loop before the first dispatch)."""
        sm_mechs = self._sm_mechs
        for m in self.mechanisms:
            sms = (self.sms if sm_mechs is None
                   else [sm for sm in self.sms if any(x is m for x in sm_mechs[sm.id])])
            m.launch_begin(self.launch, tuple(sms))

    def _fits_own_core(self, sm: SM) -> bool:
        """:meth:`_fits` against the SM's own core limits (a run over SMs of several kinds)."""
        core = sm.cfg.core
        return (len(sm.tbs) < core.max_tbs_per_sm
                and sm.used_threads + self.threads <= core.max_threads_per_sm
                and sm.used_warps + self.wpt <= core.max_warps_per_sm
                and sm.used_regs + self.regs <= core.registers_per_sm
                and sm.used_shared + self.shared <= core.shared_mem_per_sm
                and (not sm.slot_interleave or sm.entries_fit(0, self.wpt) == self.wpt))

    def _fits(self, sm: SM) -> bool:
        core = self._core
        return (len(sm.tbs) < core.max_tbs_per_sm
                and sm.used_threads + self.threads <= core.max_threads_per_sm
                and sm.used_warps + self.wpt <= core.max_warps_per_sm
                and sm.used_regs + self.regs <= core.registers_per_sm
                and sm.used_shared + self.shared <= core.shared_mem_per_sm
                and (not sm.slot_interleave or sm.entries_fit(0, self.wpt) == self.wpt))

    def _partial_fit(self, sm: SM) -> int:
        """Warps of the next TB that ``sm`` can make resident now in a partial dispatch
        (the warp-level check: the TB's whole shared memory, a TB slot, and a scheduler
        entry, registers and threads for at least one warp), 0 if none or if ``sm``
        already holds a TB with unissued warps."""
        core = self._core
        if (sm.partial_tb is not None or len(sm.tbs) >= core.max_tbs_per_sm
                or sm.used_shared + self.shared > core.shared_mem_per_sm):
            return 0
        rpw = self.regs // self.wpt
        n = min(self.wpt, core.max_warps_per_sm - sm.used_warps, len(sm.free_slots),
                (core.registers_per_sm - sm.used_regs) // rpw if rpw else self.wpt,
                (core.max_threads_per_sm - sm.used_threads) // 32,
                sm.entries_fit(0, self.wpt))
        return max(n, 0)

    def dispatch(self, now: int) -> None:
        """Place as many of the remaining TBs as fit, in order, at cycle ``now``: a whole
        TB where it fits, else (when a mechanism allows it, ``partial_dispatch``) a
        partial TB whose first warps fit."""
        sms = self.sms
        partial = self._partial
        sharing = self.sharing
        sm_mechs = self._sm_mechs
        if sharing is not None and sharing.mixed and not sharing.may_dispatch(self):
            return
        while self.next_tb < self.n_tbs:
            placed = False
            for k in range(len(sms)):
                sm = sms[(self._rr + k) % len(sms)]
                if sharing is not None and not sharing.may_use(self, sm.id):
                    continue
                n_warps = None
                if not self._fits(sm):
                    if not partial or sm.partial_tb is not None:
                        continue
                    n = min(self._partial_fit(sm), self.wpt - 1)
                    # every mechanism sees the warp-level check, even when it fails (n = 0)
                    if not any([m.partial_dispatch(sm, self.next_tb, n) for m in partial]) \
                            or n == 0:
                        continue
                    n_warps = n
                mechs = self.mechanisms if sm_mechs is None else sm_mechs[sm.id]
                if all(m.on_dispatch(sm, self.next_tb, self.wpt) for m in mechs):
                    if sharing is not None:
                        sharing.take(self, sm.id, now)
                    if sm.sleep_since is not None:
                        sm.wake(now)  # it ticks again next cycle, with the new TB
                    sm.now = now
                    sm.add_tb(self.next_tb, self.threads, self.regs, self.shared, n_warps)
                    self._rr = (self._rr + k + 1) % len(sms)
                    self.next_tb += 1
                    placed = True
                    break
            if not placed:
                return

    @property
    def done(self) -> bool:
        return self.retired >= self.n_tbs

    def refused_everywhere(self) -> bool:
        """No TB placed although the run has some and none of its SMs is held by another
        launch (so only a mechanism's ``on_dispatch`` can have refused): an error. A run
        whose shared SMs are all busy with other launches just waits for one."""
        if self.next_tb or not self.n_tbs:
            return False
        sh = self.sharing
        if sh is not None and sh.mixed:
            return False   # waits for the dispatcher or for room beside other kernels' TBs
        return sh is None or all(sh.may_use(self, sm.id) for sm in self.sms)


class GPU:
    """A configured GPU that runs launches: one at a time (:meth:`run`), or several at once
    on disjoint sets of SMs (:meth:`run_partitions`)."""

    #: Run register-only ALU instructions lazily, in groups of warps at the same PC
    #: (:attr:`golden.simt.engine.FunctionalLaunch.defer_registers`), in launches whose
    #: mechanisms do not read wave registers directly
    #: (:attr:`golden.timing.hooks.Mechanism.reads_wave_registers`). Results and
    #: statistics are those of eager execution. Off by default: measured side by side
    #: (2026-11-27) it was slower than eager execution on 9 of 10 workloads (1.04-1.25x
    #: slower; CP 1.06x faster), because warps that drift apart under GTO rarely share a
    #: PC when their work must run, so most groups hold one warp and the queue
    #: bookkeeping costs more than the batching saves.
    defer_registers: bool = False

    def __init__(self, config, mechanisms=(), regs_per_thread: int | None = None,
                 max_cycles: int = DEFAULT_MAX_CYCLES):
        self.config = config
        self.mechanisms = tuple(mechanisms)
        self.regs_per_thread = regs_per_thread
        #: cycles after which a launch (or a concurrent session) stops with a DeadlockError
        self.max_cycles = max_cycles
        #: host-to-device copies since the last launch, ``(address, bytes)`` in order
        self.host_copies: list[tuple[int, int]] = []
        #: the L2's tags after the last launch (the L2 is not flushed between kernels)
        self._l2_state: list | None = None
        #: L1 observers attached to the memory hierarchy of every later launch
        #: (:mod:`golden.timing.memory.l1_trace`); empty = no observation cost
        self.memory_observers: list = []
        #: ptxas register files beside the kernels' PTX (:mod:`golden.timing.ptxas_file`)
        self.ptxas = PtxasLookup()
        #: a :class:`golden.timing.pc_profile.PCProfiler` that collects per-PC counters of
        #: every later launch; None (default) = off, no profiling cost
        self.pc_profiler = None
        #: a :class:`golden.timing.timeline.Timeline` that samples every later launch every
        #: N cycles; None (default) = off, no per-cycle cost
        self.timeline = None

    def occupancy(self, launch, config=None) -> Occupancy:
        """Resources of one TB of ``launch`` and TBs per SM (:mod:`golden.timing.occupancy`)
        on ``config`` (default: the GPU's): registers per thread from the override, else
        from the committed ptxas figure, else the PTX estimate (:meth:`registers_per_thread`),
        clamped to what one TB may use unless overridden (``__launch_bounds__``, spill code
        not modelled)."""
        core = (config or self.config).core
        rpt = self.regs_per_thread or self.registers_per_thread(launch.program)
        return tb_occupancy(core, launch.geo.threads_per_tb, launch.geo.warps_per_tb,
                            rpt, launch.shared_bytes, clamp=self.regs_per_thread is None)

    def registers_per_thread(self, program) -> int:
        """Registers per thread of ``program``'s kernel before any clamp: the ptxas figure
        committed beside its PTX when there is one, else :func:`ptx_registers_per_thread`."""
        committed = self.ptxas.registers(program)
        return committed if committed is not None else ptx_registers_per_thread(program)

    def _memory(self) -> MemoryHierarchy:
        """A memory hierarchy for the next simulation, with the L2 carried over and warmed."""
        memory = MemoryHierarchy(self.config)
        for obs in self.memory_observers:
            memory.add_l1_observer(obs)
        if self._l2_state is not None:
            memory.restore_l2(self._l2_state)
        if self.config.idealisations.l2_warm_on_memcpy and self.host_copies:
            memory.warm_l2(self.host_copies)
        self.host_copies = []
        return memory

    def kernel_run(self, launch, memory) -> KernelRun:
        """The :class:`KernelRun` of a single ``launch`` on every SM (a subclass may run
        another kind, e.g. thread-block sampling's)."""
        return KernelRun(self, launch, range(self.config.core.num_sms), self.config,
                         self.mechanisms, memory)

    def run(self, launch, max_cycles: int | None = None) -> TimingStats:
        """Simulate ``launch`` (a :class:`golden.simt.engine.FunctionalLaunch`) on every SM;
        return its :class:`TimingStats` (memory counters included). The launch stops with a
        DeadlockError after ``max_cycles`` cycles (default: the GPU's) or its functional
        watchdog's warp instructions."""
        memory = self._memory()
        kr = self.kernel_run(launch, memory)
        self._simulate([kr], lambda run, now: None, max_cycles)
        stats = kr.stats
        self._memory_stats(stats, memory)
        self._l2_state = memory.l2_snapshot()
        if kr.pc_profile is not None:
            kr.pc_profile.finish()
        return stats

    def run_partitions(self, partitions, first_launches, next_launch,
                       mixed_sms: bool = False, cut_launch=None) -> TimingStats:
        """Run several kernels at once, each stream of launches on its own set of SMs,
        sharing the memory hierarchy (concurrent kernel execution; see
        :mod:`golden.runs.concurrent` for the host side).

        ``partitions`` is a list of ``(sm_ids, config, mechanisms)``: SM sets, the
        configuration their SMs follow (core, pipelines, register file; the memory system
        is this GPU's) and the mechanisms attached to them. Partitions may share SMs
        (overlapping sets, same configuration on the shared SMs): a shared SM then holds
        one launch's TBs at a time (:class:`SMSharing`). ``first_launches[i]`` is the
        first launch of partition ``i`` (None: the partition stays idle);
        ``next_launch(i, stats, now)`` is called when partition ``i``'s launch finished
        (``stats``: its :class:`TimingStats`, ``cycles`` = its own duration, no memory
        counters) and returns the partition's next launch or None. Returns the session's
        :class:`TimingStats`: ``cycles`` from the first cycle to the last, the memory
        system's counters, the merge of every launch's core counters.

        A partition may list further SM groups of other configurations as a fourth item,
        ``(sm_ids, config, mechanisms, ((sm_ids2, config2, mechanisms2), ...))``: its
        launches spread over all of them (a kernel on both sides of a heterogeneous GPU).
        ``mixed_sms``: shared SMs hold TBs of several launches at once
        (:mod:`golden.timing.shared_sm`, GPGPU-Sim's ``-gpgpu_concurrent_kernel_sm``).

        ``next_launch`` may return :data:`STOP_SESSION`: the session ends in that cycle.
        Every launch still running is cut there: its ``stats`` keep what it executed so
        far, ``cycles`` its duration so far (its mechanisms' ``launch_end`` is not called),
        they count in the session's statistics, and ``cut_launch(i, stats, now)`` is called
        for each (partition ``i``).
        """
        partitions = [tuple(p) if len(p) == 4 else (*p, ()) for p in partitions]
        seen: dict = {}
        overlap = False
        flat = [(ids, cfg, m) for p in partitions for ids, cfg, m in ((p[0], p[1], p[2]), *p[3])]
        for pi, p in enumerate(partitions):
            ids = [i for g in ((p[0], p[1], p[2]), *p[3]) for i in g[0]]
            if len(set(ids)) != len(ids):
                raise LaunchError(f"run_partitions: partition {pi} lists an SM twice")
        for sm_ids, cfg, _ in flat:
            if len(set(sm_ids)) != len(tuple(sm_ids)):
                raise LaunchError(f"run_partitions: a partition lists an SM twice: {tuple(sm_ids)}")
            for i in sm_ids:
                if not 0 <= i < self.config.core.num_sms:
                    raise LaunchError(f"run_partitions: SM {i} is out of range (GPU has "
                                      f"{self.config.core.num_sms} SMs)")
                if i in seen:
                    overlap = True
                    if seen[i] != cfg:
                        raise LaunchError(f"run_partitions: SM {i} is in two partitions with "
                                          f"different configurations ({seen[i].name}, "
                                          f"{cfg.name}); shared SMs need one configuration")
                seen[i] = cfg
        owners: dict = {}
        for i, p in enumerate(partitions):
            for m in (*p[2], *(m for g in p[3] for m in g[2])):
                if owners.setdefault(id(m), i) != i:
                    raise LaunchError("run_partitions: a mechanism object is attached to two "
                                      "partitions; give each partition its own instances "
                                      "(mechanisms keep per-launch state)")
        memory = self._memory()
        session = TimingStats.for_config(self.config)
        finished: list = []
        if overlap and mixed_sms:
            sharing = MixedSMSharing(memory)
        else:
            sharing = SMSharing(memory) if overlap else None

        def start(i, launch, now):
            sm_ids, cfg, mechs, groups = partitions[i]
            if now and sharing is None:
                for sm in (*sm_ids, *(j for g in groups for j in g[0])):
                    memory.reset_sm_caches(sm)   # a launch starts with empty L1s, as alone
            # (shared SMs: emptied when a launch takes an SM another launch ran on)
            return KernelRun(self, launch, sm_ids, cfg, mechs, memory, start=now, partition=i,
                             sharing=sharing, groups=groups)

        def on_done(kr, now):
            finished.append(kr.stats)
            nxt = next_launch(kr.partition, kr.stats, now)
            if nxt is STOP_SESSION:
                return nxt
            return None if nxt is None else start(kr.partition, nxt, now + 1)

        def on_cut(kr, now):
            finished.append(kr.stats)
            if cut_launch is not None:
                cut_launch(kr.partition, kr.stats, now)

        runs = [start(i, ln, 0) for i, ln in enumerate(first_launches) if ln is not None]
        end = self._simulate(runs, on_done, on_cut=on_cut)
        for st in finished:
            session.merge(st, concurrent=True)
        session.cycles = end + 1
        self._memory_stats(session, memory)
        self._l2_state = memory.l2_snapshot()
        return session

    def _simulate(self, runs: list, on_done, max_cycles: int | None = None, on_cut=None) -> int:
        """:meth:`_cycle_loop` with numpy's floating-point warnings off: the functional
        steps it drives produce NaN/inf/overflow as the PTX defines them, and their ALU
        fast path (``FunctionalLaunch._run_plan``) relies on this instead of entering
        ``np.errstate`` per instruction."""
        with np.errstate(all="ignore"):
            return self._cycle_loop(runs, on_done, max_cycles, on_cut)

    def _cycle_loop(self, runs: list, on_done, max_cycles: int | None = None,
                    on_cut=None) -> int:
        """The cycle loop over every SM of the active :class:`KernelRun` s. When a run's last
        TB retires, its in-flight writes are drained, its ``stats.cycles`` set (its own
        duration), its mechanisms' ``launch_end`` called, and ``on_done(run, now)`` may
        return the run to start next on the same SMs. Returns the last cycle used.
        Watchdogs: more than ``max_cycles`` (default the GPU's) cycles, or a launch's
        functional watchdog (warp instructions), raise a DeadlockError naming the loops.
        ``on_done`` returning :data:`STOP_SESSION` ends the loop in that cycle: every other
        active run gets ``stats.cycles`` = its duration so far and ``on_cut(run, now)``."""
        max_cycles = self.max_cycles if max_cycles is None else max_cycles
        for kr in runs:
            kr.begin()
            kr.dispatch(kr.start)
            if kr.refused_everywhere():
                raise LaunchError(f"kernel {kr.launch.name}: no SM accepted thread block 0 "
                                  f"(a mechanism's on_dispatch refused every SM)")
        now = 0
        end = 0
        active = list(runs)
        timeline = self.timeline
        # the watchdog's test doubles as the timeline's interval boundary: no per-cycle cost
        check_at = max_cycles + 1 if timeline is None else timeline.first_check(max_cycles)
        # Event skipping at two levels. Per SM: a cycle without progress that leaves the
        # SM quiescent puts it to sleep until its next_event() (or a new TB); its stall
        # counters are caught up when it wakes (SM.sleep / SM.wake). Whole GPU: when no
        # awake SM made progress, time jumps to the earliest event of any SM.
        while active:
            progress = False
            finished = False
            for kr in active:
                any_retired = False
                for sm in kr.sms:
                    if sm.warps:
                        if sm.sleep_since is not None:
                            if sm.wake_at > now:
                                continue
                            sm.wake(now - 1)
                        if sm.tick(now):
                            progress = True
                        elif sm.quiescent:
                            sm.sleep(now)
                        if sm.freed:
                            sm.freed = False
                            if sm.retired:
                                kr.retired += len(sm.retired)
                                sm.retired.clear()
                            if sm.partial_tb is not None:
                                sm.activate_pending()
                            any_retired = True
                if any_retired:
                    kr.dispatch(now)
                    progress = True
                    sharing = kr.sharing
                    if sharing is not None and sharing.release_idle(kr):
                        for other in sharing.dispatch_order(active):
                            if other is not kr:
                                other.dispatch(now)
                if kr.done:
                    finished = True
            if finished:
                for kr in list(active):
                    if not kr.done:
                        continue
                    last = max(now, self._drain(kr.sms, now))
                    end = max(end, last)
                    if timeline is not None:
                        timeline.finish(kr, last)
                    kr.stats.cycles = last + 1 - kr.start
                    if kr.sharing is not None:
                        kr.sharing.detach(kr)
                    for m in kr.mechanisms:
                        m.launch_end(kr.launch, kr.stats)
                    nxt = on_done(kr, now)
                    if nxt is STOP_SESSION:
                        active.remove(kr)
                        for other in active:
                            other.stats.cycles = now + 1 - other.start
                            if on_cut is not None:
                                on_cut(other, now)
                        active.clear()
                        break
                    if nxt is None:
                        active.remove(kr)
                    else:
                        active[active.index(kr)] = nxt
                        nxt.begin()
                        nxt.dispatch(nxt.start - 1)
                        if nxt.refused_everywhere():
                            raise LaunchError(f"kernel {nxt.launch.name}: no SM accepted "
                                              f"thread block 0")
                if not active:
                    break
                progress = True
            if progress:
                now += 1
            else:
                target = NEVER
                for kr in active:
                    for sm in kr.sms:
                        if sm.warps:
                            c = sm.wake_at if sm.sleep_since is not None else sm.next_event(now)
                            if c is not None and c < target:
                                target = c
                if target == NEVER:
                    raise DeadlockError(self._deadlock_report(active, now))
                for kr in active:
                    for sm in kr.sms:
                        if sm.warps and sm.sleep_since is None:
                            sm.account_idle(target - now - 1)
                now = target
            if now >= check_at:
                if now > max_cycles:
                    raise DeadlockError(self._watchdog_report(
                        active, now, f"more than {max_cycles:,} cycles (max_cycles)"))
                check_at = timeline.sample(active, now, max_cycles)
            for kr in active:
                ln = kr.launch
                if ln.stats.warp_instructions > ln.watchdog:
                    raise DeadlockError(self._watchdog_report(
                        active, now, f"more than {ln.watchdog:,} warp instructions "
                                     f"(max_instructions)"))
        if timeline is not None:
            timeline.end_loop(end)
        return end

    @staticmethod
    def _drain(sms, now: int) -> int:
        """Finish the register writes still in flight when the last TB retired (a warp
        exits at the issue of its ``exit``, possibly before earlier results are written
        back): their memory requests and writebacks happen, so every counter (and every
        mechanism's ``on_writeback``) sees them; the kernel ends with the last one.
        Returns the last cycle used."""
        end = now
        for sm in sms:
            cur = now
            while sm._memq or sm._wb:
                nxt = min(sm._wb[0][0] if sm._wb else NEVER,
                          sm._memq[0][0] if sm._memq else NEVER)
                cur = max(cur + 1, nxt)
                if sm._memq and sm._memq[0][0] <= cur:
                    sm._memory_port(cur)
                if sm._wb and sm._wb[0][0] <= cur:
                    sm._writeback(cur)
            end = max(end, cur)
        return end

    @staticmethod
    def _memory_stats(stats: TimingStats, memory: MemoryHierarchy) -> None:
        c = memory.counters()
        stats.l1_hits = c["l1_hits"]
        stats.l1_misses = c["l1_misses"]
        stats.l1_bypasses = c["l1_bypasses"]
        stats.const_hits = c["const_hits"]
        stats.const_misses = c["const_misses"]
        stats.shared_accesses = c["shared_cycles"]
        stats.shared_bank_conflict_cycles = c["shared_bank_conflicts"]
        stats.l2_hits = c["l2_hits"]
        for name in ("l2_mshr_full_delays", "icnt_flits", "dram_read_bytes",
                     "dram_write_bytes", "dram_activates", "dram_precharges", "dram_row_hits",
                     "dram_queue_full_delays"):
            setattr(stats, name, c[name])
        stats.l2_misses = c["l2_misses"]
        stats.dram_reads = c["dram_reads"]
        stats.dram_writes = c["dram_writes"]
        stats.dram_bytes = c["dram_bytes"]

    @staticmethod
    def _deadlock_report(runs, now) -> str:
        names = ", ".join(kr.launch.name for kr in runs)
        lines = [f"deadlock in kernel {names} at cycle {now}: no warp can ever progress"]
        lines += GPU._warp_lines(runs)
        return "\n".join(lines)

    @staticmethod
    def _warp_lines(runs, per_sm: int = 8) -> list[str]:
        """Per SM: partially dispatched TBs and the first ``per_sm`` resident warps with the
        PTX source line of their next instruction."""
        lines = []
        for kr in runs:
            launch = kr.launch
            for sm in kr.sms:
                if sm.partial_tb is not None:
                    tb = sm.partial_tb
                    lines.append(f"  SM {sm.id} TB {tb.tb_id}: {len(tb.pending)} warp(s) "
                                 f"dispatched but unissued, waiting for a scheduler entry and "
                                 f"{tb.regs_per_warp} registers")
                for w in sm.warps[:per_sm]:
                    bar = bool(w.wave.at_barrier[w.widx])
                    if w.dyn is not None:   # a dynamic warp (golden/timing/dynamic_warps.py)
                        pc = w.dyn.pc
                        state = (f"dynamic warp of {w.dyn.mask.bit_count()} threads, "
                                 + ("held by its warp-formation policy" if w.hold else "stalled"))
                    else:
                        pc = launch.next_pc(w.wave, w.widx)
                        state = ("waits at a barrier" if bar else "held by a mechanism"
                                 if w.hold or w.hold_issue else "stalled")
                    lines.append(f"  SM {sm.id} TB {w.tb.tb_id} warp {w.widx}: next "
                                 f"{launch.pc_where(pc)}, {state}")
                if len(sm.warps) > per_sm:
                    lines.append(f"  SM {sm.id}: +{len(sm.warps) - per_sm} more resident warps")
        return lines

    @staticmethod
    def _watchdog_report(runs, now, why: str) -> str:
        names = ", ".join(kr.launch.name for kr in runs)
        lines = [f"kernel {names}: watchdog: {why} at cycle {now:,}; warps appear stuck in a "
                 f"loop (if the kernel is only long, raise the limits: max_cycles= / "
                 f"max_instructions= of the launch or TimingDevice, --max-cycles / "
                 f"--max-instructions of simtlab run)"]
        for kr in runs:
            lines += kr.launch.loop_report([(w.wave, w.widx) for sm in kr.sms for w in sm.warps])
        for kr in runs:   # where the resident warps are, by next instruction
            at: dict = {}
            for sm in kr.sms:
                for w in sm.warps:
                    pc = w.dyn.pc if w.dyn is not None else kr.launch.next_pc(w.wave, w.widx)
                    at.setdefault(pc, []).append(
                        f"SM {sm.id} TB {w.tb.tb_id} warp {w.widx}")
            for pc, ws in sorted(at.items(), key=lambda kv: -len(kv[1]))[:6]:
                more = f" (+{len(ws) - 4} more)" if len(ws) > 4 else ""
                lines.append(f"  next {kr.launch.pc_where(pc)}: {', '.join(ws[:4])}{more}")
        return "\n".join(lines)
