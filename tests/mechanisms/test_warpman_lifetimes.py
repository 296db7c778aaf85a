"""Warp lifetimes and RTRU (golden.mechanisms.warpman.lifetimes)."""

import pytest

from golden.configs import load_config
from golden.mechanisms.warpman.lifetimes import WarpLifetimes, tb_rtru
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry


def test_rtru_formula():
    assert tb_rtru([10, 10, 10]) == 0.0
    # one warp lives 100 cycles, three live 50: (3 x 50) / (4 x 100)
    assert tb_rtru([100, 50, 50, 50]) == pytest.approx(0.375)
    assert tb_rtru([]) == 0.0


def test_recorder_is_passive_and_counts_every_tb_and_warp():
    cfg = load_config("gtx480_warpman")
    base = registry.run_workload("ST", "small", device=TimingDevice(cfg))
    run = registry.run_workload("ST", "small",
                                device=TimingDevice(cfg, mechanisms=[WarpLifetimes(cfg)]))
    assert run.mismatches() == []
    b, t = base.stats, run.stats
    assert [s.timing.cycles for s in t] == [s.timing.cycles for s in b]
    m = {}
    for s in t:
        for k, v in s.timing.mechanism.items():
            m[k] = m.get(k, 0) + v
    import math
    n_tbs = sum(math.prod(r.grid) for r in run.launches)
    n_warps = sum(math.prod(r.grid) * -(-math.prod(r.block) // 32) for r in run.launches)
    assert m["lifetimes.tbs"] == n_tbs
    assert sum(v for k, v in m.items() if k.startswith("lifetimes.warp_insts.")) == n_warps
    assert 0 <= m["lifetimes.rtru_sum"] / n_tbs < 1
    ends = [k for k in m if k.startswith("lifetimes.tb0_warp_end.")]
    assert len(ends) == 32   # ST: 1024-thread TBs
    assert 0 <= m["lifetimes.tb0_rtru"] < 1
