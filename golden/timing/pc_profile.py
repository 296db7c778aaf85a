"""Per-PC counters of a timing run (issue 72): where one launch's cycles and events went.

Off by default: :class:`golden.timing.gpu.GPU` has ``pc_profiler = None`` and every SM
``pc_profile = None``, so the model only tests one attribute per event site. Setting
``gpu.pc_profiler = PCProfiler()`` before a launch gives each launch a :class:`PCProfile`
that the SMs of the launch fill while it runs; the profile never changes what the model
does (it reads counters, it never writes them).

What one :class:`PCProfile` stores, per instruction slot of the launch's program
(index ``pc >> 3``; one extra row, index ``n``, collects what no PC owns):

* ``issued`` / ``eliminated`` -- warp instructions issued at the PC (every issue counts
  in ``TimingStats.instructions_issued``) and those a mechanism eliminated at issue
  (``on_issue`` returned ``"eliminate"``); executed = issued - eliminated;
* ``lanes`` -- active lanes summed over the executed ones (``thread_instructions``);
* ``outcomes[r]`` -- scheduler-cycles with outcome ``r`` (:data:`STALL_REASONS`)
  attributed to the PC (see *Attribution* below); ``outcomes[STALL_ISSUE]`` are the issue
  cycles;
* ``skipped`` -- warp instructions removed without issuing (``instructions_skipped`` that
  changed while the SM handled the PC: DARSIE followers at fetch, eliminations);
* ``overridden`` / ``scalar`` / ``converted`` -- issues where a mechanism changed how the
  instruction used its pipeline (an :class:`~golden.timing.hooks.IssueOverride`; of those,
  ``scalar`` ran on at most one lane: G-Scalar / UV scalar execution) or sent it to
  another pipeline class;
* ``mech`` -- mechanism counters (``TimingStats.mechanism``) that changed while the SM ran
  a hook for the PC (fetch, issue, operand read, branch, writeback);
* ``mem`` -- memory-hierarchy counters that changed while the SM's memory port served a
  request of the PC (L1/L2/DRAM traffic, shared-memory passes).

Attribution of scheduler cycles: every issue scheduler records one outcome per cycle
(:mod:`golden.timing.stats`). An ``issue`` cycle belongs to the first instruction issued;
``memory`` / ``dependence`` / ``structural`` to the I-buffer head of the warp whose block
decided the outcome (the first blocked warp in the scheduler's order); ``barrier`` to the
head of the first warp waiting at a barrier (or held by a mechanism); ``no_instruction``
to the instruction the first warp in order is waiting to receive (its fetch PC, or its
I-buffer head still in flight from the I-cache). Cycles the model skips repeat the last
outcome and its PC. A cycle whose PC is unknown goes to the extra row.
"""

from __future__ import annotations

from golden.timing.stats import STALL_REASONS

#: memory-hierarchy counters a profile attributes (names of
#: :meth:`golden.timing.memory.hierarchy.MemoryHierarchy.counters`)
MEM_COUNTERS = ("l1_hits", "l1_misses", "l2_hits", "l2_misses", "dram_reads", "dram_writes",
                "dram_bytes", "shared_cycles", "const_hits", "const_misses", "l1_bypasses")


def _delta(now: dict, before: dict) -> dict:
    """``now - before`` of two counter dicts, non-zero entries only."""
    out = {}
    for k, v in now.items():
        d = v - before.get(k, 0)
        if d:
            out[k] = d
    return out


def _add(into: dict, delta: dict, scale: int = 1) -> None:
    for k, v in delta.items():
        into[k] = into.get(k, 0) + v * scale


