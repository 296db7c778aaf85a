"""Golden SRF renaming map + SRF index free list (seed 002 ch. 2, §2.4.2)."""

import random

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.uv import SRFMap, SRFMapOps, SRFMapParams


def test_paper_size():
    p = SRFMapParams()
    assert (p.vreg_bits, p.sidx_bits, p.paper_map_bits) == (9, 7, 3584)
    assert (p.map_bits, p.state_bits) == (4096, 4224)


def test_define_lookup_release():
    s = SRFMap(SRFMapParams(vregs=8, srf_entries=4))
    assert s.lookup(3) is None
    assert s.define(3, True) == (True, 0)
    assert s.define(5, True) == (True, 1)
    assert s.define(3, True) == (True, 0)            # keeps its entry, no allocation
    assert s.free_count == 2 and s.lookup(3) == 0
    assert s.define(3, False) == (False, 0)          # vector redefinition frees
    assert s.lookup(3) is None and s.free_count == 3
    assert s.define(3, False) == (False, None)
    assert s.release(5) is True and s.release(5) is False
    assert s.free_count == 4


def test_exhaustion_is_a_structural_hazard_and_freed_indices_are_reused():
    s = SRFMap(SRFMapParams(vregs=8, srf_entries=2))
    assert s.define(0, True) == (True, 0) and s.define(1, True) == (True, 1)
    out = s.step(SRFMapOps(dst_en=1, dst_vreg=2, dst_uniform=1))
    assert (out.dst_ok, out.dst_sidx, out.empty, out.free_count) == (0, 0, 1, 0)
    assert s.lookup(2) is None
    # freed in a cycle, allocatable only from the next one
    out = s.step(SRFMapOps(dst_en=1, dst_vreg=2, dst_uniform=1, free_en=1, free_vreg=0))
    assert (out.dst_ok, out.free_ok, out.free_sidx) == (0, 1, 0)
    assert s.define(2, True) == (True, 0)


def test_reads_see_the_start_of_cycle_state():
    s = SRFMap(SRFMapParams(vregs=8, srf_entries=4))
    out = s.step(SRFMapOps(rd_en0=1, rd_vreg0=4, rd_en2=1, rd_vreg2=4, dst_en=1, dst_vreg=4,
                           dst_uniform=1))
    assert (out.rd_valid0, out.rd_valid2, out.dst_ok, out.dst_sidx) == (0, 0, 1, 0)
    out = s.step(SRFMapOps(rd_en1=1, rd_vreg1=4, dst_en=1, dst_vreg=4))
    assert (out.rd_valid1, out.rd_sidx1, out.dst_freed, out.dst_sidx) == (1, 0, 1, 0)
    assert s.mapping(4) is None


def test_same_cycle_conflicts_are_errors():
    s = SRFMap(SRFMapParams(vregs=8, srf_entries=4))
    with pytest.raises(SimtlabError):
        s.step(SRFMapOps(dst_en=1, dst_vreg=1, free_en=1, free_vreg=1))
    s.define(1, True)
    s.define(2, True)
    with pytest.raises(SimtlabError):                 # two releases, one free port
        s.step(SRFMapOps(dst_en=1, dst_vreg=1, dst_uniform=0, free_en=1, free_vreg=2))
    # a release next to an allocation is fine
    out = s.step(SRFMapOps(dst_en=1, dst_vreg=3, dst_uniform=1, free_en=1, free_vreg=2))
    assert (out.dst_ok, out.dst_sidx, out.free_ok, out.free_sidx) == (1, 2, 1, 1)


@pytest.mark.parametrize("ops", [SRFMapOps(rd_en0=1, rd_vreg0=8), SRFMapOps(dst_en=1, dst_vreg=9),
                                 SRFMapOps(free_en=1, free_vreg=8), SRFMapOps(rd_vreg1=16),
                                 SRFMapOps(dst_uniform=2), SRFMapOps(rd_en2=1)])
def test_out_of_range_requests_are_errors(ops):
    with pytest.raises(SimtlabError):
        SRFMap(SRFMapParams(vregs=8, srf_entries=4, read_ports=2)).step(ops)


def test_bad_parameters_are_errors():
    with pytest.raises(ConfigError):
        SRFMapParams(srf_entries=1)
    with pytest.raises(ConfigError):
        SRFMapParams(read_ports=4)
    with pytest.raises(SimtlabError):
        SRFMap(SRFMapParams()).step("not ops")


def test_map_and_free_list_stay_consistent_under_random_traffic():
    rng = random.Random(11)
    p = SRFMapParams(vregs=40, srf_entries=16)
    s = SRFMap(p)
    for _ in range(3000):
        v = rng.randrange(p.vregs)
        r = rng.random()
        if r < 0.5:
            s.define(v, rng.random() < 0.7)
        elif r < 0.7:
            s.release(v)
        else:
            s.lookup(v)
        mapped = [s.index[i] for i in range(p.vregs) if s.valid[i]]
        assert len(set(mapped)) == len(mapped)
        assert s.free_count + len(mapped) == p.srf_entries
        assert all(not s.freelist.is_free(i) for i in mapped)


@pytest.mark.parametrize("seed", range(4))
def test_unchecked_mechanism_api_equals_step(seed):
    """lookup / define / release without checks or a recorder (the timing mechanism's
    fast path) give the same answers and state as the checked one-request step() cycles,
    and the free list's kept count, empty, full and next index equal a scan of its bits."""
    rng = random.Random(seed)
    p = SRFMapParams(vregs=16, srf_entries=4)
    fast, ref = SRFMap(p, check=False), SRFMap(p)
    for _ in range(3000):
        op, v = rng.choice(["lookup", "define", "define", "release"]), rng.randrange(16)
        if op == "define":
            u = rng.random() < 0.6
            assert fast.define(v, u) == ref.define(v, u)
        else:
            assert getattr(fast, op)(v) == getattr(ref, op)(v)
        assert (fast.valid, fast.index) == (ref.valid, ref.index)
        for fl in (fast.freelist, ref.freelist):
            bits = fl._free
            assert fl.free_count == sum(bits)
            assert (fl.empty, fl.full) == (not any(bits), all(bits))
            assert fl.next_index == (bits.index(True) if any(bits) else None)
        assert fast.freelist._free == ref.freelist._free
