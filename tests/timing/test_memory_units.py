"""Unit tests of the memory-side models: coalescer, shared banks, cache tags, MSHRs, DRAM."""

import numpy as np
import pytest

from golden.configs.loader import load_config
from golden.errors import SimtlabError
from golden.timing.memory import (DRAM, BandwidthQueue, Coalescer, MSHRTable, SectorCache,
                                  SharedBanks)
from golden.timing.memory.dram_bank import DRAMTiming

FULL = (1 << 32) - 1
SEED = 20240604


def lanes(stride, base=0x10000, n=32):
    return (np.arange(n, dtype=np.uint64) * np.uint64(stride) + np.uint64(base))


# ------------------------------------------------------------------ coalescer

@pytest.fixture
def co():
    return Coalescer(sector_bytes=32, line_bytes=128)


def test_unit_stride_one_line_four_sectors(co):
    txs = co.coalesce(lanes(4), FULL, 4)
    assert [(t.line_addr, t.sector_mask, t.lane_mask) for t in txs] == [(0x10000, 0b1111, FULL)]


def test_unit_stride_8_bytes_two_lines(co):
    txs = co.coalesce(lanes(8), FULL, 8)
    assert [(t.line_addr, t.sector_mask) for t in txs] == [(0x10000, 0xF), (0x10080, 0xF)]
    assert txs[0].lane_mask == 0xFFFF and txs[1].lane_mask == 0xFFFF0000


def test_strided_one_sector_per_lane(co):
    txs = co.coalesce(lanes(128), FULL, 4)
    assert len(txs) == 32
    assert all(t.sector_mask == 1 for t in txs)
    txs = co.coalesce(lanes(64), FULL, 4)        # two lanes per line, sectors 0 and 2
    assert len(txs) == 16 and all(t.sector_mask == 0b0101 for t in txs)


