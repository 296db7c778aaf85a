"""Thread-block sampling inside a launch (golden/timing/tb_sampling.py, golden/runs/tb_sampled_run.py)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from golden.configs import load_config
from golden.errors import SimtlabError
from golden.runs.tb_sampled_run import (
    TBSampledTimingDevice, check_tb_sampleable, flatten, run_tb_sampled_timing_workload,
    unflatten,
)
from golden.runs.timing_workload import run_timing_workload
from golden.timing.hooks import Mechanism
from golden.timing.tb_sampling import (
    END_TERM_DF, TBSamplingPlan, choose_units, end_block_term, make_units, middle_population,
    steady_estimate, sum_estimates, t975,
)
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry

#: saxpy over 1,400 TBs of 256 threads: 7 units of one occupancy wave (224 TBs) on pascal,
#: the first, its warm-up unit (1), the cool-down unit (5), the last and 2 of the 3
#: remaining middle ones detailed
DATA = Path(__file__).parent / "data"
PLAN = TBSamplingPlan(seed=0)


def saxpy_waves():
    from golden.workloads.user_kernel import kernel_workload, load_spec
    return kernel_workload(DATA / "user_kernels.ptx", load_spec(DATA / "saxpy_waves.yaml"))


@pytest.fixture(scope="module")
def workload():
    return saxpy_waves()


@pytest.fixture(scope="module")
def size():
    from golden.workloads.user_kernel import SPEC_SIZE
    return SPEC_SIZE


@pytest.fixture(scope="module")
def full_sx(workload, size):
    return run_timing_workload(workload, size, 0, "pascal")


@pytest.fixture(scope="module")
def sampled_sx(workload, size):
    return run_tb_sampled_timing_workload(workload, size, 0, "pascal", plan=PLAN)


def test_steady_estimate_by_hand():
    # sampled run 100 cycles; two intervals (10 cycles, 5 inst), (30, 10): R = 40/15;
    # 30 skipped instructions add 80 cycles
    e = steady_estimate(100.0, [(10.0, 5.0), (30.0, 10.0)], 30.0, population=4)
    assert math.isclose(e.value, 180.0)
    r = 40 / 15
    s2 = ((10 - r * 5) ** 2 + (30 - r * 10) ** 2) / 1
    var = 30 ** 2 * (1 - 2 / 4) * s2 / (2 * 7.5 ** 2)
    assert math.isclose(e.std_error, math.sqrt(var))
    assert e.df == 1
    assert math.isclose(e.high, 180 + 12.706 * math.sqrt(var))
    assert e.low == max(100.0, 180 - 12.706 * math.sqrt(var))   # never below the sampled run


def test_steady_estimate_exact_and_not_estimable():
    assert steady_estimate(50.0, [], 0, population=3).exact
    one = steady_estimate(50.0, [(10.0, 5.0)], 10.0, population=3)
    assert one.low is None and one.value == 70.0 and "single" in one.note
    assert steady_estimate(50.0, [], 10.0, population=3).low is None


def test_end_block_term_by_hand():
    """The end block's type-B term: variance + E^2/3, Welch-Satterthwaite degrees of
    freedom, the value unchanged, the lower end never below the sampled run."""
    a = steady_estimate(100.0, [(10.0, 5.0), (30.0, 10.0)], 30.0, population=4)
    e = end_block_term(a, excess=-6.0, floor=100.0)
    var = a.std_error ** 2 + 36.0 / 3
    assert e.value == a.value and math.isclose(e.std_error, math.sqrt(var))
    df = var ** 2 / ((36.0 / 3) ** 2 / END_TERM_DF + a.std_error ** 4 / a.df)
    assert math.isclose(e.df, df)
    assert e.std_error > a.std_error and e.low >= 100.0 and "type-B" in e.note
    assert math.isclose(e.high - e.value, t975(df) * math.sqrt(var))
    # a collapsed steady-state interval (zero variance) widens to the term alone
    flat = steady_estimate(100.0, [(10.0, 5.0), (20.0, 10.0)], 30.0, population=4)
    assert flat.low == flat.high == 160.0
    w = end_block_term(flat, excess=3.0, floor=100.0)
    assert math.isclose(w.std_error, math.sqrt(3.0)) and math.isclose(w.df, END_TERM_DF)
    assert math.isclose(w.high - 160.0, 2.306 * math.sqrt(3.0), rel_tol=1e-3)
    # exact, not estimable or no excess: unchanged
    ex = steady_estimate(50.0, [], 0, population=3)
    one = steady_estimate(50.0, [(10.0, 5.0)], 10.0, population=3)
    assert end_block_term(ex, 5.0, 50.0) is ex and end_block_term(one, 5.0, 50.0) is one
    assert end_block_term(a, 0.0, 100.0) is a


def test_sum_of_estimates_adds_values_and_variances():
    a = steady_estimate(100.0, [(10.0, 5.0), (30.0, 10.0)], 30.0, population=4)
    b = steady_estimate(10.0, [], 0, population=1)
    s = sum_estimates([a, b], nonnegative_floor=110.0)
    assert math.isclose(s.value, a.value + 10.0)
    assert math.isclose(s.std_error, a.std_error) and math.isclose(s.df, 1.0)
    assert sum_estimates([b, b]).exact
    c = steady_estimate(50.0, [(10.0, 5.0)], 10.0, population=3)
    assert sum_estimates([a, c]).low is None


def test_units_and_systematic_sample():
    assert make_units(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert choose_units(4, TBSamplingPlan()) == [0, 1, 2, 3]           # too few: whole
    a = choose_units(42, TBSamplingPlan(seed=3, cooldown_units=0), salt=1)
    assert a == choose_units(42, TBSamplingPlan(seed=3, cooldown_units=0), salt=1)  # seeded
    assert a[:2] == [0, 1] and a[-1] == 41 and len(a) == 3 + 4          # ceil(0.1 * 39)
    assert a == sorted(set(a))
    gaps = [y - x for x, y in zip(a[2:-1], a[3:-1])]
    assert all(g in (9, 10) for g in gaps) and sum(gaps) in (29, 30)  # systematic, 39/4
    assert any(choose_units(42, TBSamplingPlan(seed=s)) != choose_units(42, TBSamplingPlan())
               for s in range(1, 6))                                   # the seed matters


def test_warmup_units_always_detailed_and_kept_out_of_the_sample():
    """The units after the ramp unit (``warmup_units``) are always detailed; the systematic
    sample is drawn from the units after them only; ``warmup_units=0`` is the old sample."""
    for seed in range(6):
        old = choose_units(42, TBSamplingPlan(seed=seed, warmup_units=0, cooldown_units=0),
                           salt=2)
        assert old[0] == 0 and old[-1] == 41 and len(old) == 2 + 4     # ceil(0.1 * 40)
        two = choose_units(42, TBSamplingPlan(seed=seed, warmup_units=2, cooldown_units=0),
                           salt=2)
        assert two[:3] == [0, 1, 2] and two[-1] == 41
        assert all(3 <= u <= 40 for u in two[3:-1]) and len(two) == 3 + 1 + 4
    # the whole-launch threshold grows with the warm-up: 5 units, 3 warm-up units
    assert choose_units(5, TBSamplingPlan(warmup_units=3, cooldown_units=0)) == [0, 1, 2, 3, 4]
    assert choose_units(6, TBSamplingPlan(warmup_units=3, cooldown_units=0,
                                          min_middle=1))[:4] == [0, 1, 2, 3]


def test_cooldown_units_always_detailed_and_kept_out_of_the_sample():
    """The units before the last (``cooldown_units``, default 1) are always detailed: their
    TBs are the ones still running when the last TBs are dispatched, so they set the
    drain. The systematic sample is drawn from the units between the warm-up and them;
    ``cooldown_units=0`` is the sample before they existed."""
    assert TBSamplingPlan().cooldown_units == 1
    for seed in range(6):
        a = choose_units(42, TBSamplingPlan(seed=seed), salt=2)
        assert a[:2] == [0, 1] and a[-2:] == [40, 41]
        assert all(2 <= u <= 39 for u in a[2:-2]) and len(a) == 4 + 4  # ceil(0.1 * 38)
        three = choose_units(42, TBSamplingPlan(seed=seed, cooldown_units=3), salt=2)
        assert three[-4:] == [38, 39, 40, 41] and all(2 <= u <= 37 for u in three[2:-4])
    assert middle_population(42, TBSamplingPlan()) == 38
    assert middle_population(42, TBSamplingPlan(cooldown_units=0)) == 39
    # the whole-launch threshold counts the cool-down: 5 units with 1 warm-up, 1 cool-down
    # units leave 1 middle unit; 4 units are simulated whole
    assert choose_units(4, TBSamplingPlan(min_units=3)) == [0, 1, 2, 3]
    assert choose_units(5, TBSamplingPlan(min_units=3)) == [0, 1, 2, 3, 4]
    with pytest.raises(SimtlabError):
        TBSamplingPlan(cooldown_units=-1)


def test_plan_rejects_bad_values():
    for kw in ({"fraction": 0}, {"min_middle": 0}, {"min_units": 2}, {"unit_waves": 0},
               {"seed": -1}, {"warmup_units": -1}, {"warmup_units": True}):
        with pytest.raises(SimtlabError):
            TBSamplingPlan(**kw)


def test_flatten_round_trip(full_sx):
    d = full_sx["timing"]
    back = unflatten(flatten(d), d)
    assert back == {k: v for k, v in d.items() if k != "derived"}


def test_tb_sampled_outputs_bit_identical_to_full(workload, size):
    cfg = load_config("pascal")
    full = registry.run_workload(workload, size, 0, device=TimingDevice(cfg, echo_printf=False))
    dev = TBSampledTimingDevice(cfg, PLAN, echo_printf=False)
    samp = registry.run_workload(workload, size, 0, device=dev)
    assert set(full.outputs) == set(samp.outputs)
    for k in full.outputs:
        assert full.outputs[k].tobytes() == samp.outputs[k].tobytes(), k
    kr = dev.gpu.runs[0]
    assert kr.detailed_units[0] == 0 and kr.detailed_units[-1] == 6
    assert kr.skipped_tbs == 224 * (7 - len(kr.detailed_units)) > 0
    # every instruction still ran: the functional counts equal the full run's
    assert samp.stats[0].functional.warp_instructions == full.stats[0].functional.warp_instructions
    assert samp.stats[0].timing.instructions_executed < full.stats[0].timing.instructions_executed


def test_tb_sampled_record_and_interval(full_sx, sampled_sx):
    assert set(sampled_sx) == set(full_sx) | {"sampling"}
    assert set(sampled_sx["timing"]) == set(full_sx["timing"])
    s = sampled_sx["sampling"]
    assert s["unit"] == "thread-block" and s["launches_sampled"] == 1
    assert 0 < s["detailed_warp_instruction_fraction"] < 0.9           # 6 of 7 waves
    iv = s["intervals"]["cycles"]
    assert iv["estimable"] and not iv["exact"]
    err = abs(iv["estimate"] - full_sx["cycles"])
    assert err <= 2 * iv["half_width"], (iv, full_sx["cycles"])
    assert abs(iv["estimate"] - full_sx["cycles"]) / full_sx["cycles"] < 0.2
    # the warp instructions are extrapolated with themselves as auxiliary: close to exact
    ie = s["intervals"]["instructions_executed"]["estimate"]
    assert abs(ie - full_sx["timing"]["instructions_executed"]) < 0.01 * ie
    assert sampled_sx["outputs_match"]


def test_warmup_and_cooldown_units_counted_exactly_not_as_intervals(sampled_sx):
    """Unit 1 (the warm-up) and unit 5 (the cool-down) are detailed but give no
    steady-state interval: the intervals run from each sampled middle unit to the next
    detailed boundary, the last one ending where the cool-down unit starts; the
    population is the middle units between them (7 - 4 = 3)."""
    info = sampled_sx["per_launch"][0]["tb_sampling"]
    det = info["detailed_units"]
    assert det[:2] == [0, 1] and det[-2:] == [5, 6] and info["warmup_units"] == [1]
    assert info["cooldown_units"] == [5]
    assert info["steady_intervals"] == len(det) - 4 == 2
    end = info["end_block"]
    assert end["first_unit"] == 5 and end["cycles"] > 0 and end["warp_instructions"] > 0
    assert "type-B" in info["cycles"]["note"]
    # every extrapolated quantity has its own excess; the warp instructions' is zero (they
    # are the ratio's auxiliary), the cycles' is the one recorded on its own
    assert {"cycles", "instructions_executed", "dram_bytes",
            "energy_total_j"} <= set(end["excess"])
    assert end["excess"]["cycles"] == end["excess_cycles"]
    assert abs(end["excess"]["instructions_executed"]) < 1e-6 * end["warp_instructions"]
    from golden.runs.tb_sampled_run import format_tb_sampling
    text = format_tb_sampling(sampled_sx)
    assert f"end block excess        : {abs(end['excess_cycles']):,.0f} cycles in 1 " in text
    plan = sampled_sx["sampling"]["plan"]
    assert plan["warmup_units"] == 1 and plan["cooldown_units"] == 1


def test_same_seed_same_tb_estimate(sampled_sx, workload, size):
    again = run_tb_sampled_timing_workload(workload, size, 0, "pascal", plan=PLAN)
    assert again["cycles"] == sampled_sx["cycles"]
    assert again["timing"] == sampled_sx["timing"]
    assert again["sampling"]["intervals"] == sampled_sx["sampling"]["intervals"]


def test_launch_with_few_units_is_simulated_whole():
    """HS small: 2 launches of 36 TBs, less than one occupancy wave: simulated whole, and
    the record equals a full run's (default behaviour of the dispatcher unchanged)."""
    full = run_timing_workload("HS", "small", 0, "pascal")
    d = run_tb_sampled_timing_workload("HS", "small", 0, "pascal", plan=TBSamplingPlan())
    assert d["sampling"]["intervals"]["cycles"]["exact"]
    assert d["sampling"]["launches_sampled"] == 0
    assert d["cycles"] == full["cycles"]
    assert d["timing"] == full["timing"]
    assert d["energy"] == full["energy"]


