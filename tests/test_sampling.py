"""Sampled timing simulation across launches (golden/timing/sampling.py, golden/runs/sampled_run.py)."""

from __future__ import annotations

import math

import pytest

from golden.configs import load_config
from golden.errors import SimtlabError
from golden.runs.sampled_run import (
    SampledTimingDevice, check_sampleable, run_sampled_timing_workload,
)
from golden.runs.timing_workload import run_timing_workload
from golden.timing.hooks import SAMPLING_UNITS, Mechanism
from golden.timing.sampling import (
    SamplingPlan, choose_detailed, group_launches, launch_weights, ratio_estimate, t975,
)
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry

#: FWS small: 8 launches of one kernel; 7 fall in one group, so 5 are fast-forwarded
WORKLOAD = "FWS"


@pytest.fixture(scope="module")
def full_fws():
    return run_timing_workload(WORKLOAD, "small", 0, "pascal")


@pytest.fixture(scope="module")
def sampled_fws():
    return run_sampled_timing_workload(WORKLOAD, "small", 0, "pascal",
                                       plan=SamplingPlan(seed=0))


def test_ratio_estimator_by_hand():
    # one group of 4 launches, 2 detailed: R = (10+30)/(1+2) = 40/3, X = 1+2+3+4 = 10
    groups, detailed, x = [[0, 1, 2, 3]], [[0, 1]], [1, 2, 3, 4]
    y = {0: 10.0, 1: 30.0}
    e = ratio_estimate(groups, detailed, x, y)
    assert e.value == pytest.approx(400 / 3)
    r = 40 / 3
    s2 = ((10 - r) ** 2 + (30 - 2 * r) ** 2) / 1
    var = 16 * (1 - 2 / 4) / 2 * ((10 / 4) / (3 / 2)) ** 2 * s2
    assert e.std_error == pytest.approx(math.sqrt(var))
    assert e.df == pytest.approx(1)
    assert e.high - e.value == pytest.approx(12.706 * math.sqrt(var))
    # cycles cannot be negative: the total is at least the detailed launches' 40
    assert e.value - 12.706 * math.sqrt(var) < 40 and e.low == 40
    free = ratio_estimate(groups, detailed, x, y, nonnegative=False)
    assert free.low == pytest.approx(e.value - 12.706 * math.sqrt(var))
    assert launch_weights(groups, detailed, x) == {0: 10 / 3, 1: 10 / 3}


def test_ratio_estimator_exact_and_not_estimable():
    exact = ratio_estimate([[0, 1]], [[0, 1]], [5, 6], {0: 1.0, 1: 2.0})
    assert exact.exact and exact.value == 3.0 and exact.low == exact.high == 3.0
    lone = ratio_estimate([[0, 1, 2]], [[1]], [5, 6, 7], {1: 12.0})
    assert lone.value == pytest.approx(36.0)
    assert lone.low is None and lone.high is None and not lone.to_dict()["estimable"]
    assert "not estimable" in lone.note


def test_t975_table_and_expansion():
    assert t975(1) == 12.706 and t975(30) == 2.042
    assert t975(1000) == pytest.approx(1.9623, abs=1e-3)
    assert 2.042 > t975(31) > 1.96


def test_plan_rejects_bad_values():
    with pytest.raises(SimtlabError, match="fraction"):
        SamplingPlan(fraction=0)
    with pytest.raises(SimtlabError, match="seed"):
        SamplingPlan(seed=-1)


def test_choose_detailed_is_seeded_and_bounded():
    groups = [list(range(20)), [20], [21, 22]]
    plan = SamplingPlan(seed=5, fraction=0.1, min_per_group=2)
    a, b = choose_detailed(groups, plan), choose_detailed(groups, plan)
    assert a == b
    assert [len(s) for s in a] == [2, 1, 2]
    assert choose_detailed(groups, SamplingPlan(seed=6)) != a   # the seed matters


def test_sampled_outputs_bit_identical_to_full():
    cfg = load_config("pascal")
    full = registry.run_workload(WORKLOAD, "small", 0, device=TimingDevice(cfg, echo_printf=False))
    samp = registry.run_workload(WORKLOAD, "small", 0,
                                 device=SampledTimingDevice(cfg, detailed={0, 3},
                                                            echo_printf=False))
    assert set(full.outputs) == set(samp.outputs)
    for k in full.outputs:
        assert full.outputs[k].dtype == samp.outputs[k].dtype
        assert full.outputs[k].tobytes() == samp.outputs[k].tobytes(), k
    # only launches 0 and 3 ran on the timing model
    assert [hasattr(s, "timing") for s in samp.stats] == [i in (0, 3) for i in range(8)]


def test_sampled_record_has_full_keys_plus_sampling(full_fws, sampled_fws):
    assert set(sampled_fws) == set(full_fws) | {"sampling"}
    assert set(sampled_fws["timing"]) == set(full_fws["timing"])
    assert set(sampled_fws["energy"]) == set(full_fws["energy"])
    s = sampled_fws["sampling"]
    for k in ("method", "units_detailed", "units_total", "detailed_warp_instruction_fraction",
              "intervals", "plan", "limits"):
        assert k in s
    assert s["units_total"] == 8 and s["units_detailed"] < 8
    assert 0 < s["detailed_warp_instruction_fraction"] < 1
    for k in ("cycles", "instructions_executed", "l2_misses", "energy_total_j"):
        assert k in s["intervals"]
    assert sampled_fws["outputs_match"]
    assert sum(d["detailed"] for d in sampled_fws["per_launch"]) == s["units_detailed"]