def test_scattered_matches_reference():
    rng = np.random.default_rng(SEED)
    co = Coalescer(sector_bytes=32, line_bytes=128)
    for _ in range(50):
        addrs = rng.integers(0, 1 << 20, size=32, dtype=np.uint64) & ~np.uint64(3)
        mask = int(rng.integers(0, 1 << 32))
        ref = {}
        for l in range(32):
            if mask >> l & 1:
                a = int(addrs[l])
                ref.setdefault(a // 128 * 128, set()).add((a % 128) // 32)
        got = {t.line_addr: {i for i in range(4) if t.sector_mask >> i & 1}
               for t in co.coalesce(addrs, mask, 4)}
        assert got == ref


def test_partially_active_and_misaligned(co):
    mask = np.zeros(32, bool)
    mask[[0, 31]] = True
    txs = co.coalesce(lanes(4), mask, 4)
    assert [(t.line_addr, t.sector_mask) for t in txs] == [(0x10000, 0b1001)]
    assert co.coalesce(lanes(4), 0, 4) == []
    # a 4-byte access straddling a sector and a line boundary touches both
    txs = co.coalesce(np.full(32, 0x1007E, np.uint64), 1, 4)
    assert [(t.line_addr, t.sector_mask) for t in txs] == [(0x10000, 0b1000), (0x10080, 0b0001)]


def test_coalescer_rejects_bad_input(co):
    with pytest.raises(SimtlabError):
        co.coalesce(lanes(4), FULL, 0)
    with pytest.raises(SimtlabError):
        co.coalesce(lanes(4), np.ones(16, bool), 4)
    with pytest.raises(SimtlabError):
        Coalescer(sector_bytes=48, line_bytes=128)


# ------------------------------------------------------------------ shared banks

@pytest.mark.parametrize("stride_words,cycles", [(1, 1), (2, 2), (4, 4), (32, 32), (33, 1), (0, 1)])
def test_bank_conflicts(stride_words, cycles):
    b = SharedBanks(banks=32, bank_width_bytes=4)
    assert b.cycles(lanes(4 * stride_words, base=0), FULL, 4) == cycles


def test_bank_broadcast_and_atomics():
    b = SharedBanks(banks=32, bank_width_bytes=4)
    same = np.zeros(32, np.uint64)
    assert b.cycles(same, FULL, 4) == 1                                  # broadcast
    assert b.cycles(same, FULL, 4, serialize_same_word=True) == 32      # atomics serialise
    assert b.cycles(lanes(8, base=0), FULL, 8) == 2                      # 64-bit: two wavefronts
    assert b.cycles(lanes(128, base=0), 0b11, 4) == 2                    # only active lanes count
    assert b.cycles(lanes(128, base=0), 0, 4) == 0
    assert SharedBanks(banks=16, bank_width_bytes=4).cycles(lanes(4, base=0), FULL, 4) == 2


# ------------------------------------------------------------------ cache tags and MSHRs

def test_lru_eviction_order():
    c = SectorCache(sets=2, assoc=3, line_bytes=128)
    lines = [i * 2 * 128 for i in range(4)]               # all map to set 0
    for a in lines[:3]:
        assert c.fill(a, 0xF) is None
    assert c.lookup(lines[0], 0xF) == 0                    # touch line 0: line 1 becomes LRU
    assert c.lru_order(lines[0]) == [lines[1], lines[2], lines[0]]
    victim = c.fill(lines[3], 0xF)
    assert victim[0] == lines[1]
    assert c.lookup(lines[1], 0xF) == 0xF                  # evicted -> miss
    assert c.lookup(lines[2], 0b11) == 0
    assert c.fill(128, 1) is None                          # set 1 untouched by set 0 traffic
    assert c.lookup(128, 0b11) == 0b10                     # sector miss in a resident line


def test_dirty_victim_and_disabled_cache():
    c = SectorCache(sets=1, assoc=1, line_bytes=64)
    c.fill(0, 0b11, dirty=True)
    victim = c.fill(64, 1)
    assert victim[0] == 0 and victim[1].dirty == 0b11
    off = SectorCache(sets=0, assoc=4, line_bytes=64)
    assert not off.enabled and off.lookup(0, 0xF) == 0xF and off.fill(0, 0xF) is None


def test_mshr_merge_full_and_release():
    m = MSHRTable(2)
    m.allocate(0x000, 0b01, ready=100)
    m.allocate(0x080, 0b01, ready=120)
    assert m.free == 0
    with pytest.raises(SimtlabError):
        m.allocate(0x100, 1, ready=130)
    e = m.merge(0x000, 0b10, ready=110)                    # extra sector -> later ready
    assert e.sectors == 0b11 and e.ready == 110 and e.merged == 1 and m.in_use == 2
    assert m.next_release() == 110
    assert m.release_until(109) == []
    out = m.release_until(115)
    assert [(a, e.sectors) for a, e in out] == [(0x000, 0b11)]
    assert m.free == 1 and m.next_release() == 120


# ------------------------------------------------------------------ DRAM bandwidth

def make_dram(name, channels=None, queue=None):
    """The DRAM of configuration ``name`` (optionally other channel / queue counts)."""
    cfg = load_config(name)
    d = cfg.memory.dram
    return DRAM(channels=channels or d.channels, banks=d.banks, row_bytes=d.row_bytes,
                line_bytes=cfg.memory.coalescing.line_bytes,
                timing=DRAMTiming.from_config(d, cfg.core.clock_mhz), latency=d.latency,
                queue_entries=queue or d.request_queue_entries), cfg


@pytest.mark.parametrize("name", ["pascal", "gtx480", "gtx285"])
def test_dram_channel_bandwidth(name):
    """Lines streamed into one channel, all presented at once: after the first access the
    bursts follow back to back (row hits, then the next bank opened in the shadow of the
    bursts), so the channel moves bytes_per_burst per slot = the configured peak; with
    bank groups (gtx480: GPGPU-Sim 3.x nbkgrp=4, CCDL=3) the stream stays in one group
    (one bank's row, then the next bank of the same group), so its bursts are tCCDL apart."""
    d, cfg = make_dram(name, channels=4)
    line, n = cfg.memory.coalescing.line_bytes, 400
    done = [d.read(0, i * 4 * line, line) for i in range(n)]       # all on channel 0
    peak = cfg.memory.dram.bytes_per_core_cycle(cfg.core.clock_mhz)
    assert d.bytes_per_cycle_per_channel == pytest.approx(peak)
    tm = d.timing
    if tm.bank_groups > 1 and tm.ccdl > tm.slot:
        peak = tm.bytes_per_burst / tm.ccdl
    first = min(done)
    achieved = (n - 1) * line / (max(done) - first)
    assert achieved == pytest.approx(peak, rel=0.01)
    assert d.reads == n and d.read_bytes == n * line
    c = d.counters()
    # each request hits the open row or opens one; a row holds row_bytes / line lines, and
    # a bank opened a second time is precharged first
    opened = -(-n // (cfg.memory.dram.row_bytes // line))
    assert c["dram_activates"] == opened and c["dram_row_hits"] == n - opened
    assert c["dram_precharges"] == opened - min(opened, cfg.memory.dram.banks)


def test_dram_interleaving_spreads_bandwidth():
    d, cfg = make_dram("pascal")
    line, ch, n = 128, 11, 1100
    done = [d.read(0, i * line, line) for i in range(n)]
    peak = ch * d.bytes_per_cycle_per_channel
    achieved = (n - ch) * line / (max(done) - min(done))
    assert achieved == pytest.approx(peak, rel=0.02)
    assert [d.channel_of(i * line) for i in range(12)] == list(range(11)) + [0]
    # line -> (channel, bank, row, column): 16 lines of a channel share a row, then the
    # next bank (module docstring mapping)
    per_row = cfg.memory.dram.row_bytes // line
    assert d.locate(0) == (0, 0, 0, 0)
    assert d.locate(ch * line) == (0, 0, 0, 1)
    assert d.locate(ch * per_row * line) == (0, 1, 0, 0)
    assert d.locate(ch * per_row * cfg.memory.dram.banks * line + line) == (1, 0, 1, 0)


def test_bandwidth_queue_idle_gap():
    q = BandwidthQueue(32.0)
    assert q.serve(0, 64) == (0.0, 2.0)
    assert q.serve(1, 32) == (2.0, 3.0)     # waits for the busy server
    assert q.serve(10, 32) == (10.0, 11.0)  # idle server starts at arrival


def test_coalescer_matches_a_per_byte_reference_on_random_accesses():
    """The per-lane coalescing loop (compiled in the timing core) and the numpy path for
    wide warps both equal a per-byte reference: every byte a lane touches marks its sector
    and its lane on its line; lines in ascending order."""
    import numpy as np

    from golden.timing.memory.coalescer import Coalescer

    rng = np.random.default_rng(7)

    def reference(addrs, act, size, sector, line):
        lines: dict[int, list[int]] = {}
        for lane, (a, on) in enumerate(zip(addrs.tolist(), act.tolist())):
            for b in range(a, a + size) if on else ():
                e = lines.setdefault(b // line, [0, 0])
                e[0] |= 1 << (b % line) // sector
                e[1] |= 1 << lane
        return [(ln * line, s, m) for ln, (s, m) in sorted(lines.items())]

    for sector, line in ((32, 128), (32, 32), (4, 256), (16, 128)):
        c = Coalescer(sector_bytes=sector, line_bytes=line)
        for i in range(300):
            lanes = 96 if i % 10 == 0 else 32   # > 64 lanes: the numpy path
            size = int(rng.choice([1, 2, 4, 8, 16]))
            base = int(rng.choice([0, 0x10000, 1 << 40]))
            if i % 3 == 0:
                addrs = base + np.arange(lanes, dtype=np.uint64) * np.uint64(size)
            else:
                addrs = base + rng.integers(0, 1 << (12 if i % 3 == 1 else 30), lanes).astype(np.uint64)
            act = rng.random(lanes) < rng.random()
            got = [(t.line_addr, t.sector_mask, t.lane_mask) for t in c.coalesce(addrs, act, size)]
            assert got == reference(addrs, act, size, sector, line), (sector, line, i)