def test_whole_launch_mechanisms_are_refused():
    for name in ("gscalar", "darsie", "warpman-temp", "capri", "coarse2"):
        with pytest.raises(SimtlabError, match=r"thread-block sampling refused: .*whole-launch"
                                               r".*--sample launch"):
            run_tb_sampled_timing_workload("HS", "small", 0, "pascal", mechanisms=(name,))

    class PerTB(Mechanism):
        name = "per-tb"
        sampling = "whole-tbs"
        sampling_reason = "state within a TB"

    class Undeclared(Mechanism):
        name = "undeclared"

    assert check_tb_sampleable([PerTB()]) == {"per-tb": "whole-tbs"}
    with pytest.raises(SimtlabError, match="not-sampleable"):
        check_tb_sampleable([Undeclared()])


def test_cli_sample_tb(tmp_path, capsys):
    import json

    from golden.cli import main
    rc = main(["run", "MM", "--mode", "timing", "--sample", "tb", "--json",
               str(tmp_path / "s.json")])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "SAMPLED (thread blocks)" in out
    d = json.loads((tmp_path / "s.json").read_text())
    assert d["sampling"]["unit"] == "thread-block"
    assert main(["run", "MM", "--mode", "timing", "--sample", "tb", "--mechanism",
                 "gscalar"]) == 2
    assert "thread-block sampling refused" in capsys.readouterr().err


