"""Timing mode runs real workloads with the functional core's results, deterministically."""

import numpy as np
import pytest

from golden.configs import load_config
from golden.timing.hooks import Mechanism
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry

# A representative subset at size "small" (the smallest warp-instruction counts of the
# suite: dense compute, shared-memory tiling, barriers, divergent graph code, atomics,
# stencils); the whole suite at small size takes ~7 minutes in timing mode on 2 cores,
# too long for the unit-test budget.
SUBSET = ["MM", "DCT", "FW", "BFS", "CONV", "BP", "PT", "BIN"]


@pytest.fixture(scope="module")
def pascal():
    return load_config("pascal")


@pytest.mark.parametrize("name", SUBSET)
def test_workload_outputs_match_reference_in_timing_mode(pascal, name):
    run = registry.run_workload(name, "small", seed=0, device=TimingDevice(pascal))
    assert run.mismatches() == []
    for st in run.stats:
        t = st.timing
        t.check()
        # (the count may differ from a functional-mode run for racy kernels such as BFS,
        # whose warp interleaving changes how much work each warp finds)
        assert t.instructions_executed == st.warp_instructions
        c = pascal.core  # front-end bound: warps fetched per cycle x instructions per fetch
        assert 0 < t.ipc <= c.num_sms * c.fetch_width * c.fetch_instructions
        assert t.scheduler_cycles > 0 and st.energy.total > 0


def test_timing_runs_are_deterministic(pascal):
    a = registry.run_workload("BFS", "small", seed=3, device=TimingDevice(pascal))
    b = registry.run_workload("BFS", "small", seed=3, device=TimingDevice(pascal))
    assert [s.timing.to_dict() for s in a.stats] == [s.timing.to_dict() for s in b.stats]


class FetchCounter(Mechanism):
    """Example mechanism: counts fetches and issues per PC through the hooks."""

    name = "fetchcount"

    def __init__(self):
        self.fetches = 0
        self.issues = 0
        self.dispatched = 0
        self.completed = 0

    def on_fetch(self, sm, warp, pc):
        self.fetches += 1
        sm.stats.count_mechanism("fetchcount.fetches")
        return False

    def on_issue(self, sm, warp, pc, inst):
        self.issues += 1
        return None

    def on_dispatch(self, sm, tb_id, warps_per_tb):
        self.dispatched += 1
        return True

    def on_complete(self, stats):
        self.completed += 1


class SkipOddFetchAttempts(Mechanism):
    """Refuses every other fetch attempt: slows the front end, never changes results."""

    def __init__(self):
        self.n = 0

    def on_fetch(self, sm, warp, pc):
        self.n += 1
        return self.n % 2 == 1


def test_mechanism_hooks_are_called(pascal):
    m = FetchCounter()
    run = registry.run_workload("MM", "small", device=TimingDevice(pascal, mechanisms=[m]))
    assert run.mismatches() == []
    t = run.stats[0].timing
    assert m.fetches == t.instructions_fetched == t.mechanism["fetchcount.fetches"]
    assert m.issues == t.instructions_issued
    assert m.dispatched == run.stats[0].functional.thread_blocks == 4
    assert m.completed == len(run.stats)
    base = registry.run_workload("MM", "small", device=TimingDevice(pascal))
    assert m.issues == base.stats[0].timing.instructions_issued
    slow = registry.run_workload("MM", "small",
                                 device=TimingDevice(pascal, mechanisms=[SkipOddFetchAttempts()]))
    assert slow.mismatches() == []
    assert slow.stats[0].cycles > base.stats[0].cycles


@pytest.mark.parametrize("policy", ["lrr", "gto", "sticky_rr", "two_level"])
def test_scheduler_policies_give_same_results(pascal, policy):
    from dataclasses import replace
    cfg = replace(pascal, core=replace(pascal.core, scheduler=policy))
    run = registry.run_workload("BFS", "small", device=TimingDevice(cfg))
    assert run.mismatches() == []
    for s in run.stats:
        s.timing.check()


def test_other_configs_run():
    for name in ("gtx480", "gtx285", "fx5800"):
        cfg = load_config(name)
        run = registry.run_workload("DCT", "small", device=TimingDevice(cfg))
        assert run.mismatches() == []
        assert run.stats[0].cycles > 0


