"""MemoryHierarchy: latencies, MSHR merge / reservation fail, bandwidth, write policies."""

import math

import numpy as np
import pytest

from golden.configs.loader import load_config
from golden.errors import ConfigError, SimtlabError
from golden.timing.memory import COUNTER_NAMES, MemoryHierarchy

FULL = (1 << 32) - 1
SEED = 7321


def one_lane(addr, n=32):
    a = np.zeros(n, np.uint64)
    a[0] = addr
    return a


def unit(base, n=32, size=4):
    return np.arange(n, dtype=np.uint64) * np.uint64(size) + np.uint64(base)


def dram_round_trip(cfg, nbytes):
    """Unloaded L1-miss + L2-miss latency of an nbytes request (module docstring formula)."""
    m = cfg.memory
    return m.l2.latency + m.dram.latency + math.ceil(
        nbytes / m.l2.bytes_per_cycle_per_partition + nbytes / m.dram.bytes_per_cycle_per_channel)


@pytest.mark.parametrize("name", ["pascal", "gtx480", "gtx285", "fx5800"])
def test_pointer_chase_latency(name):
    cfg = load_config(name)
    mem = MemoryHierarchy(cfg)
    sector = cfg.memory.coalescing.sector_bytes
    rng = np.random.default_rng(SEED)
    # distinct lines far apart (no reuse): every load misses L1 and L2
    addrs = (rng.permutation(200)[:40].astype(np.uint64) * np.uint64(1 << 20))
    t = 0
    for a in addrs:
        r = mem.access(0, t, 0, one_lane(int(a)), 1, 4)
        assert r.ok and r.completion_cycle - t == dram_round_trip(cfg, sector)
        t = r.completion_cycle
    c = mem.counters()
    assert c["l1_misses"] == c["l2_misses"] == c["dram_reads"] == 40
    # L1 hit on the last line, then an L2 hit from another SM (cold L1)
    r = mem.access(0, t, 0, one_lane(int(addrs[-1])), 1, 4)
    assert r.completion_cycle - t == cfg.memory.l1.hit_latency
    r = mem.access(1, t, 0, one_lane(int(addrs[-1])), 1, 4)
    assert r.completion_cycle - t == cfg.memory.l2.latency + math.ceil(
        sector / cfg.memory.l2.bytes_per_cycle_per_partition)


def test_mshr_merge_same_line():
    cfg = load_config("pascal")
    mem = MemoryHierarchy(cfg)
    r1 = mem.access(0, 0, 0, unit(0x4000), FULL, 4)
    r2 = mem.access(0, 1, 1, unit(0x4000), FULL, 4)
    assert r1.completion_cycle == r2.completion_cycle
    c = mem.counters()
    assert c["l1_mshr_merges"] == 1 and c["dram_reads"] == 1 and c["l2_accesses"] == 1
    # a merge that needs extra sectors fetches only those and may finish later
    r3 = mem.access(0, 10, 0, one_lane(0x8000), 1, 4)
    r4 = mem.access(0, 11, 1, unit(0x8000), FULL, 4)
    assert r4.completion_cycle >= r3.completion_cycle
    c = mem.counters()
    assert c["l1_mshr_merges"] == 2 and c["dram_read_bytes"] == 128 + 32 + 96