class PCProfile:
    """Per-PC counters of one launch (see the module docstring for every field)."""

    def __init__(self, kernel: str, program, stats, memory):
        self.kernel = kernel
        self.program = program
        #: the launch's :class:`TimingStats` (read to attribute deltas, never written)
        self.stats = stats
        self.memory = memory
        n = len(program.slots)
        self.n = n
        rows = n + 1
        self.issued = [0] * rows
        self.eliminated = [0] * rows
        self.lanes = [0] * rows
        self.skipped = [0] * rows
        self.overridden = [0] * rows
        self.scalar = [0] * rows
        self.converted = [0] * rows
        self.outcomes = [[0] * rows for _ in STALL_REASONS]
        self.mech = [None] * rows
        self.mem = [None] * rows
        self._mech_seen = dict(stats.mechanism)
        self._skipped_seen = stats.instructions_skipped
        self._mem_seen = None
        self.finished = False

    def _row(self, pc: int) -> int:
        i = pc >> 3
        return i if 0 <= pc and i < self.n else self.n

    # ------------------------------------------------------------------ recording (SM)
    def outcome(self, reason: int, pc: int, cycles: int) -> None:
        """``cycles`` scheduler-cycles with outcome ``reason`` belong to ``pc`` (-1: none)."""
        self.outcomes[reason][self._row(pc)] += cycles

    def issue(self, pc: int, active: int, action) -> None:
        """The instruction at ``pc`` issued with ``active`` lanes; ``action`` is what the
        mechanisms' ``on_issue`` answered (None, "eliminate", a pipe name, an override)."""
        i = self._row(pc)
        self.issued[i] += 1
        if action is None:
            self.lanes[i] += active
        elif action == "eliminate":
            self.eliminated[i] += 1
        else:
            self.lanes[i] += active
            if isinstance(action, str):
                self.converted[i] += 1
            else:
                self.overridden[i] += 1
                if action.lanes is not None and action.lanes <= 1:
                    self.scalar[i] += 1

    def enter(self) -> None:
        """The SM is about to run hooks for one PC: what changed since the last call
        belongs to no PC."""
        self._settle(self.n)

    def leave(self, pc: int, moved_to: int = -1) -> None:
        """The hooks for ``pc`` ran: what changed belongs to ``pc``. At fetch,
        ``moved_to`` is the warp's fetch PC after the hooks: skips that moved it forward by
        8 per skipped instruction are spread over the PCs skipped."""
        self._settle(self._row(pc), pc, moved_to)

    def _settle(self, row: int, pc: int = -1, moved_to: int = -1) -> None:
        st = self.stats
        k = st.instructions_skipped - self._skipped_seen
        if k:
            self._skipped_seen = st.instructions_skipped
            if pc >= 0 and moved_to - pc == 8 * k:
                for p in range(pc, moved_to, 8):
                    self.skipped[self._row(p)] += 1
            else:
                self.skipped[row] += k
        m = st.mechanism
        if m != self._mech_seen:
            d = _delta(m, self._mech_seen)
            self._mech_seen = dict(m)
            if self.mech[row] is None:
                self.mech[row] = {}
            _add(self.mech[row], d)

    def mem_enter(self) -> None:
        """The memory port is about to present a request."""
        self._mem_seen = self.memory.counters()

    def mem_leave(self, pc: int) -> None:
        """The request of the instruction at ``pc`` was presented (accepted or not)."""
        now = self.memory.counters()
        d = _delta({k: now[k] for k in MEM_COUNTERS}, self._mem_seen)
        if d:
            i = self._row(pc)
            if self.mem[i] is None:
                self.mem[i] = {}
            _add(self.mem[i], d)

    # ------------------------------------------------------------------ end of launch
    def finish(self) -> None:
        """After the launch (its stats complete, memory counters included): whatever the
        rows do not account for goes to the extra row, so every column sums to the
        launch's global counter."""
        if self.finished:
            return
        self.finished = True
        n = self.n
        self._settle(n)
        st = self.stats
        self.skipped[n] += st.instructions_skipped - sum(self.skipped)
        final = {k: getattr(st, _STATS_NAME.get(k, k)) for k in MEM_COUNTERS
                 if hasattr(st, _STATS_NAME.get(k, k))}
        seen: dict = {}
        for d in self.mem:
            if d:
                _add(seen, d)
        rest = _delta(final, seen)
        if rest:
            self.mem[n] = dict(self.mem[n] or {})
            _add(self.mem[n], rest)
        self.memory = None   # do not keep the hierarchy alive


#: memory counter -> the TimingStats field that holds it after the launch
_STATS_NAME = {"shared_cycles": "shared_accesses"}


class PCProfiler:
    """Switch and collector: attach to a :class:`~golden.timing.gpu.GPU` as
    ``gpu.pc_profiler`` and every later launch adds its :class:`PCProfile` to
    ``profiles`` (in launch order)."""

    def __init__(self):
        self.profiles: list[PCProfile] = []

    def begin(self, launch, stats, memory) -> PCProfile:
        """A launch starts: its profile (filled by its SMs)."""
        p = PCProfile(launch.name, launch.program, stats, memory)
        self.profiles.append(p)
        return p