def test_cli_run_timing_mode(tmp_path, capsys):
    import json

    from golden.cli import main
    out = tmp_path / "dct.json"
    assert main(["run", "DCT", "--mode", "timing", "--config", "pascal", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "cycles" in text and "IPC" in text and "stall breakdown" in text and "total" in text
    d = json.loads(out.read_text())
    assert d["outputs_match"] and d["cycles"] == d["timing"]["cycles"] > 0
    assert d["energy"] and d["per_launch"]
    assert main(["run", "DCT", "--mode", "timing", "--config", "nope"]) == 2


def test_sticky_round_robin_order():
    """sticky_rr (CAPRI §4): the last issuer's block first, round robin inside it; the other
    blocks after it, block round robin from the block dispatched next."""
    from types import SimpleNamespace

    from golden.timing.scheduler import IssueScheduler
    a, b, c = object(), object(), object()
    ws = [SimpleNamespace(tb=t, name=f"{n}{i}", done=False) for n, t in (("a", a), ("b", b), ("c", c))
          for i in range(3)]
    s = IssueScheduler(0, "sticky_rr", 8)
    for w in ws:
        s.add(w)
    assert [w.name for w in s.order()] == [w.name for w in ws]   # nothing issued yet
    s.issued(ws[4])   # b1
    assert [w.name for w in s.order()] == ["b2", "b0", "b1", "c0", "c1", "c2", "a0", "a1", "a2"]
    s.issued(ws[8])   # c2: all of b stalled, c becomes current
    assert [w.name for w in s.order()] == ["c0", "c1", "c2", "a0", "a1", "a2", "b0", "b1", "b2"]
    s.remove(ws[0])
    s.issued(ws[1])   # a1
    assert [w.name for w in s.order()] == ["a2", "a1", "b0", "b1", "b2", "c0", "c1", "c2"]


def test_schedulers_continue_after_the_slot_of_an_issuer_that_exited():
    """The SM removes a warp that issued its ``exit`` before telling the scheduler it
    issued: lrr then continues with the warp after its slot, sticky_rr with its block's
    remaining warps (GPGPU-Sim keeps pointing at the exited warp's slot), gto with the
    oldest warp; the exited warp is never in the order again."""
    from types import SimpleNamespace

    from golden.timing.scheduler import IssueScheduler
    a, b = object(), object()

    def warps():
        return [SimpleNamespace(tb=t, name=f"{n}{i}", done=False)
                for n, t in (("a", a), ("b", b)) for i in range(3)]

    def exit_(s, w):
        w.done = True
        s.remove(w)
        s.issued(w)

    for policy in ("lrr", "sticky_rr", "gto"):
        ws = warps()
        s = IssueScheduler(0, policy, 8)
        for w in ws:
            s.add(w)
        s.issued(ws[1])       # a1 issues, then ...
        s.issued(ws[2])       # ... a2
        exit_(s, ws[2])       # a2 issues its exit
        got = [w.name for w in s.order()]
        if policy == "lrr":
            assert got == ["b0", "b1", "b2", "a0", "a1"], got
        elif policy == "sticky_rr":
            assert got == ["a0", "a1", "b0", "b1", "b2"], got
        else:
            assert got == ["a0", "a1", "b0", "b1", "b2"], got
        exit_(s, ws[1])       # a1 issues its exit from the same position
        s.remove(ws[0])       # a0 finishes outside the issue path (a warp before the slot)
        assert [w.name for w in s.order()] == (["b0", "b1", "b2"]), policy
        s.issued(ws[3])       # b0 issues: the usual order after it
        assert [w.name for w in s.order()][0] == ("b1" if policy != "gto" else "b0"), policy


def test_two_level_barrier_waiters_leave_active_set(pascal):
    # One active warp per scheduler: a warp waiting at bar.sync must make room for a pending
    # warp of its TB, otherwise the barrier can never be released (deadlock).
    from dataclasses import replace
    cfg = replace(pascal, core=replace(pascal.core, scheduler="two_level", two_level_active_warps=1,
                                       num_schedulers_per_sm=1))
    run = registry.run_workload("DCT", "small", device=TimingDevice(cfg))
    assert run.mismatches() == []


def test_register_estimate_clamped_to_fit_one_tb():
    # MM's 1024-thread TBs need more than the GTX 285's 16K registers with the PTX estimate:
    # the model lowers registers/thread as __launch_bounds__ would, and says so.
    run = registry.run_workload("MM", "small", device=TimingDevice(load_config("gtx285")))
    assert run.mismatches() == []
    st = run.stats[0].timing
    assert st.mechanism["baseline.registers_clamped_from"] > 16384 // 1024