def test_cli_sample_warming_switch(tmp_path, capsys):
    """``--sample-warming off`` reaches the plan (no warming counts in the record);
    given without ``--sample tb`` it is a one-line error."""
    import json

    from golden.cli import main
    j = tmp_path / "s.json"
    assert main(["run", "HS", "--size", "small", "--mode", "timing", "--sample", "tb",
                 "--sample-warming", "off", "--json", str(j)]) == 0
    d = json.loads(j.read_text())
    assert d["sampling"]["plan"]["warming"] is False
    capsys.readouterr()
    for extra in ([], ["--sample"], ["--sample", "launch"]):
        rc = main(["run", "HS", "--size", "small", "--mode", "timing", *extra,
                   "--sample-warming", "on"])
        err = capsys.readouterr().err
        assert rc == 2 and "--sample-warming needs --sample tb" in err, err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_validate_row_at_tb_level():
    """``simtlab validate --sampling --sample-level tb``: one row of HS small (less than one
    occupancy wave per launch, so nothing is skipped and the row is exact)."""
    from golden.validate.sampling_table import one_pair
    r = one_pair("HS", "small", 0, "pascal", (), 0, level="tb")
    assert r["level"] == "tb" and r["exact"] and r["error_pct"] == 0
    assert r["units_detailed"] == r["units_total"] == 2
    assert r["detailed_inst_fraction"] == 1.0 and r["outputs_match"]
