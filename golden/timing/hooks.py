"""Mechanism hooks: the plug-in interface of the cycle-level SM model.

A *mechanism* (DARSIE, UV elimination, WarpMan, G-Scalar, CAPRI...) is a subclass of
:class:`Mechanism` that overrides some of the hook methods below. The SM model
(:mod:`golden.timing.sm`) calls every hook of every attached mechanism at the named
point of the pipeline; the baseline GPU is the model with no mechanism attached.

Contract: a mechanism may change *timing and events* (skip a fetch, eliminate an
instruction's execution, change RF events, change TB dispatch), never a kernel's
results -- the functional step of every instruction still runs when it issues, so
outputs stay bit-identical to the baseline. Mechanism-specific counters go to
``sm.stats.count_mechanism("name.counter")``.

A mechanism uses the SM only through the hooks' arguments, its public fields (``sm.id``,
``sm.cfg``, ``sm.launch``, ``sm.decoded``, ``sm.stats``, ``sm.memory``, ``sm.tbs``,
``sm.warps``, ``sm.occupancy``...), the warp holds and the SM services listed below
(``sm.read_operands``, ``sm.schedule_writeback``, ``sm.register_in_bank``,
``sm.wake_schedulers``). The SM's queues and collaborators (names starting with ``_``, and
``sm.oc``) are private to :mod:`golden.timing.sm`; mechanisms import no private name from
``golden.timing``. Per-launch state is built in :meth:`Mechanism.launch_begin`.

Hook points and what a return value means:

* :meth:`on_fetch` -- the fetch stage chose ``warp`` to fetch ``pc``; return True to
  *skip* the fetch this cycle (no I-cache access, no I-buffer entry; the SM tries the
  next warp). The hook is asked again next cycle: an SM where a hook refused a fetch
  does not sleep (per-SM event skipping, :meth:`golden.timing.gpu.GPU.run`), so a
  mechanism may refuse for reasons that are not SM events (e.g. a busy table port).
  A mechanism may also *skip* instructions at fetch itself (DARSIE followers): it
  advances the warp functionally with
  :meth:`golden.simt.engine.FunctionalLaunch.skip_warp` (only when the warp's I-buffer
  is empty, so its functional PC is ``pc``) or defers that to :meth:`after_step`, moves
  ``warp.fetch_pc`` on by 8 per skipped instruction and returns False: the SM then
  fetches at the new ``warp.fetch_pc`` in the same cycle.
* :meth:`on_skip` -- a fetch-stage mechanism skipped the instruction at ``pc`` for
  ``warp`` and its results are now in the warp's registers, written without issue
  (:class:`golden.mechanisms.darsie.frontend.DeferredSkips` calls it on every mechanism
  of the SM): a skipped instruction never reaches :meth:`on_issue`, so a mechanism that
  keeps per-register state (G-Scalar's encodings, UV's tokens) updates it here.
  Several mechanisms on one SM are called in the composition order of
  :data:`golden.mechanisms.claims.CHAIN`.
* :meth:`after_step` -- right after the functional step of an issued instruction,
  before the SM re-steers fetch (a mechanism applies the functional part of skips it
  decided at fetch while older instructions were still in the I-buffer).
* ``warp.hold`` -- a mechanism sets this attribute of a
  :class:`~golden.timing.sm.WarpSlot` to stop the warp fetching and issuing (DARSIE's
  Sync entries, which take the warp out of the fetch scheduler); ``warp.hold_issue``
  stops issue only, so the warp keeps filling its I-buffer while it waits (DARSIE's
  branch barrier: the branch resolved, the next PC is known). The scheduler counts
  either as a ``barrier`` stall. A mechanism that clears one must call
  ``sm.wake_schedulers()``; it must only hold a warp until an event the SM simulates (a
  writeback, another warp's issue or fetch) releases it.
* ``warp.hold_fetch`` -- a mechanism whose :meth:`on_fetch` refuses a warp's fetch
  without side effects until some hook call of its own (an issue, a writeback, a branch)
  changes that may set this flag: the fetch stage then refuses the warp's fetch at once,
  as if every hook had returned True, without calling them. The mechanism clears it in
  the hook where the reason ends (no ``wake_schedulers`` needed: fetch is tried every
  cycle the SM is awake, and a refused fetch keeps the SM awake as before).
* ``sm.now`` -- the cycle being simulated.
* ``sm.read_operands`` -- SM service ``sm.read_operands(warp, regs) -> cycle``: read
  register indices ``regs`` for ``warp`` through the operand collector now (RF reads and
  bank conflicts counted as for an issued instruction); returns the cycle they are ready.
* ``sm.schedule_writeback`` -- SM service ``sm.schedule_writeback(warp, regs, cycle,
  pc=-1)``: write ``regs`` back at ``cycle`` outside the issue path (reserved in the warp's
  dependence tracker until then; :meth:`on_writeback` and the RF write counters see them
  then, as an issued instruction's). DARSIE's copy-back of renamed registers uses it.
* ``sm.register_in_bank`` -- SM service ``sm.register_in_bank(warp, bank) -> index``: a
  register index the operand collector maps to RF bank ``bank`` for ``warp`` (to charge a
  read of a register the mechanism keeps elsewhere to its bank).
* ``sm.operand_read_delay`` -- cycles from issue to the first operand read.
* ``sm.wake_schedulers`` -- SM service: every scheduler re-evaluates next cycle (after a
  mechanism released a warp it held).
* :meth:`on_issue` -- an instruction is about to issue; return ``None`` (baseline),
  ``"eliminate"`` (the functional step runs, but no operand read, no pipeline, no
  writeback events: counted as skipped), a pipeline name ``"alu" | "sfu" | "mem"``
  to convert it to another pipeline class, or an :class:`IssueOverride` that changes how
  this one instruction uses its pipeline (per-instruction initiation interval and latency,
  extra pipeline stages, the lanes charged to the execution units, an instruction injected
  ahead of it). With several mechanisms attached the last non-None answer counts, except
  that ``"eliminate"`` from any of them stands.
* :meth:`on_operand_read` -- the source registers (storage indices) to read; return
  the list actually read from the banked RF (e.g. fewer if a value is reused).
* :meth:`on_writeback` -- destination registers being written back; return the list
  counted as RF writes.
* :meth:`on_branch` -- a control instruction issued (``record`` is the functional
  :class:`~golden.simt.engine.StepRecord`, ``diverged`` says whether it split the warp).
* :meth:`predict_fetch` -- a ``bra`` at ``pc`` entered ``warp``'s I-buffer; return the
  PC the fetch stage continues at (a predicted target) or None (the next instruction).
  A mechanism that overrides it makes the SM *speculate past branches*: see
  :meth:`speculate_branch`.
* :meth:`speculate_branch` -- with a predicting mechanism attached, a ``bra`` issued
  (after its functional step). ``fetched_next`` is the PC the front end fetched after it
  (the I-buffer's next entry or the fetch PC) and ``next_pc`` the warp's true next PC
  (None if the warp finished). Return True if the warp went on past the branch without
  waiting for it to resolve (a correct prediction, or a divergent branch whose mask
  guards the predicted path): the warp's dependence tracker does not hold the warp on
  it. False keeps the control hazard: the tracker holds the warp until the branch
  resolves (``pipelines.control_latency``), and a wrong fetched path is flushed. The
  SM's ``warp.mem_wait`` says whether the branch waited on a long-latency (memory)
  dependence before it issued.
* :meth:`on_dispatch` -- a thread block is about to be placed on ``sm``; return False
  to refuse (the dispatcher then tries the next SM).
* :meth:`reclaim_warp` -- warp-granular resource release: ``warp`` finished; return True
  to free its registers, scheduler entry and threads now instead of when its whole TB
  finishes (shared memory and the TB slot always stay until the TB finishes).
* :meth:`partial_dispatch` -- partial-TB dispatch: the next TB does not fit ``sm``
  whole (and ``sm`` holds no TB with unissued warps); its shared memory, a TB slot and
  ``n_warps`` of its warps do. With ``n_warps`` >= 1 return True to dispatch it with its
  first ``n_warps`` warps resident; ``n_warps`` = 0 means the warp-level check failed
  (the call only informs; its return value is ignored). The rest are
  *dispatched but unissued*: they become resident in warp-id order as warps of the SM
  free resources, before any new TB is dispatched. The SM holds at most one TB with
  unissued warps (so a barrier in a partial TB cannot deadlock the SM); a barrier in a
  partial TB waits until its unissued warps become resident and arrive.
* :meth:`on_warp_start` / :meth:`on_warp_exit` -- ``warp`` became resident (at TB
  dispatch or later, from a partial TB) / finished; ``sm.now`` is the cycle.
* :meth:`make_tracker` -- a warp became resident; return an object that follows the
  dependence-tracker protocol of :mod:`golden.timing.scoreboard` to replace the config's
  per-warp tracker (e.g. a scoreboard shared by the SM's warps), or None.
* :meth:`form_warps` -- thread block ``tb`` became resident on ``sm`` (all its warps);
  return a :class:`~golden.timing.dynamic_warps.WarpFormation` to own the TB's
  thread-to-warp mapping (dynamic warps: thread block compaction), or None for static
  warps. The first mechanism that returns one owns the TB.
* :meth:`launch_begin` -- a launch starts on the SMs this mechanism is attached to
  (``sms``, before its first TB is dispatched): the place to build per-launch state (the
  program's marking, per-SM tables) and to drop the previous launch's. A mechanism never
  needs to detect a new launch by comparing ``sm.launch`` in its other hooks: every hook
  call between :meth:`launch_begin` and :meth:`launch_end` belongs to that launch.
* :meth:`launch_end` -- the launch finished (its in-flight writes drained); ``stats`` is
  its merged TimingStats. The base implementation calls :meth:`on_complete`.
* :meth:`on_complete` -- a launch finished; ``stats`` is the merged TimingStats (the
  stats-only form of :meth:`launch_end`, which calls it).
* :meth:`timeline_sample` -- optional gauges of what the mechanism does on an SM, read
  only by the over-time view (:mod:`golden.timing.timeline`) once per sampled interval.
"""

