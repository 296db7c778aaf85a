"""DRAM banks and rows, the bounded DRAM queue, FR-FCFS-style row-hit service, bounded L2
MSHRs, the interconnect, and how the memory counters add up.

Expected times are derived from the formulas the modules document
(golden/timing/memory/dram.py, l2.py, interconnect.py), in SM core cycles.
"""

import math

import numpy as np
import pytest

from golden.configs.loader import load_config
from golden.timing.memory import MemoryHierarchy
from golden.timing.memory.dram import DRAM, DRAMChannel
from golden.timing.memory.dram_bank import DRAMTiming
from golden.timing.memory.interconnect import Interconnect
from golden.timing.memory.l2 import L2Cache
from golden.timing.memory.reservation import Calendar

SEED = 918273
FULL = (1 << 32) - 1


@pytest.fixture(scope="module")
def pascal():
    return load_config("pascal")


def timing(cfg) -> DRAMTiming:
    return DRAMTiming.from_config(cfg.memory.dram, cfg.core.clock_mhz)


def dram_of(cfg, **kw) -> DRAM:
    d = cfg.memory.dram
    args = dict(channels=d.channels, banks=d.banks, row_bytes=d.row_bytes,
                line_bytes=cfg.memory.coalescing.line_bytes, timing=timing(cfg),
                latency=d.latency, queue_entries=d.request_queue_entries)
    args.update(kw)
    return DRAM(**args)


def addr_of(cfg, channel, bank, row, column=0):
    """Inverse of the documented mapping (line-interleaved channels, row:bank:column)."""
    d, line = cfg.memory.dram, cfg.memory.coalescing.line_bytes
    per_row = d.row_bytes // line
    local = (row * d.banks + bank) * per_row + column
    return (local * d.channels + channel) * line


# ------------------------------------------------------------------ calendar

def test_calendar_fills_gaps_and_never_moves_bookings():
    c = Calendar()
    assert c.reserve(10, 5) == 10                 # [10, 15)
    assert c.reserve(0, 4) == 0                   # fits before: [0, 4)
    assert c.reserve(0, 8) == 15                  # the gap [4, 10) is too short
    assert c.reserve(3, 6) == 4                   # [4, 10) exactly fits, merges all
    assert c.intervals() == [(0, 23)]
    assert c.reserve(30, 1) == 30 and c.reserve(23, 7) == 23
    assert c.intervals() == [(0, 31)] and c.busy == 31
    c.prune(31)
    assert len(c) == 0 and c.reserve(0, 2) == 0


def test_calendar_matches_a_brute_force_model():
    rng = np.random.default_rng(SEED)
    c = Calendar()
    busy = np.zeros(4000, bool)
    for _ in range(300):
        t, d = int(rng.integers(0, 3000)), int(rng.integers(1, 20))
        s = int(c.reserve(t, d))
        # brute force: first s >= t with busy[s:s+d] all free
        exp = next(x for x in range(t, 4000) if not busy[x:x + d].any())
        assert s == exp
        busy[s:s + d] = True
    assert c.busy == busy.sum()


# ------------------------------------------------------------------ DRAM rows and banks

def test_row_hit_closed_and_conflict_latency(pascal):
    tm = timing(pascal)
    d = dram_of(pascal)
    lat = pascal.memory.dram.latency
    sector = 32                                                    # one burst on Pascal
    assert tm.bytes_per_burst == 32
    k = pascal.core.clock_mhz / pascal.memory.dram.clock_mhz
    assert tm.cl == pytest.approx(16 * k) and tm.burst == pytest.approx(2 * k)
    a0 = addr_of(pascal, 3, 5, 7)
    closed = d.read(0, a0, sector)
    assert closed == pytest.approx(lat + tm.rcd + tm.cl + tm.burst)
    t = 1000.0
    hit = d.read(t, addr_of(pascal, 3, 5, 7, column=1), sector)      # same row
    assert hit - t == pytest.approx(lat + tm.cl + tm.burst)
    t = 2000.0
    conflict = d.read(t, addr_of(pascal, 3, 5, 8), sector)           # other row, same bank
    assert conflict - t == pytest.approx(lat + tm.rp + tm.rcd + tm.cl + tm.burst)
    # a line of 4 sectors = 4 bursts, tCCD apart on the bus
    t = 3000.0
    line = d.read(t, addr_of(pascal, 3, 5, 8, column=2), 128)
    assert line - t == pytest.approx(lat + tm.cl + 3 * tm.slot + tm.burst)
    c = d.counters()
    assert (c["dram_activates"], c["dram_precharges"], c["dram_row_hits"]) == (2, 1, 2)
    assert c["dram_reads"] == 4 and c["dram_read_bytes"] == 3 * 32 + 128


