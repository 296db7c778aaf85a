"""MemoryHierarchy: latencies, MSHR merge / reservation fail, bandwidth, write policies."""

import math

import numpy as np
import pytest

from golden.configs.loader import load_config
from golden.errors import ConfigError, SimtlabError
from golden.timing.memory import COUNTER_NAMES, MemoryHierarchy

FULL = (1 << 32) - 1
SEED = 7321


def load_l1(name, overrides=None):
    """``name`` with global loads cached in the L1 (these tests exercise the L1 path;
    Pascal bypasses it by default, tested in test_global_loads_bypass_l1)."""
    return load_config(name, {"memory.l1.cache_global_loads": True, **(overrides or {})})


def one_lane(addr, n=32):
    a = np.zeros(n, np.uint64)
    a[0] = addr
    return a


def unit(base, n=32, size=4):
    return np.arange(n, dtype=np.uint64) * np.uint64(size) + np.uint64(base)


def l2_round_trip(cfg, nbytes, row=None):
    """Unloaded cycles from the L1 port to the data of an L1 miss of ``nbytes`` (hierarchy
    docstring formula): request network, L2 latency and port, reply network; with ``row``
    ("hit", "closed" or "conflict") also an L2 miss: dram.latency and the bank timing."""
    m = cfg.memory
    ic, l2, d = m.interconnect, m.l2, m.dram
    r = min(ic.sm_port_flits_per_cycle, ic.l2_port_flits_per_cycle)

    def flits(b):
        return math.ceil((ic.header_bytes + b) / ic.flit_bytes)
    t = (ic.latency + flits(0) / r) + l2.latency + nbytes / l2.bytes_per_cycle_per_partition \
        + (ic.latency + flits(nbytes) / r)
    if row is not None:
        k = cfg.core.clock_mhz / d.clock_mhz
        burst = d.burst_length / d.data_rate * k
        slot = max(burst, d.tCCD * k)
        if d.bank_groups > 1:       # one request's bursts are in one bank: tCCDL apart
            slot = max(slot, d.tCCDL * k)
        bursts = math.ceil(nbytes / d.bytes_per_burst)
        device = {"hit": d.tCL, "closed": d.tRCD + d.tCL,
                  "conflict": d.tRP + d.tRCD + d.tCL}[row] * k
        t += d.latency + device + (bursts - 1) * slot + burst
    return math.ceil(t - 1e-9)


