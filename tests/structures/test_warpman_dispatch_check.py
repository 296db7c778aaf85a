"""Golden WarpMan dispatch check (seed 002 ch. 3, §3.2 "A", §3.3 steps 1-2)."""

import io
import itertools

import pytest

from golden.configs import load_config
from golden.errors import ConfigError, SimtlabError
from golden.structures.trace import TraceRecorder, read_trace
from golden.structures.warpman import DispatchCheck, DispatchCheckOps, DispatchCheckParams

KB = 1024
MM_TB = dict(warps_per_tb=8, regs_per_warp=768, shared_per_tb=2 * KB)   # paper-facts §3.3


def sm(tbs: int, warps_per_tb=8, regs_per_warp=768, shared_per_tb=2 * KB) -> dict:
    """Free resources of a 32k-register, 48 KB, 48-warp, 8-TB SM holding ``tbs`` full TBs."""
    return dict(free_warps=48 - tbs * warps_per_tb, free_tbs=8 - tbs,
                free_regs=32768 - tbs * warps_per_tb * regs_per_warp,
                free_shared=48 * KB - tbs * shared_per_tb)


def test_defaults_are_the_gtx480_warpman_sm():
    assert DispatchCheckParams.from_config(load_config("gtx480_warpman")) == DispatchCheckParams()


def test_mm_worked_example():
    c = DispatchCheck()
    for tbs in range(5):
        out = c.check(**sm(tbs), **MM_TB)
        assert (out.tb_ok, out.warp_ok, out.n_warps) == (1, 1, 8)
    free = sm(5)
    assert (free["free_regs"], 48 * KB - free["free_shared"]) == (2048, 10 * KB)
    out = c.check(**free, **MM_TB)
    assert (out.tb_ok, out.warp_ok, out.n_warps) == (0, 1, 2)


def test_shared_memory_stays_tb_granular():
    c = DispatchCheck()
    free = {**sm(5), "free_shared": 2 * KB - 1}
    out = c.check(**free, **MM_TB)
    assert (out.tb_ok, out.warp_ok) == (0, 0)
    assert out.n_warps == 2          # n_warps ignores shared memory: use it only when warp_ok
    out = c.check(**{**free, "free_shared": 2 * KB}, **MM_TB)
    assert (out.tb_ok, out.warp_ok) == (0, 1)


def test_each_resource_of_the_warp_level_check():
    c = DispatchCheck()
    base = dict(free_warps=8, free_tbs=3, free_regs=2048, free_shared=38 * KB, **MM_TB)
    assert c.check(**base).warp_ok == 1
    assert c.check(**{**base, "free_warps": 0}).warp_ok == 0
    assert c.check(**{**base, "free_tbs": 0}).warp_ok == 0
    assert c.check(**{**base, "free_regs": 767}).warp_ok == 0
    out = c.check(**{**base, "free_regs": 768})
    assert (out.warp_ok, out.n_warps) == (1, 1)
    out = c.check(**{**base, "free_warps": 1})
    assert (out.warp_ok, out.n_warps) == (1, 1)


def test_exactly_fitting_tb():
    c = DispatchCheck()
    exact = dict(free_warps=8, free_tbs=1, free_regs=6144, free_shared=2 * KB, **MM_TB)
    out = c.check(**exact)
    assert (out.tb_ok, out.warp_ok, out.n_warps) == (1, 1, 8)
    for short in ({"free_warps": 7}, {"free_regs": 6143}, {"free_shared": 2 * KB - 1},
                  {"free_tbs": 0}):
        assert c.check(**{**exact, **short}).tb_ok == 0


def test_full_and_empty_sm():
    c = DispatchCheck()
    empty = dict(free_warps=48, free_tbs=8, free_regs=32768, free_shared=48 * KB)
    out = c.check(**empty, warps_per_tb=32, regs_per_warp=1024, shared_per_tb=48 * KB)
    assert (out.tb_ok, out.warp_ok, out.n_warps) == (1, 1, 32)
    out = c.check(free_warps=0, free_tbs=0, free_regs=0, free_shared=0, **MM_TB)
    assert (out.tb_ok, out.warp_ok, out.n_warps) == (0, 0, 0)


def test_zero_registers_per_warp_do_not_limit():
    out = DispatchCheck().check(free_warps=5, free_tbs=1, free_regs=0, free_shared=0,
                                warps_per_tb=8, regs_per_warp=0, shared_per_tb=0)
    assert (out.tb_ok, out.warp_ok, out.n_warps) == (0, 1, 5)


def test_properties_over_a_small_sm_exhaustively():
    p = DispatchCheckParams(warp_slots=4, tb_slots=2, registers=10, shared_bytes=2,
                            max_warps_per_tb=4)
    c = DispatchCheck(p)
    for fw, ft, fr, fs, w, r, s in itertools.product(range(5), range(3), range(11), range(3),
                                                     range(1, 5), range(11), range(3)):
        out = c.step(DispatchCheckOps(free_warps=fw, free_tbs=ft, free_regs=fr, free_shared=fs,
                                      warps_per_tb=w, regs_per_warp=r, shared_per_tb=s))
        # n_warps is the largest k <= min(w, fw) whose k warps' registers fit
        want = max(k for k in range(min(w, fw) + 1) if k * r <= fr)
        assert out.n_warps == want
        if out.tb_ok:
            assert out.warp_ok and out.n_warps == w
        if out.warp_ok:
            assert out.n_warps >= 1


@pytest.mark.parametrize("ops", [DispatchCheckOps(warps_per_tb=0),
                                 DispatchCheckOps(warps_per_tb=33),
                                 DispatchCheckOps(free_warps=49), DispatchCheckOps(free_tbs=9),
                                 DispatchCheckOps(free_regs=32769),
                                 DispatchCheckOps(free_shared=49153),
                                 DispatchCheckOps(regs_per_warp=-1),
                                 DispatchCheckOps(shared_per_tb=49153),
                                 DispatchCheckOps(free_warps=True)])
def test_out_of_range_inputs_are_errors(ops):
    with pytest.raises(SimtlabError):
        DispatchCheck().step(ops)


def test_bad_parameters_are_errors():
    for kw in ({"warp_slots": 0}, {"tb_slots": 0}, {"registers": 0}, {"shared_bytes": -1},
               {"max_warps_per_tb": 0}):
        with pytest.raises(ConfigError):
            DispatchCheckParams(**kw)
    with pytest.raises(SimtlabError):
        DispatchCheck(DispatchCheckParams).step(DispatchCheckOps())


def test_recorder_gets_every_check(tmp_path):
    path = tmp_path / "check.jsonl"
    with TraceRecorder.open(path, "warpman_check", DispatchCheckParams()) as rec:
        c = DispatchCheck(recorder=rec)
        c.check(**sm(5), **MM_TB)
        c.check(**sm(0), **MM_TB)
    trace = read_trace(path)
    assert [(o.tb_ok, o.warp_ok, o.n_warps) for _, o in trace.cycles] == [(0, 1, 2), (1, 1, 8)]
    rec = TraceRecorder(io.StringIO(), "warpman_check", DispatchCheckParams())
    with pytest.raises(SimtlabError):
        DispatchCheck(check=False, recorder=rec).step(DispatchCheckOps(warps_per_tb=0))
