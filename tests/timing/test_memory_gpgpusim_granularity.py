"""GPGPU-Sim's memory-request granularity and write-miss policy, as options of our memory
model (issue 67 item 9, docs/gtx480-audit.md):

* ``memory.l1.fetch_line`` / ``memory.l2.fetch_line``: a line cache's miss fetches the
  whole line (GPGPU-Sim 3.x ``N`` caches);
* ``memory.l2.dram_sector_requests``: every missing sector is its own DRAM request
  (GPGPU-Sim 4's sectored ``S`` L2);
* ``memory.l2.write_miss: write_allocate``: a write miss is sent on to DRAM and the line
  is read (GPGPU-Sim 3.x ``W``);
* ``memory.dram.bank_groups`` / ``tCCDL``: column commands to one bank group are tCCDL
  apart.

Expected values come from the formulas in golden/timing/memory/{l1,l2,dram}.py.
"""

from dataclasses import replace

import numpy as np
import pytest

from golden.configs.loader import load_config
from golden.timing.memory import MemoryHierarchy
from golden.timing.memory.dram import DRAM
from golden.timing.memory.dram_bank import DRAMTiming
from golden.timing.memory.l2 import L2Cache

LINE, SECTOR = 128, 32


@pytest.fixture(scope="module")
def base():
    """gtx480 with every option of this file off (each test turns on the one it tests)."""
    return load_config("gtx480", {
        "memory.l1.fetch_line": False, "memory.l2.fetch_line": False,
        "memory.l2.dram_sector_requests": False,
        "memory.l2.write_miss": "lazy_fetch_on_read",
        "memory.dram.bank_groups": 1, "memory.dram.tCCDL": 0,
        "memory.dram.interleave_bytes": 0})


def dram_of(cfg, timing=None) -> DRAM:
    d = cfg.memory.dram
    return DRAM(channels=d.channels, banks=d.banks, row_bytes=d.row_bytes, line_bytes=LINE,
                timing=timing or DRAMTiming.from_config(d, cfg.core.clock_mhz),
                latency=d.latency, queue_entries=d.request_queue_entries)


def l2_of(cfg, **kw) -> L2Cache:
    l2 = cfg.memory.l2
    args = dict(size_bytes=l2.size_bytes, assoc=l2.assoc, line_bytes=LINE,
                latency=l2.latency, partitions=l2.partitions,
                bytes_per_cycle_per_partition=l2.bytes_per_cycle_per_partition,
                sector_bytes=SECTOR, dram=dram_of(cfg), mshrs=l2.mshrs,
                mshr_max_merge=l2.mshr_max_merge)
    args.update(kw)
    return L2Cache(**args)


def one_lane_load(mem, addr, cycle=0):
    addrs = np.zeros(32, dtype=np.uint64)
    addrs[0] = addr
    return mem.access(0, cycle, 0, addrs, 1, 4)


def test_l2_line_fetch_reads_the_whole_line_for_one_sector(base):
    sectored, line = l2_of(base), l2_of(base, fetch_line=True)
    sectored.read(0, 0, 0b0001)
    line.read(0, 0, 0b0001)
    assert sectored._dram.read_bytes == SECTOR
    assert line._dram.read_bytes == LINE and line._dram.reads == 1
    # the other sectors arrived with it: a later read of them hits
    t = 10_000
    line.read(t, 0, 0b1110)
    assert line.hits == 1


def test_l2_sector_requests_cost_a_burst_each(base):
    tm = DRAMTiming.from_config(base.memory.dram, base.core.clock_mhz)
    assert tm.bytes_per_burst == 64            # 2 chips x 4 B x burst 8
    one, per_sector = l2_of(base), l2_of(base, dram_sector_requests=True)
    f1 = one.read(0, 0, 0b1111)
    f4 = per_sector.read(0, 0, 0b1111)
    assert one._dram.reads == 1 and per_sector._dram.reads == 4
    assert per_sector._dram.read_bytes == LINE
    # same closed bank: 2 bursts for the line against 4 bursts of a 64 B slot each
    assert f4 - f1 == pytest.approx(2 * tm.slot)


def test_l2_write_allocate_sends_the_write_and_reads_the_line(base):
    lazy = l2_of(base)
    wa = l2_of(base, write_miss="write_allocate", fetch_line=True)
    ack_lazy = lazy.write(0, 0, 0b0011)
    ack_wa = wa.write(0, 0, 0b0011)
    assert lazy._dram.writes == 0 and lazy._dram.reads == 0
    assert wa._dram.writes == 1 and wa._dram.write_bytes == 2 * SECTOR
    assert wa._dram.reads == 1 and wa._dram.read_bytes == LINE
    # the lazy ack leaves after the slice port; the write-allocate ack after DRAM took it
    assert ack_wa > ack_lazy + base.memory.dram.latency
    # the line fills clean: a read after the fill hits, and evicting it writes nothing back
    wa.read(50_000, 0, 0b1111)
    assert wa.hits == 1 and wa.writebacks == 0


