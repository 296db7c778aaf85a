"""Coarse-grained L1 fetch groups (dissertation ch. 5) and the L1 access observer, at the
memory-hierarchy level: G = 1 is the baseline; G = 2/4 fetch the absent lines of the
aligned group as one L2 request (one request packet, every byte accounted at the L2 and
DRAM), hit and miss together, switch per SM at run time; observers see accepted L1
accesses and change nothing."""

import numpy as np
import pytest

from golden.configs.loader import load_config
from golden.errors import ConfigError, SimtlabError
from golden.timing.memory import L1AccessRecorder, MemoryHierarchy

FULL = (1 << 32) - 1
LINE = 128


def cfg(group=1, name="gtx480"):
    return load_config(name, {"memory.l1.fetch_group": group})


def unit(base, n=32, size=4):
    return np.arange(n, dtype=np.uint64) * np.uint64(size) + np.uint64(base)


def stream(mem, lines, sm=0, gap=2000, start=0):
    """One full-line warp load per line, ``gap`` cycles apart (each completes first)."""
    t, done = start, []
    for ln in lines:
        r = mem.access(sm, t, 0, unit(ln * LINE), FULL, 4)
        assert r.ok
        done.append(r.completion_cycle - t)
        t += gap
    return done


def test_default_is_baseline_and_knob_is_validated():
    assert load_config("gtx480").memory.l1.fetch_group == 1
    assert MemoryHierarchy(load_config("gtx480")).l1_fetch_group(3) == 1
    with pytest.raises(ConfigError, match="fetch_group: 3 is not a power of two"):
        cfg(3)
    with pytest.raises(ConfigError, match="fetch_group: 0 is out of range"):
        cfg(0)
    with pytest.raises(ConfigError, match="fetch_group: expected int"):
        cfg("2")


@pytest.mark.parametrize("g", [2, 4])
def test_streaming_misses_fall_by_the_group(g):
    lines = list(range(64))
    base = MemoryHierarchy(cfg(1))
    coarse = MemoryHierarchy(cfg(g))
    base_lat = stream(base, lines)
    lat = stream(coarse, lines)
    b, c = base.counters(), coarse.counters()
    assert b["l1_misses"] == 64 and b["l1_hits"] == 0
    assert c["l1_misses"] == 64 // g and c["l1_hits"] == 64 - 64 // g
    assert lat[1] == load_config("gtx480").memory.l1.hit_latency    # the neighbour was fetched
    # the same bytes cross the L2 and DRAM (128 B per line, 4 x 32 B sectors)
    assert c["dram_read_bytes"] == b["dram_read_bytes"] == 64 * LINE
    assert c["l2_accesses"] == b["l2_accesses"] == 64          # one L2 lookup per line
    assert coarse.icnt.request_flits < base.icnt.request_flits  # one request per group
    gc = coarse.l1_group_counters()
    assert gc["l1_group_requests"] == 64 // g and gc["l1_group_extra_lines"] == 64 - 64 // g
    # every neighbour was loaded after it filled: an L1 hit the group gained
    assert gc["l1_prefetch_filled_uses"] == 64 - 64 // g
    assert gc["l1_prefetch_pending_uses"] == gc["l1_prefetch_evicted_unused"] == 0
    bc = base.l1_group_counters()
    assert bc["l1_group_requests"] == bc["l1_prefetch_filled_uses"] == 0
    assert bc["l1_miss_wait"] == sum(base_lat)                 # every base load missed