from __future__ import annotations

from dataclasses import dataclass


#: The sampling units a mechanism may declare (:attr:`Mechanism.sampling`), from the least
#: to the most restrictive.
SAMPLING_UNITS = ("any", "whole-tbs", "whole-waves", "whole-launch", "not-sampleable")


@dataclass(frozen=True)
class IssueOverride:
    """How one issued instruction uses its pipeline, as decided by a mechanism's
    :meth:`Mechanism.on_issue` (every field None/0 keeps the baseline's value).

    The pipeline unit is busy from the instruction's entry cycle for ``interval`` cycles
    and the result is written back ``latency`` cycles after the last lane group entered
    (:class:`golden.timing.pipelines.PipelineClass`):
    ``writeback = entry + interval - 1 + latency``.

    Attributes
    ----------
    pipe : str or None
        Pipeline class that executes it (``"alu" | "sfu" | "mem"``), None = its own.
    interval : int or None
        Cycles the unit is occupied (>= 1), e.g. 1 for a scalar executed on one lane
        where a vector takes ``warp_size / simd_width``. None = the instruction's own.
    latency : int or None
        Cycles from the last lane group's entry to writeback (>= 1), e.g. 1 for a result
        read from a reuse buffer instead of computed. None = the instruction's own.
    lanes : int or None
        Lanes charged to the execution unit's energy (``fu_lane_cycles``): 1 for a scalar,
        0 for an instruction that skips EX. None = the active lanes. The instruction
        still counts its active threads in ``thread_instructions``.
    inject_interval : int
        Cycles the unit is occupied *before* this instruction by instructions the
        mechanism injected ahead of it (e.g. a copy, G-Scalar's special move): the
        instruction enters the unit after them, so it and its dependants are delayed and
        the unit's throughput is spent; 0 = none. The injected instruction is a micro-op
        dispatched with this one (it takes no scheduler issue slot of its own). The
        mechanism counts the injected instructions' other events (RF accesses, energy)
        itself.
    extra_latency : int
        Cycles added to this instruction's result only (>= 0): pipeline stages a
        mechanism inserts (e.g. G-Scalar's decompress / compress / metadata read), so the
        write-back -- for a memory instruction, the request's arrival at the memory system
        -- and every dependant wait longer while the unit's throughput is unchanged. Not
        charged to the execution unit's lane-cycles (the stages are the mechanism's own
        logic).
    """

    pipe: str | None = None
    interval: int | None = None
    latency: int | None = None
    lanes: int | None = None
    inject_interval: int = 0
    extra_latency: int = 0

    def __post_init__(self):
        for name in ("interval", "latency"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or v < 1):
                raise ValueError(f"IssueOverride.{name} must be an integer >= 1, not {v!r}")
        if self.lanes is not None and (not isinstance(self.lanes, int) or self.lanes < 0):
            raise ValueError(f"IssueOverride.lanes must be an integer >= 0, not {self.lanes!r}")
        for name in ("inject_interval", "extra_latency"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 0:
                raise ValueError(f"IssueOverride.{name} must be an integer >= 0, not {v!r}")
        if self.pipe not in (None, "alu", "sfu", "mem"):
            raise ValueError(f"IssueOverride.pipe must be alu, sfu or mem, not {self.pipe!r}")


class Mechanism:
    """Base class of a mechanism: every hook is a no-op that keeps the baseline behaviour."""

    #: Short name used as the prefix of this mechanism's counters.
    name = "mechanism"

    #: True when the mechanism may read register values straight from ``wave.regs``: the
    #: functional model then executes every instruction when it issues. A mechanism that
    #: reads no register value, or reads them only through
    #: :meth:`golden.simt.engine.FunctionalLaunch.warp_register` /
    #: :meth:`~golden.simt.engine.FunctionalLaunch.force_registers`, sets False and lets
    #: register-only instructions run deferred in warp groups
    #: (:attr:`~golden.simt.engine.FunctionalLaunch.defer_registers`).
    reads_wave_registers = True

    #: The parts of the SM this mechanism takes over (:mod:`golden.mechanisms.claims`);
    #: the registry refuses two mechanisms that claim the same part. Empty: passive.
    claims: frozenset = frozenset()

    #: The parts this mechanism needs to behave as the baseline's (it reads or waits on
    #: what they do): the registry refuses it beside a mechanism that claims one of them.
    assumes: frozenset = frozenset()

    #: What sampled timing simulation (:mod:`golden.timing.sampling`) must keep whole in
    #: detail for this mechanism's results to hold, one of :data:`SAMPLING_UNITS`:
    #: ``"any"`` (no state beyond one instruction/warp), ``"whole-tbs"`` (state within a
    #: thread block), ``"whole-waves"`` (state shared by the TBs resident together),
    #: ``"whole-launch"`` (state across the TBs of a launch, reset when a launch begins),
    #: ``"not-sampleable"`` (state across launches, or undeclared). The default refuses
    #: sampling until a mechanism states what it keeps; ``sampling_reason`` says why.
    sampling: str = "not-sampleable"
    sampling_reason: str = "the mechanism does not declare what sampling must keep whole"

    def on_fetch(self, sm, warp, pc: int) -> bool:
        """Called before ``warp`` (a :class:`~golden.timing.sm.WarpSlot`) fetches ``pc``.
        Return True to skip the fetch."""
        return False

    def on_issue(self, sm, warp, pc: int, inst) -> str | IssueOverride | None:
        """Called when the instruction at ``pc`` issues. Return None, ``"eliminate"``, a
        pipeline name (``"alu"``, ``"sfu"``, ``"mem"``) to convert it, or an
        :class:`IssueOverride`."""
        return None

    def on_skip(self, sm, warp, pc: int) -> None:
        """The instruction at ``pc`` was skipped at fetch for ``warp`` (by a fetch-stage
        mechanism); its results are already in the warp's registers."""

    def after_step(self, sm, warp, pc: int, record) -> None:
        """The functional step of the instruction at ``pc`` ran (``record`` is its
        :class:`~golden.simt.engine.StepRecord`); called before fetch is re-steered."""

    def on_operand_read(self, sm, warp, pc: int, regs: list) -> list:
        """Source registers about to be read from the banked RF; return those to read."""
        return regs

    def on_writeback(self, sm, warp, pc: int, regs: list) -> list:
        """Destination registers being written back; return those counted as RF writes."""
        return regs

    def on_branch(self, sm, warp, pc: int, record, diverged: bool) -> None:
        """A control-flow instruction issued (after its functional step)."""

    def predict_fetch(self, sm, warp, pc: int, inst) -> int | None:
        """A ``bra`` at ``pc`` was fetched; return the PC fetch continues at, or None for
        the sequential path. Only called for mechanisms that override it."""
        return None

    def speculate_branch(self, sm, warp, pc: int, record, fetched_next: int,
                         next_pc: int | None) -> bool:
        """A ``bra`` issued on a SM that speculates (a mechanism overrides
        :meth:`predict_fetch`); return True if the warp did not wait for it to resolve."""
        return False

    def on_dispatch(self, sm, tb_id: int, warps_per_tb: int) -> bool:
        """A thread block is about to be dispatched to ``sm``; return False to refuse."""
        return True

    def reclaim_warp(self, sm, warp) -> bool:
        """``warp`` finished; return True to free its registers, scheduler entry and
        threads now (warp-granular release) rather than with its TB."""
        return False

    def partial_dispatch(self, sm, tb_id: int, n_warps: int) -> bool:
        """TB ``tb_id`` does not fit ``sm`` whole but ``n_warps`` of its warps (with the
        TB's shared memory and a TB slot) do; return True to dispatch it partially
        (``n_warps`` = 0: nothing fits; the return value is ignored)."""
        return False

    def on_warp_start(self, sm, warp) -> None:
        """``warp`` became resident on ``sm`` (scheduler entry and registers allocated)."""

    def on_warp_exit(self, sm, warp) -> None:
        """``warp`` finished on ``sm`` (after its last instruction issued)."""

    def make_tracker(self, sm, warp):
        """Dependence tracker for ``warp`` (a new resident warp of ``sm``), or None to keep
        the configuration's (``pipelines.dependence_tracking``)."""
        return None

    def form_warps(self, sm, tb):
        """Return a WarpFormation that forms ``tb``'s warps, or None (static warps)."""
        return None

    def launch_begin(self, launch, sms) -> None:
        """``launch`` (a :class:`~golden.simt.engine.FunctionalLaunch`) starts on ``sms``,
        the SMs of the run this mechanism is attached to (a tuple), before any of its TBs
        is dispatched."""

    def launch_end(self, launch, stats) -> None:
        """``launch`` finished; ``stats`` is its merged :class:`TimingStats`. The base
        implementation calls :meth:`on_complete` (an override that keeps ``on_complete``
        working calls ``super().launch_end(launch, stats)``)."""
        self.on_complete(stats)

    def on_complete(self, stats) -> None:
        """The launch finished; ``stats`` is its merged :class:`TimingStats` (called by
        :meth:`launch_end`)."""

    def timeline_sample(self, sm) -> dict | None:
        """What this mechanism is doing on ``sm`` now, for the over-time view
        (:mod:`golden.timing.timeline`, called once per sampled interval and SM, never when
        no timeline is attached): a small ``{name: number}`` dict of gauges (table
        occupancy, warps held...), or None. Counters the mechanism keeps with
        ``sm.stats.count_mechanism`` are sampled without this (as per-interval deltas)."""
        return None
