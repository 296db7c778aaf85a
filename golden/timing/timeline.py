"""Over-time view of a timing run (issue 72 item 2): counters sampled every N cycles.

Off by default: :class:`golden.timing.gpu.GPU` has ``timeline = None`` and the cycle loop
then does no work for it (the loop's watchdog test ``now > max_cycles`` becomes
``now >= check_at`` with ``check_at = max_cycles + 1``: the same comparison). Setting
``gpu.timeline = Timeline(every=N)`` before launches samples every later launch: the
loop calls :meth:`Timeline.sample` at the first loop step at or after each multiple of
``N`` cycles (event skipping may jump past a boundary: an interval then ends where the
clock landed, and every interval carries its own ``t0``/``t1``).

What is stored (global cycles: launch ``k`` of a :meth:`GPU.run` sequence starts where
launch ``k-1`` ended, as the run's cycle total adds launches):

* ``launches`` -- one phase per kernel launch: name, first and last+1 global cycle, SMs;
* ``sm_samples`` -- per interval and SM: the deltas over ``[t0, t1)`` of the SM's warp
  instructions issued / executed / skipped, thread instructions, scheduler-cycle
  outcomes (:data:`golden.timing.stats.STALL_REASONS`), SM cycles with resident warps and
  resident-warp cycles (their ratio: mean resident warps), the mechanism counters
  (``TimingStats.mechanism``) that changed, and ``gauges``: what each mechanism reports
  through :meth:`golden.timing.hooks.Mechanism.timeline_sample` at ``t1``;
* ``channel_samples`` -- per interval and DRAM channel (memory partition): data-bus
  busy cycles inside ``[t0, t1)`` (utilisation = busy / (t1 - t0)), row-buffer hits and
  activates of the requests presented in the interval (hit rate = hits / (hits +
  activates); the DRAM model fixes a request's timing when it is presented, so its row
  outcome is counted at presentation, its bus time where the bus carries it); the
  requests presented in the interval that found the scheduler queue full
  (``queue_full``, the channel's ``queue_full_delays``), and ``queued``: the requests
  pending at the interval's last cycle (promised to issue their last column command after
  it, :meth:`~golden.timing.memory.dram.DRAMChannel.waiting`: in the scheduler queue or,
  sent by the L2 but not yet past ``dram.latency``, on their way to it -- the model does
  not keep entry times, so the two are not told apart).
  A burst occupies the data bus for one slot and moves ``bytes_per_burst``: bus busy
  time / interval is the channel's bandwidth as a fraction of its peak.

How per-SM counts are had without touching the SM's hot path: while a timeline is set,
each SM of a launch counts into its own :class:`~golden.timing.stats.TimingStats`, and
:meth:`Timeline.finish` merges them into the launch's statistics before the mechanisms'
``on_complete`` sees them -- the launch's counters are the same sums as without the
timeline (tests/test_timeline.py checks it). A sleeping SM (per-SM event skipping)
catches up its stall counters only when it wakes; a sample adds the cycles it has slept
so far, as :meth:`golden.timing.sm.SM.account_idle` will, without changing the SM.

Not combinable with the per-PC profile in one run (:mod:`golden.timing.pc_profile`
reads the launch-wide counters while the SMs run).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from golden.errors import SimtlabError
from golden.timing.stats import STALL_REASONS, TimingStats

#: per-SM scalar counters sampled as deltas (names of TimingStats attributes)
SM_COUNTERS = ("instructions_issued", "instructions_executed", "instructions_skipped",
               "thread_instructions", "sm_cycles", "resident_warp_cycles", "scheduler_cycles")


@dataclass
class _SMState:
    """The per-SM counters of one SM of a sampled launch and their values at the last
    sample."""
    sm: object
    stats: TimingStats
    last: dict = field(default_factory=dict)
    last_stalls: list = field(default_factory=list)
    last_mech: dict = field(default_factory=dict)


@dataclass
class _RunState:
    """One launch under sampling: its SMs' private counters and its phase record."""
    kr: object
    sms: list
    launch: dict
    t0: int                 # local cycle of the last sample of this run


