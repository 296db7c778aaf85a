"""Per-warp dependence tracking chosen by ``pipelines.dependence_tracking``
(golden/timing/scoreboard.py): register reservation and the ILP chapter's one instruction
in flight per warp (seed 002 §4.4 baseline, config gtx280_ilp)."""

from dataclasses import replace
from types import SimpleNamespace

import pytest

from golden.configs import load_config
from golden.report.runner import TimingJob, run_job
from golden.timing import scoreboard as sbm
from golden.timing.scoreboard import OneInFlight, Scoreboard


def _inst(*regs):
    return SimpleNamespace(hazard=regs)


def test_one_in_flight_ignores_registers_and_classifies_the_wait():
    t = OneInFlight()
    assert t.tracks_all and not Scoreboard.tracks_all
    assert t.blocked(_inst(1, 2)) == 0 and t.empty()
    assert t.reserve((), True) is None   # a store: no destination, still in flight
    assert t.blocked(_inst()) == 2 and t.blocked(_inst(7)) == 2
    t.release(())
    t.reserve((3,), False)
    assert t.blocked(_inst(9)) == 1      # an unrelated register still waits
    t.release((3,))
    assert t.empty() and t.blocked(_inst(3)) == 0


def test_register_reservation_counts_each_write():
    t = Scoreboard()
    t.reserve((1,), True)
    t.reserve((1, 2), False)
    assert t.blocked(_inst(1)) == 2 and t.blocked(_inst(2)) == 1 and t.blocked(_inst(5)) == 0
    t.release((1,))
    assert t.blocked(_inst(1)) != 0      # the second write of r1 is still pending
    t.release((1, 2))
    assert t.empty()


class _Checked(OneInFlight):
    """OneInFlight that fails if a warp ever has two instructions in flight."""

    __slots__ = ()

    def reserve(self, regs, is_mem, mask=sbm.FULL_MASK):
        assert not self.kinds, "a second instruction issued while one was in flight"
        return super().reserve(regs, is_mem, mask)


@pytest.mark.parametrize("workload", ["NQU", "BS", "MM", "BFS"])
def test_gtx280_keeps_one_instruction_in_flight_and_outputs_exact(workload, monkeypatch,
                                                                  shrink_small):
    monkeypatch.setitem(sbm.TRACKERS, "one_in_flight", _Checked)
    if workload in ("NQU", "BFS"):        # their small inputs take 10-25 s here
        shrink_small(workload, **({"n": 9} if workload == "NQU" else {"n_nodes": 1024}))
    r = run_job(TimingJob(workload, "gtx280"))
    assert r["outputs_match"]
    # the same run with register reservation: same outputs, and not slower beyond
    # scheduling noise (a different interleaving can cost a few cycles: MM +0.03%)
    fast = run_job(TimingJob(workload, "gtx280",
                             overrides=(("pipelines.dependence_tracking", "scoreboard"),)))
    assert fast["output_digest"] == r["output_digest"]
    assert fast["cycles"] <= 1.01 * r["cycles"]


def test_independent_instructions_of_one_warp_serialise():
    """One warp of independent fma chains: each instruction waits for the previous one's
    WB under one_in_flight, so the warp runs several times slower than with register
    reservation, and the stalls are dependence/memory stalls."""
    from golden.validate import microbench as mb
    import numpy as np
    cfg = mb._with(load_config("gtx280"), perfect_icache=True)  # I-cache misses aside
    a = np.random.default_rng(mb.SEED).random(32).astype(np.float32)

    def run(c):
        _, st = mb.run_kernel(c, "alu_independent", 1, 32,
                              lambda dev: (dev.to_device(a), dev.zeros(32, np.float32)))
        return st.timing
    one = run(cfg)
    reg = run(replace(cfg, pipelines=replace(cfg.pipelines, dependence_tracking="scoreboard")))
    assert one.instructions_executed == reg.instructions_executed
    # 8 independent chains: register reservation overlaps them, one_in_flight pays the
    # whole issue-to-WB distance for every instruction
    per_inst = one.cycles / one.instructions_executed
    assert per_inst >= mb.dependent_issue_distance(cfg, cfg.pipelines.alu, 8) - 0.5
    assert one.cycles > 4 * reg.cycles


@pytest.mark.parametrize("tracking", ["one_in_flight", "scoreboard"])
def test_bypass_makes_the_dependent_chain_cost_the_alu_latency(tracking):
    """ILP §4.4.1: with EX8 -> EX1 forwarding a dependent fma issues `latency` cycles after
    its producer (8 on gtx280_ilp), instead of read + dispatch + latency + WB stages."""
    from golden.validate import microbench as mb
    base = load_config("gtx280", {"pipelines.dependence_tracking": tracking})
    bp = load_config("gtx280", {"pipelines.dependence_tracking": tracking,
                                "pipelines.bypass": True})
    m0, m1 = mb.dependent_alu_latency(base), mb.dependent_alu_latency(bp)
    assert m1.measured == pytest.approx(m1.expected, abs=0.1)
    assert m1.expected == pytest.approx(8, abs=0.2)   # + RF bank-conflict waits
    assert m0.measured == pytest.approx(m0.expected, abs=0.1) and m0.expected > 8


def test_bypass_leaves_outputs_and_memory_waits_alone():
    base = run_job(TimingJob("BS", "gtx280"))
    bp = run_job(TimingJob("BS", "gtx280", overrides=(("pipelines.bypass", True),)))
    assert bp["output_digest"] == base["output_digest"] and bp["outputs_match"]
    assert bp["cycles"] < base["cycles"]
