"""WarpMan in the timing model (golden.mechanisms.warpman.mechanism): every variant keeps
the kernel outputs, the golden workload buffer and dispatch check agree with the timing
model (check mode), and the policies behave as §3.3 says."""

import pytest

from golden.configs import load_config
from golden.errors import ConfigError
from golden.mechanisms.registry import make_mechanisms
from golden.mechanisms.warpman.mechanism import WarpManMechanism, WarpManParams
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry

VARIANTS = ("warpman-temp", "warpman-spatial", "warpman-duel", "warpman-threshold")


@pytest.fixture(scope="module")
def cfg():
    # 3 SMs (duel: SM 0 warp level, SM 1 TB level, SM 2 follows) and 40 registers per
    # thread so HS's 8-warp TBs leave room for one more warp: partial TBs happen
    return load_config("gtx480_warpman", {"core.num_sms": 3})


_RUNS: dict = {}


def _run(cfg, mechs, workload="HS"):
    dev = TimingDevice(cfg, mechanisms=mechs, regs_per_thread=40)
    run = registry.run_workload(workload, "small", device=dev)
    m = {}
    for s in run.stats:
        for k, v in s.timing.mechanism.items():
            m[k] = m.get(k, 0) + v
    return run, sum(s.timing.cycles for s in run.stats), m


@pytest.fixture(scope="module")
def base(cfg):
    return _run(cfg, [])


@pytest.mark.parametrize("name", VARIANTS)
def test_variant_keeps_outputs_and_structures_agree(cfg, base, name):
    run, cycles, m = _RUNS[name] = _run(cfg, make_mechanisms([name], cfg))
    assert run.mismatches() == []
    assert run.outputs.keys() == base[0].outputs.keys()
    for k in run.outputs:
        assert (run.outputs[k] == base[0].outputs[k]).all()
    assert m["warpman.reclaimed_warps"] > 0
    if name == "warpman-temp":
        assert "warpman.partial_tbs" not in m
    else:
        assert m.get("warpman.partial_tbs", 0) > 0
        assert m["warpman.buffered_warps"] >= m["warpman.partial_tbs"]
    if name == "warpman-duel":
        assert m.get("warpman.duel_follow_spatial", 0) + m.get("warpman.duel_follow_tb", 0) > 0


def test_threshold_blocks_partial_tbs_at_the_limit(cfg):
    # a threshold below one TB's warps: no SM ever has fewer resident warps when a
    # partial dispatch is considered, so none happens
    _, _, m = _run(cfg, make_mechanisms(["warpman-threshold:threshold_warps=8"], cfg))
    assert "warpman.partial_tbs" not in m
    _, _, m = _run(cfg, make_mechanisms(["warpman-threshold:threshold_warps=48"], cfg))
    assert m.get("warpman.partial_tbs", 0) > 0


def test_duel_leaders_keep_their_policy(cfg):
    mech = WarpManMechanism(cfg, WarpManParams(spatial="duel"))
    seen = []
    orig = mech.partial_dispatch

    def spy(sm, tb, n):
        ok = orig(sm, tb, n)
        if n:
            seen.append((sm.id, ok))
        return ok
    mech.partial_dispatch = spy
    run, _, _ = _run(cfg, [mech])
    assert run.mismatches() == []
    assert all(ok for s, ok in seen if s == 0) and any(s == 0 for s, _ in seen)
    assert not any(ok for s, ok in seen if s == 1)


def test_deterministic(cfg):
    a = _RUNS.get("warpman-duel") or _run(cfg, make_mechanisms(["warpman-duel"], cfg))
    b = _run(cfg, make_mechanisms(["warpman-duel"], cfg))
    assert a[1] == b[1] and a[2] == b[2]


def test_bad_parameters(cfg):
    with pytest.raises(ConfigError, match="spatial"):
        WarpManParams(spatial="sometimes")
    with pytest.raises(ConfigError, match="threshold"):
        WarpManParams(threshold_warps=0)
    with pytest.raises(ConfigError, match="leader"):
        WarpManMechanism(cfg, WarpManParams(spatial="duel", duel_leader_tb=7))
