"""Uniform-vector elimination in the timing model (golden/mechanisms/uv, seed 002 ch. 2)."""

import pytest

from golden.configs import load_config
from golden.errors import ConfigError
from golden.mechanisms.registry import make_mechanisms
from golden.mechanisms.uv.mechanism import UVMechanism, UVParams
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry


@pytest.fixture(scope="module")
def gtx285():
    return load_config("gtx285")


def _run(cfg, wl, **kw):
    mechs = [UVMechanism(cfg, UVParams(check=True, **kw))] if kw is not None else []
    run = registry.run_workload(wl, "small", device=TimingDevice(cfg, mechanisms=mechs))
    assert run.mismatches() == []
    t = run.stats[0].timing
    return sum(s.cycles for s in run.stats), {k[3:]: v for k, v in t.mechanism.items()
                                              if k.startswith("uv.")}, t


@pytest.fixture(scope="module")
def base_mm(gtx285):
    run = registry.run_workload("MM", "small", device=TimingDevice(gtx285))
    return sum(s.cycles for s in run.stats), run.stats[0].timing


@pytest.mark.parametrize("wl", ["MM", "MT", "HT", "BFS"])
@pytest.mark.parametrize("design", ["token", "srf"])
def test_outputs_identical_and_uniform_marks_are_true(gtx285, wl, design, shrink_small):
    """check=True verifies every token / SRF mapping against the lanes' real values and
    every IRB hit against the computed result; outputs match the numpy reference."""
    shrink_small.tiny(wl)
    cycles, c, _ = _run(gtx285, wl, design=design, mode="combined", reliability=True)
    assert cycles > 0
    assert c.get("irb_wrong", 0) == 0


def test_token_intra_scalarises_and_speeds_up_mm(gtx285, base_mm):
    cycles, c, t = _run(gtx285, "MM", design="token", mode="intra")
    assert c["uniform"] == c["scalar"] > 0
    assert "irb_lookups" not in c
    assert cycles < base_mm[0]
    # one lane instead of 32 for every scalarised instruction
    assert c["thread_ops_saved"] == 31 * c["scalar"]
    assert t.instructions_issued == base_mm[1].instructions_issued
    assert c["vrf_lane_writes"] == c["scalar"]  # one VRx.N write per uniform result
    assert sum(t.rf_reads) < sum(base_mm[1].rf_reads)


def test_inter_only_runs_misses_as_vectors(gtx285):
    _, c, _ = _run(gtx285, "MM", design="token", mode="inter")
    assert c["irb_hits"] > 0 and c["irb_misses"] > 0
    assert c["scalar"] == c["irb_hits"]  # only reuses are scalar
    assert c["irb_lookups"] == c["irb_hits"] + c["irb_misses"] + c.get("irb_mismatches", 0)


def test_srf_size_limits_the_srf_design(gtx285, shrink_small):
    shrink_small.tiny("MM")
    # parameter registers in the SRF (the PTX ablation), so that 16 entries overflow
    _, small, _ = _run(gtx285, "MM", design="srf", mode="intra", srf_entries=16,
                       param_constants=False)
    _, big, _ = _run(gtx285, "MM", design="srf", mode="intra", srf_entries=4096,
                     param_constants=False)
    _, tok, _ = _run(gtx285, "MM", design="token", mode="intra")
    assert small["srf_full"] > 0 and big.get("srf_full", 0) == 0
    assert small["scalar"] < big["scalar"]
    # an unlimited SRF finds what the token design finds
    assert big["uniform"] == tok["uniform"]


def test_free_at_death_keeps_more_srf_entries(gtx285):
    _, dead, _ = _run(gtx285, "MT", design="srf", mode="intra", srf_entries=32,
                      param_constants=False)
    _, redef, _ = _run(gtx285, "MT", design="srf", mode="intra", srf_entries=32,
                       free_dead=False, param_constants=False)
    assert dead["scalar"] >= redef["scalar"]
    assert dead.get("srf_full", 0) < redef.get("srf_full", 0)


def test_reliability_computes_twice_and_stores_two_copies(gtx285):
    _, c, _ = _run(gtx285, "VA", design="token", mode="intra", reliability=True)
    assert c["alu_ops_covered"] > 0
    assert c["vrf_lane_writes"] == 2 * c["scalar"]
    assert 0 < c["live_regs_covered"] < c["live_regs"]