def row_state(cfg, open_rows, addr):
    """Open-row bookkeeping with the documented DRAM address mapping: returns "closed",
    "hit" or "conflict" for an access to ``addr`` and records its row as open."""
    d, line = cfg.memory.dram, cfg.memory.coalescing.line_bytes
    ln = addr // line
    k = (d.interleave_bytes or line) // line      # lines per channel chunk
    chunk = ln // k
    local = (chunk // d.channels) * k + ln % k
    per_row = d.row_bytes // line
    key = (chunk % d.channels, (local // per_row) % d.banks)
    row = local // (per_row * d.banks)
    state = "closed" if key not in open_rows else "hit" if open_rows[key] == row else "conflict"
    open_rows[key] = row
    return state


@pytest.mark.parametrize("name", ["pascal", "gtx480", "gtx285", "fx5800"])
def test_pointer_chase_latency(name):
    cfg = load_l1(name)
    mem = MemoryHierarchy(cfg)
    # what one L1 miss of one word fetches: its sector, or the line (memory.l1.fetch_line)
    sector = cfg.memory.coalescing.line_bytes if cfg.memory.l1.fetch_line \
        else cfg.memory.coalescing.sector_bytes
    rng = np.random.default_rng(SEED)
    # distinct lines far apart (no reuse): every load misses L1 and L2
    addrs = (rng.permutation(200)[:40].astype(np.uint64) * np.uint64(1 << 20))
    t = 0
    open_rows: dict = {}
    states = []
    for a in addrs:
        r = mem.access(0, t, 0, one_lane(int(a)), 1, 4)
        states.append(row_state(cfg, open_rows, int(a)))
        assert r.ok and r.completion_cycle - t == l2_round_trip(cfg, sector, states[-1])
        t = r.completion_cycle
    assert "closed" in states and "conflict" in states      # both row-miss kinds occur
    c = mem.counters()
    assert c["l1_misses"] == c["l2_misses"] == c["dram_reads"] == 40
    # L1 hit on the last line, then an L2 hit from another SM (cold L1)
    r = mem.access(0, t, 0, one_lane(int(addrs[-1])), 1, 4)
    assert r.completion_cycle - t == cfg.memory.l1.hit_latency
    r = mem.access(1, t, 0, one_lane(int(addrs[-1])), 1, 4)
    assert r.completion_cycle - t == l2_round_trip(cfg, sector)
    c = mem.counters()
    assert c["dram_activates"] == states.count("closed") + states.count("conflict")
    assert c["dram_precharges"] == states.count("conflict")
    assert c["dram_row_hits"] == states.count("hit")


def test_mshr_merge_same_line():
    cfg = load_l1("pascal")
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
    cfg = load_l1("pascal", {"memory.l1.mshrs": 2})
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
    cfg = load_l1("pascal")
    mem = MemoryHierarchy(cfg)
    mem.access(0, 0, 0, unit(0, size=128), FULL, 4)
    t = 100_000
    mem.access(0, t, 0, unit(0, size=128), FULL, 4)            # 32 L1 hits
    r = mem.access(0, t, 1, unit(0, size=1), FULL, 1)           # hit, waits for the port
    assert r.completion_cycle == t + 32 + cfg.memory.l1.hit_latency


def test_streaming_reaches_dram_bandwidth():
    cfg = load_l1("pascal")
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
    transfer = last - l2_round_trip(cfg, line, "closed")     # minus one unloaded miss
    achieved = total / transfer
    assert abs(achieved - cfg.peak_dram_bytes_per_cycle) <= 0.05 * cfg.peak_dram_bytes_per_cycle


def test_store_write_through_no_allocate_and_l2_write_back():
    # 64-byte lines (WarpMan's GTX480 table; the G-Scalar gtx480 uses GPGPU-Sim's 128 B);
    # the L2's lazy write-allocate (GPGPU-Sim 4's 'L'; gtx480's own 3.x 'W' policy is
    # tested in test_memory_gpgpusim_granularity.py)
    cfg = load_l1("gtx480_warpman", {"memory.l2.size_bytes": 12 * 8 * 64,  # 1 set per slice
                                     "memory.l2.write_miss": "lazy_fetch_on_read"})
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
    stride = cfg.memory.l2.partitions * (cfg.memory.dram.interleave_bytes or 64)  # same slice
    for i in range(1, 20):
        mem.access(1, t + i, 0, one_lane(0x1000 + i * stride), 1, 4)
    mem.access(1, t + 5000, 0, one_lane(0x1000 + 30 * stride), 1, 4)   # retires the fills
    c = mem.counters()
    assert c["l2_writebacks"] >= 1 and c["dram_writes"] == c["l2_writebacks"]
    assert c["dram_write_bytes"] == 64 * c["dram_writes"]


def test_atomics_at_l2_serialise_same_address():
    cfg = load_l1("pascal")
    mem = MemoryHierarchy(cfg)
    warm = mem.access(0, 0, 0, unit(0x2000), FULL, 4)
    t = warm.completion_cycle + 10
    r_same = mem.access(1, t, 0, np.full(32, 0x2000, np.uint64), FULL, 4, is_atomic=True)
    r_dist = mem.access(2, t + 1000, 0, unit(0x2000), FULL, 4, is_atomic=True)
    assert r_same.completion_cycle - t > r_dist.completion_cycle - (t + 1000)
    assert mem.counters()["atomic_serialized_lanes"] == 31
    assert mem.counters()["atomics"] == 2


def test_shared_space_bank_conflicts():
    cfg = load_l1("pascal")
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
    mem = MemoryHierarchy(load_l1("pascal"))
    assert mem.next_event_cycle() is None
    r = mem.access(0, 0, 0, unit(0), FULL, 4)
    assert mem.next_event_cycle(0) == r.completion_cycle
    assert mem.next_event_cycle(r.completion_cycle) is None


def _random_run(seed):
    cfg = load_l1("gtx480")
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
    mem = MemoryHierarchy(load_l1("pascal"))
    with pytest.raises(SimtlabError, match="space"):
        mem.access(0, 0, 0, unit(0), FULL, 4, space="texture")
    with pytest.raises(SimtlabError, match="sm_id"):
        mem.access(99, 0, 0, unit(0), FULL, 4)
    with pytest.raises(SimtlabError, match="shape"):
        mem.access(0, 0, 0, unit(0, n=16), FULL, 4)
    with pytest.raises(ConfigError, match="line_bytes"):
        MemoryHierarchy(load_l1("pascal", {"memory.l1.line_bytes": 64}))


def test_no_l1_config_goes_to_l2():
    mem = MemoryHierarchy(load_l1("gtx480_warpman", {"memory.l1.size_bytes": 0}))  # 64 B lines
    r1 = mem.access(0, 0, 0, unit(0), FULL, 4)
    r2 = mem.access(0, r1.completion_cycle, 0, unit(0), FULL, 4)
    c = mem.counters()
    assert c["l1_hits"] == 0 and c["l2_hits"] == 2 and c["l2_misses"] == 2


def test_global_loads_bypass_l1_when_not_cached():
    """cache_global_loads false (Pascal, GPGPU-Sim -gpgpu_gmem_skip_L1D 1): a repeated
    global load misses to the L2 both times; local loads still use the L1."""
    cfg = load_config("pascal", {"memory.l1.cache_global_loads": False})
    mem = MemoryHierarchy(cfg)
    a = unit(1 << 20)
    r1 = mem.access(0, 0, 0, a, FULL, 4)
    r2 = mem.access(0, r1.completion_cycle + 1, 0, a, FULL, 4)
    c = mem.counters()
    assert c["l1_hits"] == 0 and c["l1_bypasses"] == 2 and c["l2_accesses"] == 2  # 1 line each
    assert r2.completion_cycle - (r1.completion_cycle + 1) > cfg.memory.l1.hit_latency
    r3 = mem.access(0, 10_000, 0, a, FULL, 4, space="local")
    r4 = mem.access(0, r3.completion_cycle + 1, 0, a, FULL, 4, space="local")
    assert r4.completion_cycle - (r3.completion_cycle + 1) == cfg.memory.l1.hit_latency


def test_param_loads_use_the_constant_cache():
    """ld.param of one word by every lane: one constant-cache line; perfect cache hits."""
    for perfect in (False, True):
        cfg = load_config("gtx480", {"idealisations.perfect_const_cache": perfect})
        mem = MemoryHierarchy(cfg)
        a = np.full(32, 16, np.uint64)
        r1 = mem.access(0, 0, 0, a, FULL, 4, space="param")
        r2 = mem.access(0, r1.completion_cycle, 0, a, FULL, 4, space="param")
        hit = cfg.memory.const_cache.hit_latency
        assert r2.completion_cycle - r1.completion_cycle == hit
        assert (r1.completion_cycle == hit) == perfect
        c = mem.counters()
        assert c["const_accesses"] == 2 and c["l1_accesses"] == 0
        assert c["const_misses"] == (0 if perfect else 1)