def test_bank_groups_space_one_requests_bursts_by_tccdl(base):
    d = base.memory.dram
    flat = DRAMTiming.from_config(d, base.core.clock_mhz)
    grouped = DRAMTiming.from_config(replace(d, bank_groups=4, tCCDL=3), base.core.clock_mhz)
    assert grouped.ccdl > grouped.slot
    e_flat = dram_of(base, flat).read(0, 0, LINE)
    e_grp = dram_of(base, grouped).read(0, 0, LINE)
    assert e_grp - e_flat == pytest.approx(grouped.ccdl - grouped.slot)


def test_bank_groups_let_another_group_go_at_tccd(base):
    d = replace(base.memory.dram, bank_groups=4, tCCDL=3)
    tm = DRAMTiming.from_config(d, base.core.clock_mhz)
    bank_stride = (d.row_bytes // LINE) * d.channels * LINE    # next bank, same channel
    bank0, bank4 = 0, (d.banks // 4) * bank_stride            # groups 0 and 1

    def second_after_first(other):
        dram = dram_of(base, tm)
        dram.read(0, bank0, 64)                  # open both rows
        dram.read(0, other + LINE * d.channels, 64)
        t = 10_000
        a = dram.read(t, bank0, 64)              # two row hits presented together
        b = dram.read(t, other, 64)
        return b - a

    assert second_after_first(bank4) == pytest.approx(tm.slot)      # other group: tCCD
    assert second_after_first(bank0 + 2 * LINE * d.channels) == pytest.approx(tm.ccdl)


def test_l1_line_fetch_requests_every_sector_of_the_line(base):
    sect = MemoryHierarchy(base)
    line = MemoryHierarchy(load_config("gtx480", {
        "memory.l1.fetch_line": True, "memory.l2.fetch_line": False,
        "memory.l2.dram_sector_requests": False, "memory.dram.bank_groups": 1,
        "memory.dram.tCCDL": 0, "memory.dram.interleave_bytes": 0,
        "memory.l2.write_miss": "lazy_fetch_on_read"}))
    one_lane_load(sect, 1 << 20)
    one_lane_load(line, 1 << 20)
    assert sect.counters()["dram_read_bytes"] == SECTOR
    assert line.counters()["dram_read_bytes"] == LINE
    # the neighbouring sector now hits in the L1
    r = one_lane_load(line, (1 << 20) + SECTOR, cycle=100_000)
    assert line.counters()["l1_hits"] == 1
    assert r.completion_cycle == 100_000 + base.memory.l1.hit_latency


def test_l1_port_cycles_space_transactions_and_shared_passes(base):
    """``memory.l1.port_cycles`` = 2 (gtx480: GPGPU-Sim's LD/ST unit takes one access per
    700 MHz core cycle): transaction i of a warp access is looked up at start + 2i, and a
    shared-memory access of k passes completes at start + 2(k - 1) + shared.latency."""
    out = {}
    for pc in (1, 2):
        cfg = load_config("gtx480", {"memory.l1.port_cycles": pc})
        mem = MemoryHierarchy(cfg)
        addrs = (np.arange(32, dtype=np.uint64) % 4) * np.uint64(4096) + np.uint64(1 << 20)
        first = mem.access(0, 0, 0, addrs, (1 << 32) - 1, 4)          # 4 lines miss
        t = first.completion_cycle + 10
        hit = mem.access(0, t, 0, addrs, (1 << 32) - 1, 4)           # 4 lines hit
        assert hit.transactions == 4 and hit.port_cycles == 4 * pc
        assert hit.completion_cycle == t + 3 * pc + cfg.memory.l1.hit_latency
        t2 = hit.completion_cycle + 10
        two_way = (np.arange(32, dtype=np.uint64) * np.uint64(8))   # stride 2 words: 2 passes
        sh = mem.access(0, t2, 0, two_way, (1 << 32) - 1, 4, space="shared")
        assert sh.port_cycles == 2 * pc
        assert sh.completion_cycle == t2 + pc + cfg.memory.shared.latency
        out[pc] = hit.completion_cycle - t
    assert out[2] - out[1] == 3


def test_l1_miss_latency_delays_the_l2_request(base):
    """``memory.l1.miss_latency`` (GPGPU-Sim 4's l1_latency queue, crossed by misses too)
    adds exactly its cycles to an isolated L1 miss."""
    lat = {}
    for ml in (0, 70):
        mem = MemoryHierarchy(load_config("gtx480", {"memory.l1.miss_latency": ml}))
        lat[ml] = one_lane_load(mem, 1 << 20).completion_cycle
    assert lat[70] - lat[0] == 70
