"""Branch-hazard observer (golden/mechanisms/ilp/branch_hazard.py; ILP §4.4.3): passive,
and it sees every branch of TB0 once."""

from __future__ import annotations

from golden.mechanisms.ilp.branch_hazard import measure
from golden.runs.timing_workload import run_timing_workload
from golden.workloads.tb_work import main_launch, tb_work


def test_branch_hazard_observer_is_passive_and_counts_every_tb0_branch():
    r = measure("NQU", "small", 0, "gtx280_ilp")
    assert r["outputs_match"]
    base = run_timing_workload("NQU", "small", 0, "gtx280_ilp")
    assert r["cycles"] == base["cycles"]          # it changes no timing
    # one instruction in flight per warp: every bra waits and writes back once
    m = main_launch(tb_work("NQU", "small", 0))
    tb0_bras = round(m["tb0_branch_share"] * m["tb0_warp_instructions"])
    assert r["tb0"]["branches"] == tb0_bras
    assert r["all"]["branches"] == round(m["branch_share"] * m["warp_instructions"])
    for scope in ("tb0", "all"):
        c = r[scope]
        assert 0 < c["no_hazard"] <= c["branches"]
        assert c["next_cycle_filled"] <= c["no_hazard"]
        assert 0 < c["filled_cycles"] <= c["window_cycles"]
        # the baseline branch waits for the 8-cycle ALU latency: windows are not empty
        assert c["window_cycles"] >= 8 * c["branches"]