def test_mshr_full_reservation_fail_and_retry():
    cfg = load_config("pascal", {"memory.l1.mshrs": 2})
    mem = MemoryHierarchy(cfg)
    two_lines = unit(0x10000, size=8)                     # 256 bytes: 2 lines
    r1 = mem.access(0, 0, 0, two_lines, FULL, 8)
    assert r1.ok and mem.l1[0].mshrs.in_use == 2
    r2 = mem.access(0, 5, 1, unit(0x20000), FULL, 4)
    assert not r2.ok and r2.retry_cycle is not None and r2.completion_cycle is None
    assert mem.counters()["l1_reservation_fails"] == 1
    assert mem.access(0, r2.retry_cycle - 1, 1, unit(0x20000), FULL, 4).ok is False
    r3 = mem.access(0, r2.retry_cycle, 1, unit(0x20000), FULL, 4)
    assert r3.ok and r3.completion_cycle > r2.retry_cycle
    # a hit or a merge needs no new MSHR, so it is accepted while the table is full
    mem.access(0, r3.completion_cycle + 1000, 0, unit(0x30000, size=8), FULL, 8)
    assert mem.access(0, r3.completion_cycle + 1001, 0, unit(0x30000), FULL, 4).ok
    # an access needing more lines than the table holds is accepted once it is empty
    mem2 = MemoryHierarchy(cfg)
    r = mem2.access(0, 0, 0, unit(0x0, size=128), FULL, 4)
    assert r.ok and r.transactions == 32 and mem2.counters()["l1_reservation_fails"] == 0


def test_l1_port_one_transaction_per_cycle():
    cfg = load_config("pascal")
    mem = MemoryHierarchy(cfg)
    mem.access(0, 0, 0, unit(0, size=128), FULL, 4)
    t = 100_000
    mem.access(0, t, 0, unit(0, size=128), FULL, 4)            # 32 L1 hits
    r = mem.access(0, t, 1, unit(0, size=1), FULL, 1)           # hit, waits for the port
    assert r.completion_cycle == t + 32 + cfg.memory.l1.hit_latency


def test_streaming_reaches_dram_bandwidth():
    cfg = load_config("pascal")
    mem = MemoryHierarchy(cfg)
    sms, warps_per_sm = cfg.core.num_sms, 150
    pending = {sm: 0 for sm in range(sms)}
    line = cfg.memory.coalescing.line_bytes
    cycle, last = 0, 0
    while any(v < warps_per_sm for v in pending.values()):
        for sm in range(sms):
            k = pending[sm]
            if k >= warps_per_sm:
                continue
            base = (sm * warps_per_sm + k) * line
            r = mem.access(sm, cycle, k, unit(base), FULL, 4)
            if r.ok:
                pending[sm] += 1
                last = max(last, r.completion_cycle)
        cycle += 1
    total = sms * warps_per_sm * line
    assert mem.counters()["dram_read_bytes"] == total
    transfer = last - (cfg.memory.l2.latency + cfg.memory.dram.latency)
    achieved = total / transfer
    assert abs(achieved - cfg.peak_dram_bytes_per_cycle) <= 0.05 * cfg.peak_dram_bytes_per_cycle


def test_store_write_through_no_allocate_and_l2_write_back():
    cfg = load_config("gtx480", {"memory.l2.size_bytes": 6 * 8 * 64})   # 1 set per slice
    mem = MemoryHierarchy(cfg)
    r = mem.access(0, 0, 0, unit(0x1000), FULL, 4, is_store=True)
    c = mem.counters()
    assert c["l1_write_misses"] == 2 and c["dram_reads"] == 0          # no fetch on write
    assert mem.l1[0].tags.probe(0x1000) is None                        # no L1 allocate
    r2 = mem.access(0, r.completion_cycle, 0, unit(0x1000), FULL, 4)   # L1 miss, L2 hit
    assert mem.counters()["l2_hits"] == 2 and mem.counters()["dram_reads"] == 0
    t = r2.completion_cycle
    mem.access(0, t, 0, unit(0x1000), FULL, 4, is_store=True)          # write hit in L1
    assert mem.counters()["l1_write_hits"] == 2
    # fill the slice of line 0x1000 with 8 other lines: the dirty lines get written back
    stride = 6 * 64                                                    # same slice
    for i in range(1, 20):
        mem.access(1, t + i, 0, one_lane(0x1000 + i * stride), 1, 4)
    mem.access(1, t + 5000, 0, one_lane(0x1000 + 30 * stride), 1, 4)   # retires the fills
    c = mem.counters()
    assert c["l2_writebacks"] >= 1 and c["dram_writes"] == c["l2_writebacks"]
    assert c["dram_write_bytes"] == 64 * c["dram_writes"]


