"""Concurrent kernel execution on SM partitions (golden/runs/concurrent.py,
GPU.run_partitions): outputs, equivalence with a lone run, determinism, heterogeneous
partitions, shared SMs (one kernel at a time), repetition and clear errors."""

from dataclasses import replace
from functools import lru_cache

import pytest

from golden.configs import load_config
from golden.errors import LaunchError, SimtlabError
from golden.report.runner import output_digest
from golden.runs.concurrent import Partition, run_concurrent, split_sms
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry

CFG = "gtx280"


def _prog(name):
    return lambda dev: registry.run_workload(registry.get(name), size="small", seed=0, device=dev)


@lru_cache(maxsize=None)
def _alone(name):
    """The lone timing run of ``name`` (one per worker process; tests only read it)."""
    return registry.run_workload(registry.get(name), size="small", seed=0,
                                 device=TimingDevice(load_config(CFG), echo_printf=False))


def test_one_program_on_every_sm_equals_a_lone_run():
    cfg = load_config(CFG)
    r = run_concurrent(cfg, [("SCAN", _prog("SCAN"))], [Partition(tuple(range(30)))])
    alone = _alone("SCAN")
    (s,) = r.streams
    first, want = s.launches[0], alone.stats[0].timing
    assert first.cycles == want.cycles and first.stalls == want.stalls
    # later launches start with empty L1s like lone launches, but the shared L2 MSHRs,
    # DRAM rows and queues carry on from the previous launch instead of starting empty
    for got, want in zip(s.launches[1:], alone.stats[1:]):
        assert got.instructions_issued == want.timing.instructions_issued
        assert abs(got.cycles - want.timing.cycles) <= 0.02 * want.timing.cycles
    assert output_digest(s.results[0].outputs) == output_digest(alone.outputs)


def test_two_programs_at_once_keep_their_outputs_and_are_deterministic():
    cfg = load_config(CFG)
    a, b = split_sms(30, 15, 15)

    def run():
        return run_concurrent(cfg, [("SCAN", _prog("SCAN")), ("FFT", _prog("FFT"))],
                              [Partition(a), Partition(b)])
    r1, r2 = run(), run()
    for s in r1.streams:
        (res,) = s.results
        assert not res.mismatches()
        assert output_digest(res.outputs) == output_digest(_alone(s.name).outputs)
    assert r1.session.to_dict() == r2.session.to_dict()
    assert [s.cycles for s in r1.streams] == [s.cycles for s in r2.streams]
    # both ran at once: the session is shorter than the two streams back to back
    assert r1.session.cycles < sum(s.cycles for s in r1.streams)
    assert r1.session.cycles >= max(s.cycles for s in r1.streams) - len(r1.streams[0].launches) * 100
    assert r1.streams[0].first_run_launches == 3 and r1.streams[1].first_run_launches == 1


def test_repeat_loops_the_shorter_program_until_the_longer_finishes():
    cfg = load_config(CFG)
    a, b = split_sms(30, 15, 15)
    r = run_concurrent(cfg, [("SCAN", _prog("SCAN")), ("FFT", _prog("FFT"))],
                       [Partition(a), Partition(b)], repeat=True)
    scan, fft = r.streams
    assert len(scan.results) == 1 and len(fft.results) > 1
    assert all(not x.mismatches() for x in fft.results)
    assert len(fft.launches) == len(fft.results)


def test_stop_after_first_runs_ends_the_session_when_the_longer_program_finishes():
    cfg = load_config(CFG)
    a, b = split_sms(30, 15, 15)

    def run(stop):
        return run_concurrent(cfg, [("SCAN", _prog("SCAN")), ("FFT", _prog("FFT"))],
                              [Partition(a), Partition(b)], repeat=True,
                              stop_after_first_runs=stop)
    full, cut = run(False), run(True)
    scan, fft = cut.streams
    # SCAN's first run is the longer one; identical until SCAN finishes (same schedule)
    assert [s.cycles for s in scan.launches] == [s.cycles for s in full.streams[0].launches]
    assert scan.cut_launches == 0 and fft.cut_launches == 1
    assert len(fft.launches) == len(fft.results) + 1 and all(not x.mismatches() for x in fft.results)
    # the session ends with SCAN's first run; FFT's running launch is cut there, partly done
    assert cut.session.cycles < full.session.cycles
    part, whole = fft.launches[-1], fft.launches[0]
    assert 0 < part.instructions_executed < whole.instructions_executed
    assert part.cycles < whole.cycles
    assert cut.session.instructions_executed == scan.warp_instructions + fft.warp_instructions


