"""Validation microbenchmarks of the cycle-level timing model (issue 4 item 8, issue 11).

The measurements live in :mod:`golden.validate.microbench` (also printed by
``simtlab validate``); each kernel's timing follows analytically from the configuration
and these tests assert the model against that formula, on every seed GPU.
"""

import math
from dataclasses import replace

import numpy as np
import pytest

from golden.configs import load_config
from golden.timing.memory.hierarchy import MemoryHierarchy
from golden.validate import microbench as mb

CONFIGS = ["pascal", "gtx480", "gtx285", "fx5800", "gtx280"]


@pytest.fixture(scope="module")
def pascal():
    return load_config("pascal")


@pytest.mark.parametrize("name", CONFIGS)
def test_dependent_alu_chain_costs_fma_latency_per_instruction(name):
    m = mb.dependent_alu_latency(load_config(name))
    assert m.measured == pytest.approx(m.expected, abs=0.1), m


def test_icache_misses_cost_the_configured_miss_latency(pascal):
    """With a real I-cache, each extra 128-byte line of the longer chain costs one miss."""
    real = replace(pascal, idealisations=replace(pascal.idealisations, perfect_icache=False))
    free = replace(real, core=replace(real.core, icache=replace(real.core.icache, miss_latency=0)))

    def args(dev):
        a = np.random.default_rng(mb.SEED).random(32).astype(np.float32)
        return (dev.to_device(a), dev.zeros(32, np.float32), np.float32(0.5), np.float32(0.25))

    _, s64 = mb.run_kernel(free, "alu_chain64", 1, 32, args)
    _, s128 = mb.run_kernel(free, "alu_chain128", 1, 32, args)
    _, m64 = mb.run_kernel(real, "alu_chain64", 1, 32, args)
    _, m128 = mb.run_kernel(real, "alu_chain128", 1, 32, args)
    lines = m128.timing.icache_misses - m64.timing.icache_misses
    assert lines == 64 * 8 // pascal.core.icache.line_bytes
    extra = (m128.cycles - m64.cycles) - (s128.cycles - s64.cycles)
    assert extra == pytest.approx(lines * pascal.core.icache.miss_latency, rel=0.1)
    # the perfect I-cache (GPGPU-Sim's idealisation) never misses
    _, p128 = mb.run_kernel(pascal, "alu_chain128", 1, 32, args)
    assert p128.timing.icache_misses == 0 and p128.timing.icache_hits > 0


def test_independent_alu_reaches_but_never_exceeds_peak_ipc(pascal):
    """Many warps of independent fma: IPC per SM close to the configured limit, never above.

    Pascal as configured is fetch bound (one warp fetched per cycle, two instructions
    each). The variant widens fetch to 4, issues 1 per scheduler and gives the RF 4 ports
    per bank and 32 collector units, so that the 4 ALU pipelines are the limit (with
    GPGPU-Sim's 8 collectors and 2-ported banks, operand collection of the fma's three
    register sources is the limit -- a real effect of the model, not what this measures)."""
    wide = replace(pascal, core=replace(pascal.core, fetch_width=4, issue_width=1),
                   register_file=replace(pascal.register_file, ports_per_bank=4,
                                         collector_units=32))
    for cfg in (pascal, wide):
        m = mb.peak_alu_ipc(cfg)
        assert m.whole_run <= m.expected + 1e-9, m
        assert 0.9 * m.expected <= m.measured <= 1.02 * m.expected, m


@pytest.mark.parametrize("name", ["pascal", "gtx480"])
def test_pointer_chasing_sees_the_memory_models_latency(name):
    """Each dependent load costs the memory model's own isolated latency (L2 hit with a
    warm L2, DRAM with a cold one) plus the SM's pipeline stages."""
    cfg = load_config(name)
    # every chased line must stay in the L2: the chase's 1 MiB buffer (warmed by its host
    # copy) does not fit gtx480's 768 KB, so give the L2 room (its latency does not
    # depend on its capacity)
    l2 = cfg.memory.l2
    big = replace(cfg, memory=replace(cfg.memory, l2=replace(
        l2, size_bytes=l2.size_bytes * (4 if l2.size_bytes < (2 << 20) else 1))))
    m = mb.load_latency(big, "l2")
    assert m.measured == pytest.approx(m.expected, abs=1.0), m
    assert mb.isolated_load_latency(cfg, False) > mb.isolated_load_latency(cfg, True)