def test_bank_level_parallelism(pascal):
    """n row misses to n different banks overlap their activates (tRRD apart); the same
    n misses to n rows of one bank serialise on tRAS/tRP/tRC."""
    tm = timing(pascal)
    n = 8
    spread = dram_of(pascal)
    ends = [spread.read(0, addr_of(pascal, 0, b, 1), 32) for b in range(n)]
    lat = pascal.memory.dram.latency
    step = max(tm.rrd, tm.slot)
    assert max(ends) == pytest.approx(lat + (n - 1) * step + tm.rcd + tm.cl + tm.burst)
    one_bank = dram_of(pascal)
    ends1 = [one_bank.read(0, addr_of(pascal, 0, 0, r), 32) for r in range(n)]
    # row i+1 opens after row i: precharge at max(data end, activate + tRAS), tRP later,
    # and not before activate + tRC
    act = 0.0
    for _ in range(n - 1):
        pre = max(act + tm.rcd + tm.cl + tm.burst, act + tm.ras)
        act = max(pre + tm.rp, act + tm.rc)
    assert max(ends1) == pytest.approx(lat + act + tm.rcd + tm.cl + tm.burst)
    assert max(ends1) - lat > 3 * (max(ends) - lat)
    assert one_bank.counters()["dram_precharges"] == n - 1
    assert spread.counters()["dram_precharges"] == 0


def test_bounded_queue_delays_entry(pascal):
    """Queue of 2: a third request cannot enter until the first leaves (its last column
    command), so its activate -- and its data -- come later than with a deep queue."""
    tm = timing(pascal)
    line = 128                                               # 4 bursts

    def run(q):
        ch = DRAMChannel(banks=16, timing=tm, queue_entries=q)
        a = ch.access(0.0, 0, 0, line, write=False)
        b = ch.access(0.0, 0, 0, line, write=False)          # row hit behind a
        c = ch.access(0.0, 1, 0, line, write=False)          # another bank
        return ch, a, b, c

    deep, a, b, c_deep = run(64)
    small, a2, b2, c_small = run(2)
    assert (a2, b2) == (a, b)
    assert deep.queue_full_delays == 0 and small.queue_full_delays == 1
    a_last_col = tm.rcd + 3 * tm.slot                        # a's last column command
    assert small.queue_full_cycles == pytest.approx(a_last_col)
    # c enters at a_last_col, activates then (tRRD long past), data tRCD + tCL later,
    # after b's bursts (which end before)
    start = max(a_last_col + tm.rcd + tm.cl, tm.rcd + tm.cl + 8 * tm.slot)
    assert c_small == pytest.approx(start + 3 * tm.slot + tm.burst)
    assert c_small > c_deep
    assert small.waiting(0.0) == 3 and small.waiting(1e9) == 0


def test_row_hit_overtakes_an_older_row_miss_on_the_bus(pascal):
    """FR-FCFS's first-ready part: a row hit presented after a row conflict to another
    bank uses the data bus before the conflict's data (the bus is a calendar)."""
    tm = timing(pascal)
    d = dram_of(pascal)
    lat = pascal.memory.dram.latency
    d.read(0, addr_of(pascal, 0, 1, 3), 32)                  # bank 1: row 3 open
    d.read(0, addr_of(pascal, 0, 2, 5), 32)                  # bank 2: row 5 open
    t = 1000.0
    x = d.read(t, addr_of(pascal, 0, 1, 7), 32)              # conflict on bank 1
    y = d.read(t + 1, addr_of(pascal, 0, 2, 5, 1), 32)       # row hit on bank 2, later
    assert x - t == pytest.approx(lat + tm.rp + tm.rcd + tm.cl + tm.burst)
    assert y - (t + 1) == pytest.approx(lat + tm.cl + tm.burst)
    assert y < x
    # the documented limit: within one bank the older request keeps its promise, so a
    # hit to the row it closed is served after it and reopens that row
    z = d.read(t + 2, addr_of(pascal, 0, 1, 3, 1), 32)
    assert z > x
    c = d.counters()
    assert c["dram_precharges"] == 2 and c["dram_row_hits"] == 1


