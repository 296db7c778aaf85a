"""CAPRI's §5.1 oracle and per-warp decision classes (golden.mechanisms.capri.oracle)."""

import pytest

from golden.configs import load_config
from golden.errors import ConfigError
from golden.mechanisms.capri.oracle import (SCHEMES, CapriOracle, CapriOracleParams, _CAPT,
                                            accuracy, path_counts)
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry


def test_fig7_walkthrough_path_counts():
    # CAPRI Figs. 7-8: 3 warps of 4 lanes on the path: W0 = 0123, W1 = 4xx7, W2 = 89xx
    masks = [0b1111, 0b1001, 0b0011]
    n, m = path_counts(masks, lanes=4)
    assert (n, m) == (3, 3)           # max lane count 3 = active warps: inadequate
    # compacting only W1 and W2 gives 49x7 and 8xxx: still 2 warps
    assert path_counts([0b1001, 0b0011], lanes=4) == (2, 2)
    assert path_counts([0b0001, 0b0010, 0b0100], lanes=4) == (3, 1)   # compactable to one


def test_capt_policies_and_lru():
    c = _CAPT(2, "1bL")
    assert c.lookup(8) is None
    c.allocate(8)
    assert c.predicts_adequate(c.lookup(8))
    c.update(8, False)
    assert not c.predicts_adequate(c.lookup(8))
    c.allocate(16)
    c.lookup(8)                       # 16 is now least recently used
    c.allocate(24)
    assert c.lookup(16) is None and c.lookup(8) is not None
    s = _CAPT(4, "1bS")
    s.allocate(8)
    s.update(8, False)                # sticky: stays adequate
    assert s.predicts_adequate(s.lookup(8))
    t = _CAPT(4, "2bit")
    t.allocate(8)
    t.update(8, False)
    assert not t.predicts_adequate(t.lookup(8))
    t.update(8, True)
    t.update(8, True)
    t.update(8, True)
    assert t.lookup(8) == 3


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