class Timeline:
    """Samples of every launch run while attached to a GPU (``gpu.timeline``); see the
    module docstring for what it stores. ``every``: cycles per interval (>= 1)."""

    def __init__(self, every: int = 1000):
        if not isinstance(every, int) or isinstance(every, bool) or every < 1:
            raise SimtlabError(f"timeline interval must be an integer >= 1, got {every!r}")
        self.every = every
        #: global cycle of local cycle 0 of the current cycle loop
        self.offset = 0
        self.launches: list[dict] = []
        self.sm_samples: list[dict] = []
        self.channel_samples: list[dict] = []
        self._runs: dict[int, _RunState] = {}
        self._mem: dict[int, tuple] = {}   # id(memory) -> (memory, t0, [last per channel])

    # -------------------------------------------------------------- called by the GPU
    def attach(self, kr, memory) -> None:
        """A launch (:class:`golden.timing.gpu.KernelRun`) is set up: give each of its SMs
        private counters (merged back by :meth:`finish`)."""
        if kr.pc_profile is not None:
            raise SimtlabError("the timeline and the per-PC profile cannot sample one run "
                               "together; run them separately")
        states = []
        for sm in kr.sms:
            st = TimingStats.for_config(kr.config)
            sm.stats = st
            states.append(_SMState(sm, st, {k: 0 for k in SM_COUNTERS},
                                   [0] * len(STALL_REASONS), {}))
        rec = {"index": len(self.launches), "kernel": kr.launch.name,
               "start": self.offset + kr.start, "end": None,
               "sms": [sm.id for sm in kr.sms], "partition": kr.partition}
        self.launches.append(rec)
        self._runs[id(kr)] = _RunState(kr, states, rec, kr.start)
        if id(memory) not in self._mem:
            self._mem[id(memory)] = (memory, kr.start,
                                    [(0.0, 0, 0, 0)] * len(memory.dram.channels))

    def first_check(self, max_cycles: int) -> int:
        """The cycle-loop's first ``check_at`` (the next interval boundary)."""
        return min(max_cycles + 1, self.every)

    def sample(self, active, now: int, max_cycles: int) -> int:
        """Interval boundary reached at local cycle ``now`` (cycles ``< now`` are
        simulated): sample every active launch's SMs and the memory channels; return the
        next ``check_at``."""
        for kr in active:
            rs = self._runs.get(id(kr))
            if rs is not None:
                self._sample_run(rs, now)
        for key in list(self._mem):
            self._sample_memory(key, now)
        nxt = (now // self.every + 1) * self.every
        return min(max_cycles + 1, nxt)

    def finish(self, kr, last: int) -> None:
        """Launch ``kr`` ended at local cycle ``last`` (drained): its last interval, then
        its SMs' counters merged into ``kr.stats``."""
        rs = self._runs.pop(id(kr), None)
        if rs is None:
            return
        self._sample_run(rs, last + 1)
        for s in rs.sms:
            kr.stats.merge(s.stats, concurrent=True)
            s.sm.stats = kr.stats
        rs.launch["end"] = self.offset + last + 1

    def end_loop(self, end: int) -> None:
        """The cycle loop returned (last cycle ``end``): the memory channels' last
        interval; later launches start after this one."""
        for key in list(self._mem):
            self._sample_memory(key, end + 1)
        self._mem.clear()
        self.offset += end + 1

    # -------------------------------------------------------------- sampling
    def _sample_run(self, rs: _RunState, now: int) -> None:
        t0, t1 = rs.t0, now
        if t1 <= t0:
            return
        g0, g1 = self.offset + t0, self.offset + t1
        for s in rs.sms:
            sm, st = s.sm, s.stats
            pending = 0
            if sm.sleep_since is not None:        # its stalls catch up at wake: add them
                pending = max(0, now - 1 - sm.sleep_since)
            cur = {k: getattr(st, k) for k in SM_COUNTERS}
            stalls = list(st.stalls)
            if pending:                           # as SM.account_idle will add them
                cur["sm_cycles"] += pending
                cur["resident_warp_cycles"] += len(sm.warps) * pending
                for sched in sm.schedulers:
                    if sched.warps:
                        stalls[sched.last_reason] += pending
                        cur["scheduler_cycles"] += pending
            row = {"t0": g0, "t1": g1, "sm": sm.id, "launch": rs.launch["index"]}
            for k in SM_COUNTERS:
                row[k] = cur[k] - s.last[k]
            row["stalls"] = [a - b for a, b in zip(stalls, s.last_stalls)]
            mech = {}
            for k, v in st.mechanism.items():
                d = v - s.last_mech.get(k, 0)
                if d:
                    mech[k] = d
            row["mechanism"] = mech
            gauges = {}
            for m in sm.mechanisms:
                got = m.timeline_sample(sm)
                if got:
                    for k, v in got.items():
                        gauges[f"{m.name}.{k}"] = v
            row["gauges"] = gauges
            self.sm_samples.append(row)
            s.last, s.last_stalls, s.last_mech = cur, stalls, dict(st.mechanism)
        rs.t0 = now

    def _sample_memory(self, key: int, now: int) -> None:
        memory, t0, last = self._mem[key]
        if now <= t0:
            return
        new = []
        for i, ch in enumerate(memory.dram.channels):
            bus = ch.bus
            # booked bus time before `now`: everything booked minus what lies after `now`
            # (bookings are pruned only once they end before the memory's current cycle)
            after = 0.0
            for s, e in bus.intervals():
                if e > now:
                    after += e - max(s, now)
            busy = bus.busy - after
            cur = (busy, ch.row_hits, ch.activates, ch.queue_full_delays)
            self.channel_samples.append({
                "t0": self.offset + t0, "t1": self.offset + now, "channel": i,
                "busy": max(0.0, cur[0] - last[i][0]), "row_hits": cur[1] - last[i][1],
                "activates": cur[2] - last[i][2], "queue_full": cur[3] - last[i][3],
                "queued": ch.waiting(now - 1)})
            new.append(cur)
        self._mem[key] = (memory, now, new)

    # -------------------------------------------------------------- output
    def to_dict(self) -> dict:
        """JSON-ready: ``every``, ``stall_reasons``, ``launches``, ``sm_samples``,
        ``channel_samples`` (module docstring)."""
        return {"every": self.every, "stall_reasons": list(STALL_REASONS),
                "launches": [dict(x) for x in self.launches],
                "sm_samples": [dict(x) for x in self.sm_samples],
                "channel_samples": [dict(x) for x in self.channel_samples]}