def test_sampled_estimate_error_within_its_interval(full_fws, sampled_fws):
    """The estimate's error against the full run is bounded by the stated interval (its
    half-width is t(0.975) standard errors; 2 half-widths would be a > 4-sigma miss)."""
    iv = sampled_fws["sampling"]["intervals"]["cycles"]
    assert iv["estimable"] and not iv["exact"]
    err = abs(iv["estimate"] - full_fws["cycles"])
    assert err <= 2 * iv["half_width"], (iv, full_fws["cycles"])
    assert iv["half_width_pct"] < 50
    # instructions: the auxiliary variable, so its estimate is exact
    assert sampled_fws["timing"]["instructions_executed"] == \
        full_fws["timing"]["instructions_executed"]


def test_same_seed_same_estimate(sampled_fws):
    again = run_sampled_timing_workload(WORKLOAD, "small", 0, "pascal", plan=SamplingPlan(seed=0))
    assert again["cycles"] == sampled_fws["cycles"]
    assert again["sampling"]["detailed_launches"] == sampled_fws["sampling"]["detailed_launches"]
    assert again["timing"] == sampled_fws["timing"]


def test_not_sampleable_mechanism_is_refused():
    with pytest.raises(SimtlabError, match="sampling refused: mechanism lifetimes .*not-sampleable"):
        run_sampled_timing_workload(WORKLOAD, "small", 0, "pascal",
                                    mechanisms=("warp-lifetimes",))

    class Undeclared(Mechanism):
        name = "undeclared"

    with pytest.raises(SimtlabError, match="undeclared.*does not declare"):
        check_sampleable([Undeclared()])


def test_registered_mechanisms_declare_known_units():
    from golden.mechanisms.registry import MECHANISMS, make_mechanisms
    cfg = load_config("pascal")
    for name in ("gscalar", "warpman-temp", "capri", "tbc", "coarse2", "ilp-bp-gshare",
                 "ilp-sc", "uv-token"):
        for m in make_mechanisms((name,), cfg):
            assert type(m).sampling in SAMPLING_UNITS[:-1], name
            assert type(m).sampling_reason, name
    assert "warp-lifetimes" in MECHANISMS


def test_grouping_puts_identical_launches_together():
    cfg = load_config("pascal")
    dev = SampledTimingDevice(cfg, echo_printf=False)
    registry.run_workload(WORKLOAD, "small", 0, device=dev)
    groups = group_launches(dev.signatures, SamplingPlan())
    assert sorted(i for g in groups for i in g) == list(range(8))
    assert max(len(g) for g in groups) >= 6


def test_cli_sample_needs_timing_mode(capsys):
    from golden.cli import main
    assert main(["run", WORKLOAD, "--sample"]) == 2
    assert "--sample needs --mode timing" in capsys.readouterr().err


def test_validation_summary_counts_coverage_and_reduction():
    from golden.validate.sampling_table import percentile, summary
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([], 95) is None
    row = dict(exact=False, estimable=True, inside=True, error_pct=1.0,
               total_warp_instructions=100, detailed_warp_instructions=25,
               cpu_full=4.0, cpu_sampled=1.0)
    rows = [row, {**row, "error_pct": -3.0, "inside": False},
            {**row, "exact": True, "error_pct": 0.0, "detailed_warp_instructions": 100}]
    s = summary(rows)
    assert s["rows_sampled"] == 2 and s["rows_exact"] == 1
    assert s["median_abs_error_pct"] == 2.0
    assert s["coverage"] == 0.5
    assert s["detailed_inst_reduction"] == pytest.approx(300 / 150)
    assert s["detailed_inst_reduction_sampled_rows"] == pytest.approx(4.0)


def test_sub_wave_launches_group_only_with_their_grid():
    from golden.simt.stats import LaunchStats
    from golden.timing.sampling import LaunchSignature

    def sig(i, grid_x, n):
        st = LaunchStats(kernel="k", grid=(grid_x, 1, 1), block=(32, 1, 1), warp_instructions=n,
                         thread_instructions=32 * n)
        st.by_opcode["add"] = n
        return LaunchSignature.from_stats(i, st)

    sigs = [sig(0, 2, 100), sig(1, 3, 150), sig(2, 40, 2000), sig(3, 50, 2500)]
    plan = SamplingPlan()
    # 2 and 3 TBs are below one TB per SM of a 28-SM GPU: not grouped across grids
    assert group_launches(sigs, plan, num_sms=28) == [[0], [1], [2, 3]]
    assert group_launches(sigs, plan, num_sms=1) == [[0, 1], [2, 3]]
    assert group_launches(sigs, SamplingPlan(match_grid=True), num_sms=1) == [[0], [1], [2], [3]]


def test_cli_sample_runs_a_user_kernel_whole(tmp_path, capsys):
    """``simtlab run FILE.ptx --args SPEC --mode timing --sample``: one launch, so it is
    simulated whole and every interval is exact."""
    import json
    from pathlib import Path

    from golden.cli import main
    data = Path(__file__).parent / "data"
    rc = main(["run", str(data / "user_kernels.ptx"), "--args", str(data / "saxpy.yaml"),
               "--mode", "timing", "--sample", "--sample-seed", "4",
               "--json", str(tmp_path / "s.json")])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "SAMPLED: 1 of 1 launches in detail" in out
    d = json.loads((tmp_path / "s.json").read_text())
    assert d["outputs_match"] and d["sampling"]["plan"]["seed"] == 4
    assert d["sampling"]["intervals"]["cycles"]["exact"]
    assert d["cycles"] == d["per_launch"][0]["timing"]["cycles"]