def test_writes_use_write_latency(pascal):
    tm = timing(pascal)
    d = dram_of(pascal)
    a = addr_of(pascal, 2, 0, 0)
    d.read(0, a, 32)
    t = 500.0
    w = d.write(t, a + pascal.memory.dram.channels * 128, 32)   # same row, next column
    assert w - t == pytest.approx(pascal.memory.dram.latency + tm.wl + tm.burst)
    c = d.counters()
    assert c["dram_writes"] == 1 and c["dram_write_bytes"] == 32 and c["dram_row_hits"] == 1


# ------------------------------------------------------------------ L2 MSHRs

def l2_of(cfg, **kw) -> L2Cache:
    l2 = cfg.memory.l2
    args = dict(size_bytes=l2.size_bytes, assoc=l2.assoc, line_bytes=l2.line_bytes,
                latency=l2.latency, partitions=l2.partitions,
                bytes_per_cycle_per_partition=l2.bytes_per_cycle_per_partition,
                sector_bytes=cfg.memory.coalescing.sector_bytes, dram=dram_of(cfg),
                mshrs=l2.mshrs, mshr_max_merge=l2.mshr_max_merge)
    args.update(kw)
    return L2Cache(**args)


def test_l2_mshr_full_waits_for_earliest_fill(pascal):
    l2 = l2_of(pascal, mshrs=2)
    p = pascal.memory.l2.partitions
    lines = [i * p * 128 for i in range(1, 4)]               # three lines of slice 0
    r = [l2.read(0, ln, 0b1) for ln in lines]
    assert l2.mshr_full_delays == 1
    # the third miss goes to DRAM only when the first fill frees an entry
    ref = l2_of(pascal, mshrs=2)
    fill0 = ref.read(0, lines[0], 0b1)
    assert fill0 == r[0]
    assert r[2] > r[0] + pascal.memory.dram.latency
    # head-of-line: a hit to the slice presented after it waits behind the held port
    l2.slices[0].tags.fill(lines[0] + 4 * p * 128, 0b1)
    hit = l2.read(1, lines[0] + 4 * p * 128, 0b1)
    assert hit >= r[0] + 32 / pascal.memory.l2.bytes_per_cycle_per_partition
    # unbounded MSHRs: no delay
    free = l2_of(pascal, mshrs=64)
    r_free = [free.read(0, ln, 0b1) for ln in lines]
    assert free.mshr_full_delays == 0 and r_free[2] < r[2]


def test_l2_mshr_merge_limit(pascal):
    l2 = l2_of(pascal, mshr_max_merge=2)
    line = 5 * 128
    a = l2.read(0, line, 0b1)
    b = l2.read(1, line, 0b1)                                # merges (2 requests held)
    c = l2.read(2, line, 0b1)                                # entry full: waits for the fill
    assert b == a and l2.merges == 2 and l2.mshr_full_delays == 1
    assert c == a
    assert l2._dram.reads == 1
    # the slice's port was held until the fill
    sl = l2.slices[l2.slice_of(line)]
    assert sl.port.free_at >= a


# ------------------------------------------------------------------ interconnect

def test_interconnect_latency_and_port_bandwidth():
    ic = Interconnect(sms=2, slices=2, latency=10, flit_bytes=40, header_bytes=8,
                      sm_flits_per_cycle=0.5, l2_flits_per_cycle=1.0)
    assert ic.flits_of(0) == 1 and ic.flits_of(32) == 1 and ic.flits_of(33) == 2
    assert ic.flits_of(128) == 4
    # unloaded: t + latency + k / min(rate)
    assert ic.request(0, 0, 100, 0) == pytest.approx(100 + 10 + 1 / 0.5)
    assert ic.reply(1, 1, 200, 128) == pytest.approx(200 + 10 + 4 / 0.5)
    # the SM injection port serialises: 5 one-flit requests at once, 2 cycles apart
    arr = [ic.request(1, 1, 1000, 0) for _ in range(5)]
    assert np.diff(arr) == pytest.approx([2.0] * 4)
    # another SM to another slice is not slowed
    assert ic.request(0, 0, 1000, 0) == pytest.approx(1012)
    # a short reply booked after a long far-future one does not queue behind it
    late = ic.reply(0, 0, 5000, 128)
    early = ic.reply(0, 0, 3000, 0)
    assert early == pytest.approx(3012) and late == pytest.approx(5018)
    assert ic.flits == 1 + 4 + 5 + 1 + 4 + 1 and ic.request_flits == 7


