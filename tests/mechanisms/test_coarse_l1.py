"""The coarse-grained L1 mechanism with SM set-dueling (golden.mechanisms.coarse_l1)."""

import pytest

from golden.configs import load_config
from golden.errors import ConfigError
from golden.mechanisms.coarse_l1.mechanism import CoarseL1Mechanism, CoarseL1Params
from golden.mechanisms.registry import make_mechanisms
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry


@pytest.fixture(scope="module")
def cfg():
    return load_config("gtx480_coarse", {"core.num_sms": 4})


def _run(cfg, mechs, workload="BTREE"):
    run = registry.run_workload(workload, "small", device=TimingDevice(cfg, mechanisms=mechs))
    m = {}
    for s in run.stats:
        for k, v in s.timing.mechanism.items():
            m[k] = m.get(k, 0) + v
    return run, sum(s.timing.cycles for s in run.stats), m


@pytest.fixture(scope="module")
def base(cfg):
    return _run(cfg, [])


@pytest.mark.parametrize("name", ["coarse2", "coarse4", "coarse2-duel", "coarse4-duel"])
def test_outputs_identical_and_groups_fetched(cfg, base, name):
    run, _, m = _run(cfg, make_mechanisms([name], cfg))
    assert run.mismatches() == []
    for k in base[0].outputs:
        assert (run.outputs[k] == base[0].outputs[k]).all()
    assert m["coarse.group_requests"] > 0
    g = 2 if name.startswith("coarse2") else 4
    assert m["coarse.extra_lines"] <= (g - 1) * m["coarse.group_requests"]
    if name.endswith("duel"):
        assert m["coarse.coarse_issued"] + m["coarse.base_issued"] > 0


def test_duel_sets_leaders_and_followers(cfg):
    mech = CoarseL1Mechanism(cfg, CoarseL1Params(group=4, duel=True))
    groups = []

    orig = mech.after_step

    def spy(sm, warp, pc, rec):
        orig(sm, warp, pc, rec)
        groups.append(tuple(sm.memory.l1_fetch_group(i) for i in range(4)))
    mech.after_step = spy
    run, _, _ = _run(cfg, [mech])
    assert run.mismatches() == []
    assert all(g[0] == 1 and g[1] == 4 for g in groups)       # the two leaders
    followers = {g[2:] for g in groups}
    assert followers <= {(1, 1), (4, 4)}                      # followers move together


def test_bad_parameters(cfg):
    with pytest.raises(ConfigError, match="power of two"):
        CoarseL1Params(group=3)
    with pytest.raises(ConfigError, match="leader"):
        CoarseL1Mechanism(cfg, CoarseL1Params(duel=True, leader_coarse=9))