def _chase_replay(cfg, start: int, loads: range, overhead: float) -> float:
    """Mean memory-model latency of the chase's loads ``loads``, replayed on an empty
    memory system one after the other: with DRAM banks and rows, a DRAM load's latency
    depends on the row state the earlier loads left (closed bank, row hit or conflict),
    so the isolated latency of one load on an empty system does not fit every load."""
    n_lines, stride = 256, 4096
    order = np.random.default_rng(mb.SEED).permutation(n_lines)
    base = start - int(order[0]) * stride
    mem = MemoryHierarchy(cfg)
    addrs = np.zeros(cfg.core.warp_size, dtype=np.uint64)
    t, lat = 0, []
    for j in range(loads.stop):
        addrs[0] = base + int(order[j % n_lines]) * stride
        done = mem.access(0, t, 0, addrs, 1, 8).completion_cycle
        lat.append(done - t)
        t = done + math.ceil(overhead)
    return float(np.mean(lat[loads.start:loads.stop]))


@pytest.mark.parametrize("name", ["pascal", "gtx480"])
def test_pointer_chasing_to_dram_sees_the_dram_models_latency(name):
    """Cold L2: each dependent load costs what the memory model gives the same sequence of
    loads (row states included) plus the SM's pipeline stages; it lies between a row-hit
    and a row-conflict miss."""
    cfg = replace(load_config(name), idealisations=replace(
        load_config(name).idealisations, l2_warm_on_memcpy=False))
    seen = {}

    def chase(steps):
        inner = mb._chase_args(256, 4096, steps)

        def args(dev):
            out = inner(dev)
            seen["start"] = int(out[0])
            return out
        return mb.run_kernel(cfg, "pointer_chase", 1, 1, args)[1]

    s1, s2 = chase(64), chase(192)
    per_load = (s2.cycles - s1.cycles) / 128
    overhead = mb._chase_overhead(cfg)
    expected = _chase_replay(cfg, seen["start"], range(64, 192), overhead) + overhead
    assert per_load == pytest.approx(expected, abs=1.0), (per_load, expected)
    d = cfg.memory.dram
    k = cfg.core.clock_mhz / d.clock_mhz
    iso = mb.isolated_load_latency(cfg, False)              # a closed bank
    assert iso - d.tRCD * k - 1 <= per_load - overhead <= iso + d.tRP * k + 1
    assert s2.timing.dram_reads - s1.timing.dram_reads == 128
    assert s2.timing.dram_activates > s1.timing.dram_activates


def test_streaming_reaches_configured_dram_bandwidth(pascal):
    """A read stream with enough loads in flight moves bytes at the DRAM peak (within 15%)."""
    m = mb.dram_bandwidth(pascal)
    assert m.measured <= m.expected * 1.0001, m
    assert m.measured >= 0.85 * m.expected, m


@pytest.mark.parametrize("stride", [1, 2, 4, 8, 32])
def test_shared_bank_conflicts_scale_with_stride(pascal, stride):
    """Word stride s over 32 four-byte banks is an s-way conflict (s <= 32): s passes/read."""
    m = mb.shared_conflicts(pascal, stride)
    assert m.measured == m.expected == stride


@pytest.mark.parametrize("stride", [1, 2, 32])
def test_shared_bank_conflicts_on_16_banks(stride):
    """GT200's 16 banks: a unit-stride warp access is already 2 passes."""
    m = mb.shared_conflicts(load_config("gtx285"), stride)
    assert m.measured == m.expected == {1: 2, 2: 4, 32: 32}[stride]