def test_l2_hit_seen_by_the_sm_includes_both_networks(pascal):
    cfg = load_config("gtx480", {"memory.l1.cache_global_loads": True})
    for c in (cfg, load_config("pascal", {"memory.l1.cache_global_loads": True})):
        mem = MemoryHierarchy(c)
        a = np.zeros(32, np.uint64)
        a[0] = 1 << 22
        r0 = mem.access(0, 0, 0, a, 1, 4)                   # miss; fills the L2
        t = r0.completion_cycle + 100
        r1 = mem.access(1, t, 0, a, 1, 4)                   # L2 hit from SM 1
        ic, l2 = c.memory.interconnect, c.memory.l2
        rate = min(ic.sm_port_flits_per_cycle, ic.l2_port_flits_per_cycle)
        req = ic.latency + 1 / rate
        n = c.memory.coalescing.line_bytes if c.memory.l1.fetch_line else 32   # reply data
        rep = ic.latency + math.ceil((ic.header_bytes + n) / ic.flit_bytes) / rate
        exp = req + l2.latency + n / l2.bytes_per_cycle_per_partition + rep
        assert r1.completion_cycle - t == math.ceil(exp - 1e-9)
        # a larger interconnect latency moves the hit by twice the difference
        c2 = load_config(c.name, {"memory.l1.cache_global_loads": True,
                                  "memory.interconnect.latency": ic.latency + 50})
        mem2 = MemoryHierarchy(c2)
        r0 = mem2.access(0, 0, 0, a, 1, 4)
        t2 = r0.completion_cycle + 100
        r2 = mem2.access(1, t2, 0, a, 1, 4)
        assert (r2.completion_cycle - t2) - (r1.completion_cycle - t) == 100