def test_copy_on_write_under_divergence(gtx285):
    """HT's edge checks diverge inside loops that write registers first made uniform."""
    _, c, _ = _run(gtx285, "HT", design="token", mode="combined")
    assert c["cow"] > 0 and c["cow_vrf_writes"] == c["cow"]


def test_registry_names_and_arguments(gtx285):
    ms = [make_mechanisms([n], gtx285)[0]
          for n in ("uv-token", "uv-srf-inter:srf_entries=64,reliability=true",
                    "uv-token-intra:irb_entries=4")]
    assert [(m.p.design, m.p.mode) for m in ms] == [("token", "combined"), ("srf", "inter"),
                                                     ("token", "intra")]
    assert ms[1].p.srf_entries == 64 and ms[1].p.reliability
    with pytest.raises(ConfigError):
        make_mechanisms(["uv-token:design=vector"], gtx285)
    with pytest.raises(ConfigError):
        UVParams(irb_entries=0)


def test_deterministic(gtx285, shrink_small):
    shrink_small.tiny("BFS")
    a = _run(gtx285, "BFS", design="srf", mode="combined")
    b = _run(gtx285, "BFS", design="srf", mode="combined")
    assert a[0] == b[0] and a[1] == b[1]


def test_limit_study_counting_rules():
    from golden.mechanisms.uv.limit_study import UniformRedundancy, study_workload
    c = UniformRedundancy(scalar_instructions=3200, intra_instances=10, inter_instances=4)
    assert c.intra == 31 * 10 / 3200 and c.inter == 32 * 4 / 3200
    assert c.combined == (31 * 10 + 4) / 3200
    d = study_workload("VA")
    assert d["outputs_match"]
    assert 0 < d["inter_tb_instances"] <= d["inter_instances"] <= d["intra_instances"]
    assert d["intra"] <= d["combined"] < 1


def test_param_constants_frees_the_srf_of_parameter_registers(gtx285, shrink_small):
    """uv-srf:param_constants=true: parameter-derived registers hold no SRF entry (the census
    sees none), so fewer uniform instructions find the SRF full; every mapping is still
    checked against the lanes' values and the outputs match."""
    from golden.mechanisms.uv.census import UVCensus
    shrink_small.tiny("MM")
    runs = {}
    for pc in (False, True):
        census = UVCensus()
        mech = UVMechanism(gtx285, UVParams(design="srf", mode="combined", srf_entries=32,
                                            check=True, param_constants=pc), census=census)
        run = registry.run_workload("MM", "small", device=TimingDevice(gtx285, mechanisms=[mech]))
        assert run.mismatches() == []
        t = run.stats[0].timing.mechanism
        runs[pc] = (t.get("uv.srf_full", 0), t["uv.uniform"], census.summary()["srf"])
    (full_ptx, uni_ptx, srf_ptx), (full_c, uni_c, srf_c) = runs[False], runs[True]
    assert srf_ptx["peak"]["param"] > 0 and srf_c["peak"]["param"] == 0
    assert full_c < full_ptx
    assert uni_c >= uni_ptx


def test_census_does_not_change_the_run(gtx285, shrink_small):
    from golden.mechanisms.uv.census import UVCensus
    shrink_small.tiny("BFS")
    plain = _run(gtx285, "BFS", design="srf", mode="combined")
    census = UVCensus()
    mech = UVMechanism(gtx285, UVParams(design="srf", check=True), census=census)
    run = registry.run_workload("BFS", "small", device=TimingDevice(gtx285, mechanisms=[mech]))
    t = run.stats[0].timing
    assert sum(s.cycles for s in run.stats) == plain[0]
    assert {k[3:]: v for k, v in t.mechanism.items() if k.startswith("uv.")} == plain[1]
    s = census.summary()   # every lookup of every launch, counted once
    lookups = sum(x.timing.mechanism.get("uv.irb_lookups", 0) for x in run.stats)
    assert s["irb"]["tuple_new"] + sum(s["irb"]["tuple_distance"].values()) == lookups > 0


def test_param_constants_is_the_srf_default_and_an_srf_argument(gtx285):
    m = make_mechanisms(["uv-srf"], gtx285)[0]
    assert m.p.param_constants and m.p.design == "srf"
    assert not make_mechanisms(["uv-srf:param_constants=false"], gtx285)[0].p.param_constants
    assert not make_mechanisms(["uv-token"], gtx285)[0].p.param_constants
    with pytest.raises(ConfigError, match="SRF design"):
        make_mechanisms(["uv-token:param_constants=true"], gtx285)