def test_one_request_packet_and_reply_bytes():
    """A coarse2 miss on an empty L1: one request packet (header only) and the two lines'
    data come back; the L2 port and DRAM see 256 B."""
    c = cfg(2)
    mem = MemoryHierarchy(c)
    r = mem.access(0, 0, 0, unit(5 * LINE), FULL, 4)          # line 5: group {4, 5}
    ic = c.memory.interconnect
    assert mem.icnt.request_flits == 1
    # gtx480 interleaves the memory partitions every 256 B (GPGPU-Sim 3.x dramid@8), so the
    # aligned pair {4, 5} lies in one slice and comes back as one reply packet
    assert mem.icnt.reply_flits == -(-(ic.header_bytes + 2 * LINE) // ic.flit_bytes)
    k = mem.counters()
    assert k["dram_read_bytes"] == 2 * LINE and k["l1_misses"] == 1
    # the neighbour (line 4) is pending: an access to it now merges, then both hit
    r2 = mem.access(0, 1, 0, unit(4 * LINE), FULL, 4)
    assert r2.completion_cycle == r.completion_cycle
    assert mem.counters()["l1_mshr_merges"] == 1
    t = r.completion_cycle + 1
    for ln in (4, 5):
        rr = mem.access(0, t, 0, unit(ln * LINE), FULL, 4)
        assert rr.completion_cycle == t + c.memory.l1.hit_latency
        t += c.memory.l1.port_cycles                             # the L1 port's next free cycle


@pytest.mark.parametrize("wait_all", [False, True])
def test_own_line_resident_neighbours_absent(wait_all):
    """Own line resident but group neighbours absent: the neighbours are fetched; the load
    hits (default: it waits only for its own line) or, with fetch_group_wait_all (the older
    model), misses and waits for the group request."""
    # one L1 access per cycle (gtx480's port takes one per 2), so only the group's wait shows
    mem = MemoryHierarchy(load_config("gtx480", {"memory.l1.fetch_group_wait_all": wait_all,
                                                 "memory.l1.port_cycles": 1}))
    r = mem.access(0, 0, 0, unit(8 * LINE), FULL, 4)
    t = r.completion_cycle + 1
    hit = mem.l1[0].hit_latency
    assert mem.access(0, t, 0, unit(8 * LINE), FULL, 4).completion_cycle == t + hit
    mem.set_l1_fetch_group(0, 4)                               # group {8, 9, 10, 11}
    t += 1
    r = mem.access(0, t, 0, unit(8 * LINE), FULL, 4)
    k, gc = mem.counters(), mem.l1_group_counters()
    assert k["dram_read_bytes"] == 4 * LINE and gc["l1_group_extra_lines"] == 3
    assert gc["l1_group_hit_waits"] == 1
    if wait_all:
        assert r.completion_cycle > t + hit and k["l1_misses"] == 2
        assert gc["l1_group_hit_wait_cycles"] == r.completion_cycle - (t + hit)
    else:
        assert r.completion_cycle == t + hit and k["l1_misses"] == 1 and k["l1_hits"] == 2
        assert gc["l1_group_hit_wait_cycles"] == 0


def test_reserved_hit_waits_for_the_entry_and_is_counted():
    """GPGPU-Sim HIT_RESERVED: a load of a line whose data is in flight merges into its MSHR
    entry, sends nothing and completes at the fill; counted as a reserved hit (inside
    l1_misses / l1_mshr_merges)."""
    mem = MemoryHierarchy(cfg(1))
    r = mem.access(0, 0, 0, unit(3 * LINE), FULL, 4)
    flits = mem.icnt.flits
    r2 = mem.access(0, 5, 1, unit(3 * LINE), FULL, 4)
    assert r2.completion_cycle == r.completion_cycle and mem.icnt.flits == flits
    gc, k = mem.l1_group_counters(), mem.counters()
    assert gc["l1_reserved_hits"] == 1 and k["l1_mshr_merges"] == 1 and k["l1_misses"] == 2
    assert gc["l1_reserved_wait"] == r.completion_cycle - 5
    assert gc["l1_miss_wait"] == 2 * r.completion_cycle - 5


@pytest.mark.parametrize("g", [1, 2])
def test_reserved_hit_on_a_full_entry_is_a_reservation_fail(g):
    """mshr_max_merge = 2 (the first miss and one merge): a third load of the in-flight line
    is refused (GPGPU-Sim MSHR_MERGE_ENRTY_FAIL), then accepted once the line filled."""
    mem = MemoryHierarchy(load_config("gtx480", {"memory.l1.mshr_max_merge": 2,
                                                 "memory.l1.fetch_group": g}))
    r = mem.access(0, 0, 0, unit(6 * LINE), FULL, 4)
    assert mem.access(0, 1, 1, unit(6 * LINE), FULL, 4).ok
    f = mem.access(0, 2, 2, unit(6 * LINE), FULL, 4)
    assert not f.ok and f.retry_cycle == r.completion_cycle
    assert mem.counters()["l1_reservation_fails"] == 1
    assert mem.l1_group_counters()["l1_merge_fails"] == 1
    r3 = mem.access(0, f.retry_cycle, 2, unit(6 * LINE), FULL, 4)
    assert r3.ok and r3.completion_cycle == f.retry_cycle + mem.l1[0].hit_latency


def test_neighbour_in_flight_is_a_reserved_hit_of_its_entry():
    """coarse2: the neighbour fetched by line 10's miss is in flight; a load of it is a
    reserved hit (counted as a pending use of the prefetch), completing at that fill."""
    mem = MemoryHierarchy(cfg(2))
    r = mem.access(0, 0, 0, unit(10 * LINE), FULL, 4)          # group {10, 11}
    r2 = mem.access(0, 3, 1, unit(11 * LINE), FULL, 4)
    assert r2.completion_cycle == r.completion_cycle
    gc = mem.l1_group_counters()
    assert gc["l1_reserved_hits"] == 1 and gc["l1_prefetch_pending_uses"] == 1
    assert gc["l1_prefetch_filled_uses"] == 0


def test_mshr_max_merge_zero_keeps_unlimited_merging():
    mem = MemoryHierarchy(load_config("gtx480", {"memory.l1.mshr_max_merge": 0}))
    for t in range(20):
        assert mem.access(0, t, t, unit(7 * LINE), FULL, 4).ok
    assert mem.counters()["l1_reservation_fails"] == 0
    with pytest.raises(ConfigError, match="mshr_max_merge"):
        load_config("gtx480", {"memory.l1.mshr_max_merge": -1})


def test_partial_line_fetches_only_its_missing_sectors():
    """In sectored caches (fetch_line off in the L1 and the L2; gtx480 fetches whole lines,
    as GPGPU-Sim 3.x does) the requested line fetches its missing sectors; the absent
    neighbour comes whole."""
    mem = MemoryHierarchy(load_config("gtx480", {"memory.l1.fetch_group": 2,
                                                 "memory.l1.fetch_line": False,
                                                 "memory.l2.fetch_line": False}))
    one = np.zeros(32, np.uint64)
    one[0] = 2 * LINE                                          # 4 bytes of sector 0 of line 2
    mem.access(0, 0, 0, one, 1, 4)
    assert mem.counters()["dram_read_bytes"] == 32 + LINE


def test_switch_per_sm_at_run_time():
    mem = MemoryHierarchy(cfg(1))
    mem.set_l1_fetch_group(1, 4)
    assert [mem.l1_fetch_group(i) for i in range(3)] == [1, 4, 1]
    stream(mem, range(16), sm=0)
    stream(mem, range(16, 32), sm=1, start=10**5)
    assert mem.counters()["l1_misses"] == 16 + 4
    mem.reset_sm_caches(1)                                     # keeps the SM's setting
    assert mem.l1_fetch_group(1) == 4
    assert mem.l1_group_counters()["l1_group_requests"] == 4   # ... and its counts
    mem.set_l1_fetch_group(1, 1)
    stream(mem, range(32, 36), sm=1, start=10**6)
    assert mem.counters()["l1_misses"] == 16 + 4 + 4
    for bad in (3, 0, 2.0, True):
        with pytest.raises(SimtlabError, match="power of two"):
            mem.set_l1_fetch_group(0, bad)
    with pytest.raises(SimtlabError, match="out of range"):
        mem.set_l1_fetch_group(99, 2)


def test_reservation_counts_group_mshrs():
    """A coarse4 load needs an MSHR per fetched line: with 2 of them free (L1 mshrs = 4)
    it is refused, then accepted once the table empties."""
    c = load_config("gtx480", {"memory.l1.fetch_group": 4, "memory.l1.mshrs": 4})
    mem = MemoryHierarchy(c)
    mem.access(0, 0, 0, unit(0), FULL, 4)                      # lines 0-3: 4 entries
    r = mem.access(0, 1, 0, unit(4 * LINE), FULL, 4)
    assert not r.ok and mem.counters()["l1_reservation_fails"] == 1
    r = mem.access(0, r.retry_cycle, 0, unit(4 * LINE), FULL, 4)
    assert r.ok


def test_group_one_is_bit_identical_to_baseline():
    """Random traffic: fetch_group 1 set at run time equals a fresh baseline hierarchy."""
    rng = np.random.default_rng(11)
    a, b = MemoryHierarchy(load_config("gtx480")), MemoryHierarchy(load_config("gtx480"))
    b.set_l1_fetch_group(0, 1)
    t = 0
    for _ in range(300):
        addrs = rng.integers(0, 1 << 16, size=32).astype(np.uint64) & ~np.uint64(3)
        st = bool(rng.random() < 0.2)
        ra = a.access(0, t, 0, addrs, FULL, 4, is_store=st)
        rb = b.access(0, t, 0, addrs, FULL, 4, is_store=st)
        assert ra == rb
        t += int(rng.integers(1, 50))
    assert a.counters() == b.counters()


def test_recorder_observes_accepted_l1_accesses_only():
    c = load_config("gtx480", {"memory.l1.mshrs": 1})
    mem, plain = MemoryHierarchy(c), MemoryHierarchy(c)
    rec = L1AccessRecorder()
    mem.add_l1_observer(rec)
    seen = []
    mem.add_l1_observer(lambda *a: seen.append(a[3]))
    addrs = unit(0, size=8)                                    # 2 lines: 2 transactions
    for m in (mem, plain):
        m.access(0, 0, 5, addrs, FULL, 4)
        r = m.access(1, 0, 6, unit(4096), FULL, 4)
        m.access(1, 1, 6, unit(8192), FULL, 4)                 # reservation fail (1 MSHR)
        m.access(1, r.completion_cycle + 1, 6, unit(8192), FULL, 4)
        m.access(0, 3, 5, unit(0), FULL, 4, is_store=True)
        m.access(0, 4, 5, unit(64), FULL, 4, space="shared")   # not an L1 tag access
        m.access(0, 5, 5, unit(0), FULL, 4, is_atomic=True)
    assert mem.counters() == plain.counters()                  # observing changes nothing
    assert seen == ["load", "load", "load", "store", "atomic"]
    t = rec.table()
    assert list(t["sm"]) == [0, 0, 1, 1, 0, 0]
    assert list(t["line"]) == [0, 128, 4096, 8192, 0, 0]
    assert list(t["cycle"][:2]) == [0, 1] and list(t["warp"][:2]) == [5, 5]
    lines, sms = rec.addresses(order="call")
    assert list(lines) == [0, 128, 4096, 8192, 0, 0]
    sec, _ = rec.addresses(unit="sector", order="call")
    assert list(sec[:8]) == [0, 32, 64, 96, 128, 160, 192, 224]
    loads = L1AccessRecorder(kinds=("load",))
    mem.add_l1_observer(loads)
    mem.access(0, 10**6, 5, unit(1 << 20), FULL, 4, is_store=True)
    assert len(loads) == 0
    mem.remove_l1_observer(loads)
    with pytest.raises(SimtlabError):
        mem.remove_l1_observer(loads)
    with pytest.raises(SimtlabError):
        mem.add_l1_observer(3)
    with pytest.raises(SimtlabError):
        L1AccessRecorder(kinds=("fetch",))


def test_bypassed_loads_are_observed_as_bypass():
    mem = MemoryHierarchy(load_config("pascal"))            # Pascal: global loads skip L1
    kinds = []
    mem.add_l1_observer(lambda *a: kinds.append(a[3]))
    mem.access(0, 0, 0, unit(0), FULL, 4)
    mem.access(0, 1, 0, unit(0), FULL, 4, space="local")
    assert kinds == ["load_bypass", "load"]