def test_sm_ejection_port_limits_one_sms_streaming():
    """One SM streaming L2 hits is limited by its reply-network ejection port:
    (header + line) bytes per line at sm_port_flits_per_cycle x flit_bytes."""
    cfg = load_config("gtx480", {"memory.l1.cache_global_loads": False,   # no L1 MSHR limit
                                 "memory.interconnect.sm_port_flits_per_cycle": 0.25})
    mem = MemoryHierarchy(cfg)
    n = 200
    base = 1 << 24
    line = cfg.memory.coalescing.line_bytes
    lanes = np.arange(32, dtype=np.uint64) % np.uint64(line // 4) * np.uint64(4)

    def whole_line(i):
        return np.uint64(base + i * line) + lanes
    for i in range(n):                                       # warm the L2 (other SMs)
        mem.access(1 + i % 4, i, 0, whole_line(i), FULL, 4)
    t0 = 100_000
    done = []
    for i in range(n):
        r = mem.access(0, t0 + i, 0, whole_line(i), FULL, 4)
        assert r.ok
        done.append(r.completion_cycle)
    ic = cfg.memory.interconnect
    flits = math.ceil((ic.header_bytes + line) / ic.flit_bytes)
    per_line = flits / ic.sm_port_flits_per_cycle
    assert (done[-1] - done[0]) / (n - 1) == pytest.approx(per_line, rel=0.02)


# ------------------------------------------------------------------ counters add up

@pytest.mark.parametrize("name", ["pascal", "gtx480", "fx5800"])
def test_counters_add_up(name):
    cfg = load_config(name, {"memory.l1.cache_global_loads": True})
    mem = MemoryHierarchy(cfg)
    rng = np.random.default_rng(SEED)
    for cycle in range(0, 6000, 2):
        sm = int(rng.integers(cfg.core.num_sms))
        kind = int(rng.integers(3))
        base = int(rng.integers(0, 1 << 14)) * 64
        addrs = np.uint64(base) + rng.integers(0, 1024, size=32).astype(np.uint64) * np.uint64(4)
        mem.access(sm, cycle, 0, addrs, int(rng.integers(1, 1 << 32)), 4,
                   is_store=kind == 1, is_atomic=kind == 2)
    c = mem.counters()
    assert c["dram_reads"] > 100 and c["dram_writes"] >= 0
    # every DRAM request is a row hit or opens a row; every reopened bank was precharged
    assert c["dram_row_hits"] + c["dram_activates"] == c["dram_reads"] + c["dram_writes"]
    assert c["dram_precharges"] <= c["dram_activates"]
    assert c["dram_bytes"] == c["dram_read_bytes"] + c["dram_write_bytes"]
    assert c["l2_hits"] + c["l2_misses"] == c["l2_accesses"]
    # every L2 access crossed both networks once: a request and a reply packet
    assert mem.icnt.packets == 2 * c["l2_accesses"]
    assert c["icnt_flits"] == mem.icnt.request_flits + mem.icnt.reply_flits
    assert c["icnt_flits"] >= 2 * c["l2_accesses"]
    assert c["dram_queue_full_cycles"] >= 0 and c["dram_queue_full_delays"] >= 0
    assert c["l2_hits"] == c["l2_accesses"] - c["l2_misses"] > 0
    # stats carry the same numbers (GPU._memory_stats)
    from golden.timing.gpu import GPU
    from golden.timing.stats import TimingStats
    st = TimingStats.for_config(cfg)
    GPU._memory_stats(st, mem)
    for k in ("icnt_flits", "dram_activates", "dram_precharges", "dram_row_hits",
              "dram_read_bytes", "dram_write_bytes", "l2_mshr_full_delays",
              "dram_queue_full_delays"):
        assert getattr(st, k) == c[k]
    st.check()


# ------------------------------------------------------------------ chunk interleaving

def chunk_mapping(addr, *, line, interleave, channels, banks, row_bytes):
    """The documented chunk-interleaved mapping, written out as a brute-force reference:
    walk the address space chunk by chunk, handing chunks to channels round-robin and
    filling each channel's rows line by line."""
    k = interleave // line
    chunk = addr // interleave
    channel = chunk % channels
    local = (chunk // channels) * k + (addr // line) % k
    per_row = row_bytes // line
    column = local % per_row
    return channel, (local // per_row) % banks, local // (per_row * banks), column


@pytest.mark.parametrize("interleave", [128, 256, 512, 2048])
def test_chunk_interleaved_channels_follow_the_documented_mapping(pascal, interleave):
    d = dram_of(pascal, interleave_bytes=interleave)
    cfgd, line = pascal.memory.dram, pascal.memory.coalescing.line_bytes
    rng = np.random.default_rng(SEED)
    for addr in [0, line, interleave, interleave * cfgd.channels] + \
            [int(a) for a in rng.integers(0, 1 << 30, size=300)]:
        want = chunk_mapping(addr, line=line, interleave=interleave, channels=cfgd.channels,
                             banks=cfgd.banks, row_bytes=cfgd.row_bytes)
        assert d.locate(addr) == want
        assert d.channel_of(addr) == want[0]


def test_chunk_interleave_of_one_line_is_the_line_interleaved_mapping(pascal):
    """interleave_bytes = line (and the default) is exactly the old line-interleaved map."""
    line = pascal.memory.coalescing.line_bytes
    a, b = dram_of(pascal), dram_of(pascal, interleave_bytes=line)
    for addr in range(0, 1 << 22, 4096 + 128):
        assert a.locate(addr) == b.locate(addr)
        assert a.locate(addr) == (addr // line % pascal.memory.dram.channels,) + \
            a.locate(addr)[1:]


def test_neighbour_lines_of_a_chunk_share_channel_bank_and_row(pascal):
    """With 256 B chunks the two 128 B lines of an aligned pair are one DRAM row's
    neighbours: the second read is a row hit (GPGPU-Sim dramid@8)."""
    line = pascal.memory.coalescing.line_bytes
    d = dram_of(pascal, interleave_bytes=2 * line)
    for base in range(0, 1 << 20, 2 * line * 7):
        ch, bank, row, col = d.locate(base)
        assert d.locate(base + line) == (ch, bank, row, col + 1)
    d.read(0.0, 0, line)
    d.read(0.0, line, line)
    c = d.counters()
    assert c["dram_activates"] == 1 and c["dram_row_hits"] == 1
    lined = dram_of(pascal)
    lined.read(0.0, 0, line)
    lined.read(0.0, line, line)
    assert lined.counters()["dram_activates"] == 2


def test_l2_slices_interleave_like_the_channels_and_index_sets_inside_the_slice(pascal):
    line = pascal.memory.l2.line_bytes
    parts = pascal.memory.l2.partitions
    l2 = l2_of(pascal, interleave_bytes=4 * line)
    for addr in range(0, 1 << 20, 96):
        assert l2.slice_of(addr) == addr // (4 * line) % parts
    # the lines one slice serves fill its sets consecutively: no set is skipped
    sl = l2.slices[0].tags
    served = [c * parts * 4 * line + j * line for c in range(sl.sets) for j in range(4)]
    assert all(l2.slice_of(a) == 0 for a in served)
    assert sorted({sl.set_index(a) for a in served[:sl.sets]}) == list(range(sl.sets))


@pytest.mark.parametrize("bad", [64, 192, 4096 * 4])
def test_bad_interleave_is_a_config_error(bad):
    from golden.errors import ConfigError
    cfg = load_config("pascal", {"memory.dram.interleave_bytes": bad})
    with pytest.raises(ConfigError, match="interleave_bytes"):
        MemoryHierarchy(cfg)
