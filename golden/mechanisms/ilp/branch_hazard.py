"""Branches that cause no hazard in the baseline (ILP chapter §4.4.3, paper-facts §4.5).

The chapter motivates branch prediction with NQU's TB0: "13.7% of instructions are
branches. 42.3% of those cause no hazard in the baseline; 57.7% stall". Its baseline
(Table 6) keeps one instruction in flight per warp: a warp that issued a branch is not
ready again until the branch reaches writeback, so the branch only costs the SM cycles
when no other warp fills the issue slots meanwhile. The chapter does not define the
measure further; we read it as follows.

**Wait window** of a branch: the cycles after the one it issued in, up to (not including)
the cycle its writeback makes the warp ready again (``pipelines.control_latency`` cycles
after EX entry when that is set, else the branch's writeback) -- the cycles the warp waits
for its branch to resolve. Fetching the target afterwards is not part of the window.

**No hazard**: some other warp of the same issue scheduler issues at least one instruction
in the wait window (the window was not lost to the SM); otherwise the branch **stalls**.
A window of zero cycles counts as no hazard. The number of window cycles and of those in
which another warp issued are kept too (``filled_cycles`` / ``window_cycles`` is the
stricter, per-cycle view: the share of waiting cycles that other warps used), and
``next_cycle_filled``: another warp issued in the very next cycle (no bubble right after
the branch; the chapter's 8-SP view would call that the next issue slot, 4 cycles later).

:class:`BranchHazardObserver` is a passive mechanism (it changes no timing) counting this
for every ``bra`` that waits for resolution (a branch a predictor let its warp speculate
past never reaches the window), for TB0 and for all TBs; :func:`measure` runs one workload
with it on a configuration and returns the counts. Counters (``brhaz.`` prefix, the
mechanism counters of the run): ``{tb0,all}.branches``, ``.no_hazard``,
``.window_cycles``, ``.filled_cycles``, ``.next_cycle_filled``.
"""

from __future__ import annotations

from collections import defaultdict

from golden.timing.hooks import Mechanism

__all__ = ["BranchHazardObserver", "measure"]

_SCOPES = ("tb0", "all")
_FIELDS = ("branches", "no_hazard", "window_cycles", "filled_cycles", "next_cycle_filled")


class BranchHazardObserver(Mechanism):
    """Counts, per scope (TB0 / all TBs), the ``bra`` instructions whose wait window saw an
    issue from another warp of the same scheduler (see the module docstring).

    Per issue scheduler (``(sm id, scheduler index)``) it keeps the number of cycles in
    which some warp issued and the last such cycle; per warp, the cycles in which that warp
    issued. A pending branch stores those counts at its issue and is settled at its
    writeback."""

    name = "brhaz"
    reads_wave_registers = False

    #: sampled timing (not-sampleable): its per-scheduler issue history and reported totals carry across launches
    sampling = "not-sampleable"
    sampling_reason = "its per-scheduler issue history and reported totals carry across launches"

    def __init__(self):
        #: scheduler -> [cycles with an issue, last cycle with an issue]
        self._sched = defaultdict(lambda: [0, -1])
        #: warp slot id -> [cycles with an issue by this warp, last such cycle]
        self._warp = defaultdict(lambda: [0, -1])
        #: warp slot id -> pending branch (pc, issue cycle, sched key, sched count, own count, tb0)
        self._pending: dict = {}
        #: warps whose pending branch saw another warp issue in the cycle after it
        self._next: set = set()
        self.counts = {s: dict.fromkeys(_FIELDS, 0) for s in _SCOPES}
        #: what earlier launches' statistics already received (on_complete runs per launch)
        self._reported = {s: dict.fromkeys(_FIELDS, 0) for s in _SCOPES}

    @staticmethod
    def _key(sm, warp):
        return (sm.id, warp.sched.index)

    def on_issue(self, sm, warp, pc, inst):
        now = sm.now
        key = self._key(sm, warp)
        s = self._sched[key]
        if s[1] != now:
            s[0] += 1
            s[1] = now
        o = self._warp[id(warp)]
        if o[1] != now:
            o[0] += 1
            o[1] = now
        for wid, p in self._pending.items():  # the cycle after another warp's branch
            if p[1] == now - 1 and p[2] == key and wid != id(warp):
                self._next.add(wid)
        if inst.opcode == "bra":
            self._next.discard(id(warp))
            self._pending[id(warp)] = (pc, now, key, s[0], o[0], warp.tb.tb_id == 0)
        return None

    def on_writeback(self, sm, warp, pc, regs):
        p = self._pending.get(id(warp))
        if p is not None and p[0] == pc:
            del self._pending[id(warp)]
            _, t, key, s0, o0, tb0 = p
            s = self._sched[key]
            o = self._warp[id(warp)]
            # issue cycles after t and before this cycle (writeback precedes issue)
            others = (s[0] - s0) - (o[0] - o0)
            window = max(sm.now - t - 1, 0)
            for scope in (("tb0", "all") if tb0 else ("all",)):
                c = self.counts[scope]
                c["branches"] += 1
                c["no_hazard"] += others > 0 or window == 0
                c["window_cycles"] += window
                c["filled_cycles"] += min(others, window)
                c["next_cycle_filled"] += id(warp) in self._next
            self._next.discard(id(warp))
        return regs

    def on_branch(self, sm, warp, pc, record, diverged):
        if record.finished:  # a branch that ended the warp never writes back for it
            self._pending.pop(id(warp), None)

    def on_complete(self, stats) -> None:
        for scope in _SCOPES:
            for f in _FIELDS:
                v = self.counts[scope][f]
                stats.count_mechanism(f"brhaz.{scope}.{f}", v - self._reported[scope][f])
                self._reported[scope][f] = v


def measure(workload: str, size: str = "small", seed: int = 0, config: str = "gtx280_ilp",
            overrides: dict | None = None) -> dict:
    """Run ``workload`` in timing mode on ``config`` (with config ``overrides``) with only
    :class:`BranchHazardObserver` attached; return per scope the counts and the
    ``no_hazard_share`` / ``filled_share``, the run's cycles and whether outputs matched."""
    from golden.configs import load_config
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry

    cfg = load_config(config, overrides)
    obs = BranchHazardObserver()
    dev = TimingDevice(cfg, mechanisms=[obs], echo_printf=False)
    run = registry.run_workload(registry.get(workload), size=size, seed=seed, device=dev)
    out = {"workload": workload, "size": size, "config": cfg.name,
           "outputs_match": not run.mismatches(),
           "cycles": sum(s.timing.cycles for s in run.stats)}
    for scope in _SCOPES:
        c = dict(obs.counts[scope])
        n, w = c["branches"], c["window_cycles"]
        c["no_hazard_share"] = c["no_hazard"] / n if n else 0.0
        c["filled_share"] = c["filled_cycles"] / w if w else 0.0
        c["next_cycle_share"] = c["next_cycle_filled"] / n if n else 0.0
        out[scope] = c
    return out


if __name__ == "__main__":  # python -m golden.mechanisms.ilp.branch_hazard NQU [size]
    import json
    import sys
    args = sys.argv[1:]
    if not args:
        sys.exit("usage: python -m golden.mechanisms.ilp.branch_hazard WORKLOAD [SIZE]")
    print(json.dumps(measure(args[0], args[1] if len(args) > 1 else "small"), indent=1))