def test_heterogeneous_partitions_each_follow_their_config_and_mechanisms():
    cfg = load_config(CFG)
    ilp = load_config(CFG, {"pipelines.bypass": True})
    a, b = split_sms(30, 16, 14)
    r = run_concurrent(cfg, [("SCAN", _prog("SCAN")), ("FFT", _prog("FFT"))],
                       [Partition(a, ilp, ("ilp-sc",)), Partition(b)])
    scan, fft = r.streams
    assert not scan.results[0].mismatches() and not fft.results[0].mismatches()
    assert any(s.mechanism.get("ilp.allocations") for s in scan.launches)
    assert not any(s.mechanism.get("ilp.allocations") for s in fft.launches)


def test_bad_partitions_and_failing_programs_are_clear_errors():
    cfg = load_config(CFG)
    other = load_config(CFG, {"pipelines.bypass": True})
    with pytest.raises(LaunchError, match="SM 1 is in two partitions with different config"):
        run_concurrent(cfg, [("A", _prog("FFT")), ("B", _prog("FFT"))],
                       [Partition((0, 1)), Partition((1, 2), other)])
    with pytest.raises(LaunchError, match="lists an SM twice"):
        run_concurrent(cfg, [("A", _prog("FFT"))], [Partition((0, 0))])
    with pytest.raises(LaunchError, match="SM 30 is out of range"):
        run_concurrent(cfg, [("A", _prog("FFT"))], [Partition((29, 30))])
    with pytest.raises(LaunchError, match="2 programs for 1"):
        run_concurrent(cfg, [("A", _prog("FFT")), ("B", _prog("FFT"))], [Partition((0,))])

    def broken(dev):
        raise ValueError("no input file")
    with pytest.raises(SimtlabError, match="host program B: ValueError: no input file"):
        run_concurrent(cfg, [("A", _prog("FFT")), ("B", broken)],
                       [Partition((0, 1)), Partition((2, 3))])


def test_a_mechanism_object_cannot_serve_two_partitions():
    from golden.mechanisms.registry import make_mechanisms
    from golden.timing.gpu import GPU
    cfg = load_config(CFG)
    (m,) = make_mechanisms(["ilp-sc"], cfg)
    with pytest.raises(LaunchError, match="two partitions"):
        GPU(cfg).run_partitions([((0,), cfg, (m,)), ((1,), cfg, (m,))], [None, None],
                                lambda *a: None)


def test_shared_sms_hold_one_kernel_at_a_time(monkeypatch):
    """Two programs on the same 30 SMs (GPGPU-Sim without -gpgpu_concurrent_kernel_sm): a
    shared SM takes a launch's TBs only while no other launch has TBs there, freed SMs go
    to the launch that placed a TB last first, outputs equal the lone runs', the session
    is deterministic, and both kernels did use shared SMs."""
    from golden.timing import gpu as gpu_mod
    cfg = load_config(CFG)
    every = tuple(range(30))
    runs, used = [], {}
    take = gpu_mod.SMSharing.take

    def checked_take(self, kr, sm_id, now):
        if kr not in runs:
            runs.append(kr)
        for other in runs:
            if other is not kr:
                assert not any(sm.tbs for sm in other.sms if sm.id == sm_id), (sm_id, now)
        used.setdefault(kr.launch.name, set()).add(sm_id)
        return take(self, kr, sm_id, now)
    monkeypatch.setattr(gpu_mod.SMSharing, "take", checked_take)

    def run():
        return run_concurrent(cfg, [("SCAN", _prog("SCAN")), ("FFT", _prog("FFT"))],
                              [Partition(every), Partition(every)], repeat=True)
    r1 = run()
    for s in r1.streams:
        assert all(not x.mismatches() for x in s.results)
        assert output_digest(s.results[0].outputs) == output_digest(_alone(s.name).outputs)
    assert len(used) >= 2 and all(len(v) > 1 for v in used.values())
    monkeypatch.setattr(gpu_mod.SMSharing, "take", take)
    r2 = run()
    assert r1.session.to_dict() == r2.session.to_dict()
    assert [s.cycles for s in r1.streams] == [s.cycles for s in r2.streams]


def test_sm_sharing_order_follows_select_kernel():
    from types import SimpleNamespace

    from golden.timing.gpu import SMSharing
    resets = []
    sh = SMSharing(SimpleNamespace(reset_sm_caches=resets.append))
    a, b, c = (SimpleNamespace(sms=[SimpleNamespace(id=0, tbs=[])]) for _ in range(3))
    assert sh.dispatch_order([a, b, c]) == [a, b, c]
    sh.take(a, 0, 5)
    assert not sh.may_use(b, 0) and sh.may_use(a, 0) and resets == []
    assert sh.dispatch_order([a, b, c]) == [a, b, c]
    assert sh.release_idle(a) and sh.may_use(b, 0)
    sh.take(b, 0, 9)                 # b takes the SM a ran on: its caches start empty
    assert resets == [0] and sh.dispatch_order([a, b, c]) == [b, c, a]


