"""WarpMan leaves each TB's warps interleaved over the warp schedulers (dissertation ch. 3
§3.4: WarpMan "does not affect the warp scheduling policy except that it provides more
candidates"): warp w of a TB takes an entry of scheduler w mod num_schedulers, also when
it reuses the entry of a single finished warp. ``slot_policy=lowest`` (the earlier model:
the lowest free entry) lets reclaimed entries of one scheduler collect a whole TB."""

import pytest

from golden.configs import load_config
from golden.errors import ConfigError
from golden.mechanisms.warpman.mechanism import WarpManMechanism, WarpManParams
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry


@pytest.fixture(scope="module")
def cfg():
    # 3 SMs and 40 registers per thread (as tests/mechanisms/test_warpman_timing.py):
    # HS's 8-warp TBs leave room for one more warp and its TBs come in several waves
    return load_config("gtx480_warpman", {"core.num_sms": 3})


def _placements(cfg, **params):
    """(scheduler index, warp index in its TB) of every warp made resident, and the run."""
    mech = WarpManMechanism(cfg, WarpManParams(**params))
    seen = []
    orig = mech.on_warp_start

    def spy(sm, warp):
        seen.append((sm.schedulers.index(warp.sched), warp.widx, len(sm.schedulers)))
        orig(sm, warp)
    mech.on_warp_start = spy
    dev = TimingDevice(cfg, mechanisms=[mech], regs_per_thread=40)
    run = registry.run_workload("HS", "small", device=dev)
    return seen, run


@pytest.mark.parametrize("spatial", ["off", "on"])
def test_each_warp_goes_to_the_scheduler_of_its_warp_index(cfg, spatial):
    seen, run = _placements(cfg, spatial=spatial)
    assert run.mismatches() == []
    assert len(seen) > 0
    assert all(s == w % n for s, w, n in seen)


def test_lowest_free_entry_policy_puts_warps_on_other_schedulers(cfg):
    # the earlier model (kept as slot_policy=lowest) departs from the interleaving
    seen, run = _placements(cfg, spatial="off", slot_policy="lowest")
    assert run.mismatches() == []
    assert any(s != w % n for s, w, n in seen)


def test_bad_slot_policy(cfg):
    with pytest.raises(ConfigError, match="slot_policy"):
        WarpManParams(slot_policy="random")
