"""``ilp-sc``: the shared many-thread-aware scoreboard in the timing model (seed 002 §4.4.2)."""

import pytest

from golden.mechanisms.ilp import scoreboard as ilp
from golden.mechanisms.registry import names
from golden.report.runner import TimingJob, run_job


def test_registered():
    assert "ilp-sc" in names()


# MM (regular) and BFS (atomics) run in make test; the other five with make test-sweep
@pytest.mark.parametrize("workload", ["MM", "BFS", *(pytest.param(w, marks=pytest.mark.sweep)
                                                     for w in ("NQU", "BS", "STO", "SP", "MV"))])
def test_outputs_identical_and_no_slower_than_one_in_flight(workload, shrink_small):
    shrink_small.tiny(workload)
    base = run_job(TimingJob(workload, "gtx280"))
    sc = run_job(TimingJob(workload, "gtx280", mechanisms=("ilp-sc",)))
    assert sc["outputs_match"] and sc["output_digest"] == base["output_digest"]
    m = sc["timing"]["mechanism"]
    assert m["ilp.allocations"] == m["ilp.commits"] > 0       # every entry committed
    if workload != "BFS":  # BFS's work depends on the order of its atomics (timing)
        assert sc["timing"]["instructions_issued"] == base["timing"]["instructions_issued"]
    assert sc["cycles"] <= 1.01 * base["cycles"]


def test_low_tlp_kernel_gains_as_the_chapter_says(shrink_small):
    """NQU (one TB per SM, TB0 dominates) gains most from the scoreboard in the chapter."""
    shrink_small.tiny("NQU")
    base = run_job(TimingJob("NQU", "gtx280"))
    sc = run_job(TimingJob("NQU", "gtx280", mechanisms=("ilp-sc",)))
    assert base["cycles"] / sc["cycles"] > 1.05


class _Spy(ilp.ILPScoreboardMechanism):
    """Checks the board's invariants after every tracker call of a real run."""

    def make_tracker(self, sm, warp):
        t = super().make_tracker(sm, warp)
        orig_reserve, orig_release = t.reserve, t.release
        board = t.board

        def check():
            sb = board.sb
            lists = [i for w in range(sb.params.warps) for i in sb.entries_of(w)]
            assert sorted(lists) == [i for i in range(sb.params.entries) if sb.used[i]]
            live = [sb.reg[i] for i in range(sb.params.entries) if sb.used[i] and sb.nm[i]]
            assert len(live) == len(set(live)), "two matchable definitions of one register"

        def reserve(*a, **k):
            r = orig_reserve(*a, **k)
            check()
            return r

        def release(*a, **k):
            orig_release(*a, **k)
            check()

        return _Wrapped(t, reserve, release)


class _Wrapped:
    """A SharedTracker whose reserve/release are wrapped (slots forbid patching)."""

    tracks_all = True

    def __init__(self, inner, reserve, release):
        self.inner, self.reserve, self.release = inner, reserve, release

    def blocked(self, d):
        return self.inner.blocked(d)

    def empty(self):
        return self.inner.empty()

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_board_invariants_hold_in_a_real_run(shrink_small):
    from golden.configs import load_config
    shrink_small.tiny("NQU")
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry
    cfg = load_config("gtx280")
    dev = TimingDevice(cfg, mechanisms=[_Spy(cfg)], echo_printf=False)
    run = registry.run_workload(registry.get("NQU"), size="small", seed=0, device=dev)
    assert not run.mismatches()