def test_split_sms():
    assert split_sms(38, 20, 18) == [tuple(range(20)), tuple(range(20, 38))]
    with pytest.raises(LaunchError):
        split_sms(10, 6, 6)


def test_mixed_sms_hold_two_kernels_tbs_at_once_without_overcommitting(monkeypatch):
    """``mixed_sms`` (GPGPU-Sim's -gpgpu_concurrent_kernel_sm, golden/timing/shared_sm.py):
    TBs of both kernels are resident on one SM at the same time, the SM's TB slots,
    threads, warps, registers and shared memory are never over-committed by their sum, at
    most one warp instruction issues per SM per cycle (gtx280: one scheduler, issue width
    1), outputs equal the lone runs' and the session is deterministic."""
    from golden.timing import shared_sm
    cfg = load_config(CFG)
    core = cfg.core
    every = tuple(range(30))
    both, issues = set(), {}
    take, issued = shared_sm.MixedSMSharing.take, shared_sm.IssueGate.issued

    def checked_take(self, kr, sm_id, now):
        occ = self.occupancy_now(sm_id)
        assert occ["tbs"] + 1 <= core.max_tbs_per_sm
        assert occ["threads"] + kr.threads <= core.max_threads_per_sm
        assert occ["warps"] + kr.wpt <= core.max_warps_per_sm
        assert occ["regs"] + kr.regs <= core.registers_per_sm
        assert occ["shared"] + kr.shared <= core.shared_mem_per_sm
        if occ["kernels"] - {kr.launch.name}:
            both.add(sm_id)
        return take(self, kr, sm_id, now)

    def checked_issued(self, key, now):
        issued(self, key, now)
        assert self.count <= 1
        issues[(id(self), now)] = issues.get((id(self), now), 0) + 1
    monkeypatch.setattr(shared_sm.MixedSMSharing, "take", checked_take)
    monkeypatch.setattr(shared_sm.IssueGate, "issued", checked_issued)

    def run():
        return run_concurrent(cfg, [("SCAN", _prog("SCAN")), ("FFT", _prog("FFT"))],
                              [Partition(every), Partition(every)], repeat=True, mixed_sms=True)
    r1 = run()
    for s in r1.streams:
        assert all(not x.mismatches() for x in s.results)
        assert output_digest(s.results[0].outputs) == output_digest(_alone(s.name).outputs)
    assert both, "no SM ever held TBs of both kernels"
    assert issues and max(issues.values()) == 1
    r2 = run()
    assert r1.session.to_dict() == r2.session.to_dict()
    assert [s.cycles for s in r1.streams] == [s.cycles for s in r2.streams]


def test_issue_gate_caps_issues_and_alternates_between_waiting_kernels():
    from golden.timing.shared_sm import IssueGate
    g = IssueGate(1)
    a, b = object(), object()
    assert g.may_issue(a, 10)
    g.issued(a, 10)
    assert not g.may_issue(b, 10)          # the slot of cycle 10 is taken
    assert not g.may_issue(a, 11)          # a issued last while b waited: a yields
    assert g.may_issue(b, 11)
    g.issued(b, 11)
    assert g.may_issue(a, 12)              # nobody waited in 11: no yielding
    g2 = IssueGate(2)
    g2.issued(a, 5)
    assert g2.may_issue(b, 5)


def test_a_partition_spanning_two_configurations_runs_one_kernel_on_all_its_sms():
    """``Partition.also``: a single kernel on both sides of a heterogeneous GPU uses every
    SM of both groups (each SM with its own configuration and mechanisms), keeps its
    outputs, and is faster than confined to the small group."""
    cfg = load_config(CFG)
    ilp = load_config(CFG, {"pipelines.bypass": True})
    a, b = split_sms(30, 4, 26)
    both = run_concurrent(cfg, [("SCAN", _prog("SCAN"))],
                          [Partition(a, cfg, (), also=(Partition(b, ilp, ("ilp-sc",)),))])
    alone = run_concurrent(cfg, [("SCAN", _prog("SCAN"))], [Partition(a, cfg)])
    (s,), (t,) = both.streams, alone.streams
    assert output_digest(s.results[0].outputs) == output_digest(_alone("SCAN").outputs)
    assert s.warp_instructions == t.warp_instructions
    assert s.cycles < 0.8 * t.cycles   # (SCAN small has few TBs per launch)
    assert any(k.startswith("ilp") for k in both.session.to_dict().get("mechanism", {}))
    again = run_concurrent(cfg, [("SCAN", _prog("SCAN"))],
                           [Partition(a, cfg, (), also=(Partition(b, ilp, ("ilp-sc",)),))])
    assert again.session.to_dict() == both.session.to_dict()
