"""Warp-granular resource release and partial-TB dispatch (golden.timing.hooks:
reclaim_warp, partial_dispatch, on_warp_start / on_warp_exit)."""

import pytest

from golden.configs import load_config
from golden.timing.hooks import Mechanism
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry


class _Policy(Mechanism):
    """Reclaims finished warps and/or allows partial TBs; records warp events and checks
    the SM's resource invariants at every one."""

    def __init__(self, reclaim=False, partial=False):
        self.reclaim = reclaim
        self.partial = partial
        self.starts = {}     # (tb, widx) -> cycle
        self.exits = {}
        self.partials = []   # (sm, tb, n_warps)
        self.max_regs = 0
        self.checks = 0      # warp-level checks seen (including failed ones, n_warps = 0)
        self.launches = {}   # launch object id -> index (HS launches its kernel twice)

    def _key(self, sm, warp):
        k = self.launches.setdefault(id(sm.launch), len(self.launches))
        return (k, warp.tb.tb_id, warp.widx)

    def reclaim_warp(self, sm, warp):
        return self.reclaim

    def partial_dispatch(self, sm, tb_id, n_warps):
        assert sm.partial_tb is None and 0 <= n_warps < 8
        self.checks += 1
        if self.partial and n_warps:
            k = self.launches.setdefault(id(sm.launch), len(self.launches))
            self.partials.append((k, tb_id, n_warps))
        return self.partial

    def _check(self, sm):
        core = sm.cfg.core
        assert 0 <= sm.used_regs <= core.registers_per_sm
        assert 0 <= sm.used_warps <= core.max_warps_per_sm
        assert 0 <= sm.used_threads <= core.max_threads_per_sm
        assert sum(1 for tb in sm.tbs if tb.pending) <= 1
        self.max_regs = max(self.max_regs, sm.used_regs)

    def on_warp_start(self, sm, warp):
        key = self._key(sm, warp)
        assert key not in self.starts
        self.starts[key] = sm.now
        self._check(sm)

    def on_warp_exit(self, sm, warp):
        self.exits[self._key(sm, warp)] = sm.now
        self._check(sm)


@pytest.fixture(scope="module")
def cfg():
    # 2 SMs so the small HS launch (36 TBs of 8 warps, barriers, shared memory) runs in
    # several waves; 40 registers per thread: 3 TBs (30,720 registers) plus one warp fit
    return load_config("gtx480_warpman", {"core.num_sms": 2})


def _run(cfg, mech=None, workload="HS"):
    dev = TimingDevice(cfg, mechanisms=[mech] if mech else [], regs_per_thread=40)
    run = registry.run_workload(workload, "small", device=dev)
    assert run.mismatches() == []
    return run.stats[0].timing


@pytest.fixture(scope="module")
def base(cfg):
    return _run(cfg)


def test_observer_only_is_the_baseline(cfg, base):
    m = _Policy()
    t = _run(cfg, m)
    assert t.to_dict() == base.to_dict()
    assert len(m.starts) == len(m.exits) > 0
    # without partial dispatch every warp of a TB starts in the TB's dispatch cycle
    by_tb = {}
    for (k, tb, _), c in m.starts.items():
        by_tb.setdefault((k, tb), set()).add(c)
    assert all(len(v) == 1 for v in by_tb.values())


def test_reclaiming_finished_warps_keeps_results(cfg, base):
    m = _Policy(reclaim=True)
    t = _run(cfg, m)
    assert t.instructions_issued == base.instructions_issued
    assert t.thread_instructions == base.thread_instructions
    assert len(m.exits) == len(m.starts)


def test_partial_tbs_are_dispatched_and_complete(cfg, base):
    m = _Policy(reclaim=True, partial=True)
    t = _run(cfg, m)
    assert m.partials, "no partial TB was dispatched"
    assert all(0 < n < 8 for _, _, n in m.partials)
    assert t.instructions_issued == base.instructions_issued
    assert t.thread_instructions == base.thread_instructions
    # a partial TB's unissued warps start later, in warp-id order
    k, tb, n = m.partials[0]
    starts = [m.starts[(k, tb, w)] for w in range(8)]
    assert starts[n] > starts[0]
    assert starts == sorted(starts)
    # more registers are in use at some point than whole TBs alone allow (3 x 10,240)
    assert m.max_regs > 3 * 10240


def test_partial_dispatch_without_reclaim_waits_for_tb_retire(cfg, base):
    m = _Policy(reclaim=False, partial=True)
    t = _run(cfg, m)
    assert m.partials
    assert t.instructions_issued == base.instructions_issued


def test_deterministic(cfg, shrink_small):
    shrink_small.tiny("HS")     # still several waves on 2 SMs
    pa, pb = _Policy(reclaim=True, partial=True), _Policy(reclaim=True, partial=True)
    a, b = _run(cfg, pa), _run(cfg, pb)
    assert pa.partials, "no partial TB was dispatched"
    assert a.to_dict() == b.to_dict() and pa.partials == pb.partials