def test_atomics_at_l2_serialise_same_address():
    cfg = load_config("pascal")
    mem = MemoryHierarchy(cfg)
    warm = mem.access(0, 0, 0, unit(0x2000), FULL, 4)
    t = warm.completion_cycle + 10
    r_same = mem.access(1, t, 0, np.full(32, 0x2000, np.uint64), FULL, 4, is_atomic=True)
    r_dist = mem.access(2, t + 1000, 0, unit(0x2000), FULL, 4, is_atomic=True)
    assert r_same.completion_cycle - t > r_dist.completion_cycle - (t + 1000)
    assert mem.counters()["atomic_serialized_lanes"] == 31
    assert mem.counters()["atomics"] == 2


def test_shared_space_bank_conflicts():
    cfg = load_config("pascal")
    mem = MemoryHierarchy(cfg)
    lat = cfg.memory.shared.latency
    assert mem.access(0, 0, 0, unit(0), FULL, 4, space="shared").completion_cycle == lat
    r = mem.access(0, 100, 0, unit(0, size=8), FULL, 4, space="shared")
    assert r.completion_cycle == 100 + 1 + lat and r.port_cycles == 2
    r = mem.access(0, 200, 0, unit(0, size=128), FULL, 4, space="shared")
    assert r.completion_cycle == 200 + 31 + lat
    c = mem.counters()
    assert c["shared_bank_conflicts"] == 1 + 31 and c["shared_accesses"] == 3
    assert c["transactions"] == 0 and c["l1_accesses"] == 0


def test_next_event_cycle():
    mem = MemoryHierarchy(load_config("pascal"))
    assert mem.next_event_cycle() is None
    r = mem.access(0, 0, 0, unit(0), FULL, 4)
    assert mem.next_event_cycle(0) == r.completion_cycle
    assert mem.next_event_cycle(r.completion_cycle) is None


def _random_run(seed):
    cfg = load_config("gtx480")
    mem = MemoryHierarchy(cfg)
    rng = np.random.default_rng(seed)
    out = []
    for cycle in range(0, 3000, 3):
        sm = int(rng.integers(cfg.core.num_sms))
        kind = int(rng.integers(4))
        base = int(rng.integers(0, 1 << 16)) * 4
        addrs = (np.uint64(base) + rng.integers(0, 512, size=32).astype(np.uint64) * np.uint64(4))
        mask = int(rng.integers(1, 1 << 32))
        r = mem.access(sm, cycle, 0, addrs, mask, 4, is_store=kind == 1, is_atomic=kind == 2,
                       space="shared" if kind == 3 else "global")
        out.append((r.ok, r.completion_cycle, r.retry_cycle))
    return out, mem.counters()


def test_deterministic():
    a = _random_run(SEED)
    assert a == _random_run(SEED)
    assert a[0] != _random_run(SEED + 1)[0]
    assert set(a[1]) == set(COUNTER_NAMES)


def test_errors():
    mem = MemoryHierarchy(load_config("pascal"))
    with pytest.raises(SimtlabError, match="space"):
        mem.access(0, 0, 0, unit(0), FULL, 4, space="texture")
    with pytest.raises(SimtlabError, match="sm_id"):
        mem.access(99, 0, 0, unit(0), FULL, 4)
    with pytest.raises(SimtlabError, match="shape"):
        mem.access(0, 0, 0, unit(0, n=16), FULL, 4)
    with pytest.raises(ConfigError, match="line_bytes"):
        MemoryHierarchy(load_config("pascal", {"memory.l1.line_bytes": 64}))


def test_no_l1_config_goes_to_l2():
    mem = MemoryHierarchy(load_config("gtx480", {"memory.l1.size_bytes": 0}))
    r1 = mem.access(0, 0, 0, unit(0), FULL, 4)
    r2 = mem.access(0, r1.completion_cycle, 0, unit(0), FULL, 4)
    c = mem.counters()
    assert c["l1_hits"] == 0 and c["l2_hits"] == 2 and c["l2_misses"] == 2
