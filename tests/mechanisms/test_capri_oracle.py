"""CAPRI's §5.1 oracle and per-warp decision classes (golden.mechanisms.capri.oracle)."""

import pytest

from golden.configs import load_config
from golden.errors import ConfigError
from golden.mechanisms.capri.oracle import (SCHEMES, CapriOracle, CapriOracleParams, accuracy,
                                           needed_warps)
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry


def test_oracle_is_passive_and_classes_every_conditional_branch():
    cfg = load_config("quadro_fx5800")
    base = registry.run_workload("BFS", "small", device=TimingDevice(cfg))
    run = registry.run_workload("BFS", "small",
                                device=TimingDevice(cfg, mechanisms=[CapriOracle(cfg)]))
    assert run.mismatches() == []
    assert [s.timing.cycles for s in run.stats] == [s.timing.cycles for s in base.stats]
    m = {}
    for s in run.stats:
        for k, v in s.timing.mechanism.items():
            m[k] = m.get(k, 0) + v
    totals = {sch: sum(v for k, v in m.items() if k.startswith(f"capri.{sch}.")) for sch in SCHEMES}
    assert len(set(totals.values())) == 1 and totals["wpdom"] > 0
    assert m["capri.divergent_instances"] > 0
    assert m["capri.warps_compacted"] < m["capri.warps_wpdom"]   # BFS has compactable branches
    # WPDOM and TBC are complementary
    assert accuracy(m, "wpdom") + accuracy(m, "tbc") == pytest.approx(1.0)
    assert 0 <= accuracy(m, "capri") <= 1
    # the needed rule classes the same decisions; a needed warp is one of an adequate
    # instance, so always bypassing (WPDOM) scores at least as well under it
    needed = {sch: sum(v for k, v in m.items() if k.startswith(f"capri.needed.{sch}."))
              for sch in SCHEMES}
    assert needed == totals
    assert accuracy(m, "needed.wpdom") + accuracy(m, "needed.tbc") == pytest.approx(1.0)
    assert accuracy(m, "needed.wpdom") > accuracy(m, "wpdom")
    assert m.get("capri.needed.wpdom.bypass_stall", 0) > 0   # BFS needs some warps to stall


def test_needed_rule_full_warp_that_did_not_diverge_should_bypass():
    # warp 0 all taken; warps 1 and 2 split in complementary halves: compaction of the taken
    # path needs 2 warps, of the not-taken 1 (3 < 5 warp-paths: adequate)
    taken = [0xFFFFFFFF, 0x0000FFFF, 0xFFFF0000]
    not_taken = [0, 0xFFFF0000, 0x0000FFFF]
    assert needed_warps(taken, not_taken) == [False, True, True]
    # warps absent from the instance (no thread on either path) are not needed
    assert needed_warps(taken + [0], not_taken + [0]) == [False, True, True, False]


def test_needed_rule_no_warp_needed_at_an_inadequate_instance():
    # two warps split the same way: 4 warp-paths with or without compaction
    assert needed_warps([0xFFFF, 0xFFFF], [0xFFFF0000, 0xFFFF0000]) == [False, False]
    # one lane's threads spread over different warps on the same path: each one is needed
    assert needed_warps([0x1, 0x2], [0x2, 0x1]) == [True, True]


def test_bad_parameters():
    with pytest.raises(ConfigError, match="policy"):
        CapriOracleParams(policy="3bit")
    with pytest.raises(ConfigError, match="entries"):
        CapriOracleParams(entries=0)


def test_sweep_evaluates_extra_capts_in_one_run():
    cfg = load_config("quadro_fx5800")
    run = registry.run_workload("BFS", "small", device=TimingDevice(
        cfg, mechanisms=[CapriOracle(cfg, CapriOracleParams(sweep=True))]))
    m = {}
    for s in run.stats:
        for k, v in s.timing.mechanism.items():
            m[k] = m.get(k, 0) + v
    main = accuracy(m, "capri")
    for p, n in (("1bS", 32), ("2bit", 32), ("1bL", 2)):
        a = accuracy(m, f"sweep.{p}_{n}")
        assert a is not None and 0 <= a <= 1
    # 1b-Sticky never predicts bypass for a divergent warp: it stalls at least as often
    stalls = lambda pre: sum(v for k, v in m.items() if k.startswith(pre + ".stall_"))
    assert stalls("capri.sweep.1bS_32") >= stalls("capri.capri")
    assert main is not None
