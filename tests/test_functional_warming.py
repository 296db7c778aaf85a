"""Functional warming of fast-forwarded TBs (golden/timing/functional_warming.py): the tags a
warmed fast-forward leaves equal those of a full cycle-level run of the same accesses, and a
warmed TB-sampled run keeps outputs and counters honest."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from golden.configs import load_config
from golden.runs.tb_sampled_run import TBSampledGPU, TBSampledKernelRun, TBSampledTimingDevice
from golden.timing.functional_warming import FunctionalWarmer
from golden.timing.memory.hierarchy import MemoryHierarchy
from golden.timing.tb_sampling import TBSamplingPlan
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry

DATA = Path(__file__).parent / "data"

#: saxpy over 30 TBs of 256 threads: less than one occupancy wave on pascal and gtx480, so
#: a full run places TB k on SM k (round robin from SM 0), as the warmer does
SPEC = """kernel: saxpy
grid: 30
block: 256
args:
  - {name: a, value: 2.5, dtype: float32}
  - {name: x, generate: random, dtype: float32, shape: 7680, seed: 1, low: -1.0, high: 1.0}
  - {name: y, generate: arange, dtype: float32, shape: 7680, start: 0.0, step: 0.5}
  - {name: n, value: 7680, dtype: int32}
outputs:
  - {name: y, rtol: 1.0e-6, atol: 1.0e-6}
reference: %s:saxpy
"""


def small_saxpy(tmp_path):
    from golden.workloads.user_kernel import kernel_workload, load_spec
    spec = tmp_path / "saxpy30.yaml"
    spec.write_text(SPEC % (DATA / "user_reference.py"))
    return kernel_workload(DATA / "user_kernels.ptx", load_spec(spec))


class WarmOnlyRun(TBSampledKernelRun):
    """Every TB fast-forwarded with warming (no detailed TB): what the warmer alone does."""

    def dispatch(self, now):
        if self.next_tb < self.n_tbs:
            self._fast_forward(0, self.n_tbs)
            self.next_tb = self.n_tbs


class KeepMemory:
    """Mixin: remember the memory hierarchy of the last launch."""

    def kernel_run(self, launch, memory):
        self.last_memory = memory
        return super().kernel_run(launch, memory)


class WarmOnlyGPU(KeepMemory, TBSampledGPU):
    def kernel_run(self, launch, memory):
        self.last_memory = memory
        kr = WarmOnlyRun(self, launch, range(self.config.core.num_sms), self.config,
                         self.mechanisms, memory, self.plan, salt=0)
        self.runs.append(kr)
        return kr


def l2_state(memory: MemoryHierarchy) -> list[dict]:
    """Per slice: line -> (valid, dirty), pending DRAM fills counted as valid (a full run
    ends with fills the tags have not taken yet)."""
    out = []
    for sl in memory.l2.slices:
        d = {a: [v, dt] for a, v, dt in sl.tags.snapshot()}
        for line, p in sl.pending.items():
            d.setdefault(line, [0, 0])[0] |= p.sectors
        for line, m in sl.dirty_on_fill.items():
            d.setdefault(line, [0, 0])[1] |= m
        out.append({a: tuple(v) for a, v in d.items()})
    return out


def l1_state(memory: MemoryHierarchy) -> list[dict]:
    """Per SM: line -> valid sectors of the L1 tags, MSHR fills still pending included."""
    out = []
    for l1 in memory.l1:
        d = {a: v for a, v, _ in l1.tags.snapshot()}
        for line, e in l1.mshrs._entries.items():
            d[line] = d.get(line, 0) | e.sectors
        out.append(d)
    return out


@pytest.mark.parametrize("config", ["pascal", "gtx480"])
def test_warmed_tags_equal_full_run_tags(tmp_path, config):
    """The same saxpy once on the cycle-level model and once fast-forwarded with warming:
    the L2 (lines, valid and dirty sectors per slice) and every SM's L1 hold the same lines.
    gtx480 caches global loads in L1 with line fetches and write-allocate L2; pascal
    bypasses the L1 with sector fetches and a lazy L2 write miss."""
    w = small_saxpy(tmp_path)
    cfg = load_config(config)
    full = TimingDevice(cfg, echo_printf=False)
    full.gpu.__class__ = type("KeptGPU", (KeepMemory, type(full.gpu)), {})
    registry.run_workload(w, "spec", 0, device=full)
    warm = TBSampledTimingDevice(cfg, TBSamplingPlan(), echo_printf=False)
    warm.gpu.__class__ = WarmOnlyGPU
    run = registry.run_workload(w, "spec", 0, device=warm)
    assert not run.mismatches()
    kr = warm.gpu.runs[0]
    assert kr.skipped_tbs == 30 and kr.warmer.counts["warp_accesses"] == 30 * 8 * 3
    a, b = l2_state(full.gpu.last_memory), l2_state(warm.gpu.last_memory)
    assert sum(len(s) for s in a) > 0
    assert a == b
    l1a, l1b = l1_state(full.gpu.last_memory), l1_state(warm.gpu.last_memory)
    assert l1a == l1b
    if cfg.memory.l1.cache_global_loads:
        assert sum(len(s) for s in l1a) > 0      # the L1 comparison is not vacuous
    # the same DRAM banks were left with a row open (which row depends on the order)
    def open_banks(mem):
        return {(c, k) for c, ch in enumerate(mem.dram.channels)
                for k, b in enumerate(ch.banks) if b.open_row is not None}
    assert open_banks(full.gpu.last_memory) == open_banks(warm.gpu.last_memory)
    # warming moves no counter
    assert warm.gpu.last_memory.counters()["l2_accesses"] == 0


def test_warmer_places_tbs_on_their_sms_l1():
    """A load by a TB placed on SM 3 fills SM 3's L1 only (gtx480 caches global loads)."""
    cfg = load_config("gtx480")
    mem = MemoryHierarchy(cfg)
    wm = FunctionalWarmer(mem, threads=1024)
    addrs = np.arange(32, dtype=np.uint64) * np.uint64(4) + np.uint64(1 << 20)
    wm.warp_access(3, 0, "global", addrs, np.ones(32, dtype=bool), 4, 1, False, False)
    assert [len(l1.tags.snapshot()) for l1 in mem.l1].count(0) == len(mem.l1) - 1
    assert len(mem.l1[3].tags.snapshot()) == 1
    # a store to the line keeps it resident and makes the L2 copy dirty
    wm.warp_access(3, 0, "global", addrs, np.ones(32, dtype=bool), 4, 1, True, False)
    (line, valid, dirty), = [t for s in mem.l2_snapshot() for t in s]
    assert line == 1 << 20 and valid and dirty
    # shared accesses leave no state
    before = mem.l2_snapshot()
    wm.warp_access(0, 0, "shared", addrs, np.ones(32, dtype=bool), 4, 1, False, False)
    assert mem.l2_snapshot() == before


#: saxpy over 1,080 TBs: 12 occupancy waves on gtx480 (15 SMs x 6 TBs), 2.2 MB touched
#: against a 768 KB L2, so the full run's later waves write dirty lines back to DRAM
SPEC12 = SPEC.replace("grid: 30", "grid: 1080").replace("7680", "276480")


def test_warmed_estimate_inside_interval_and_close_where_cold_is_not(tmp_path):
    """Memory-bound saxpy of 12 waves on gtx480: the TB-sampled estimate with warming lies
    within 10% of the full run's cycles and its 95% interval holds them; the same sample
    without warming misses by more than 15%, over twice the warm error (its detailed waves
    never see the dirty L2 the skipped waves leave). Measured when written: full 37,227,
    warm 38,573 (+3.6%), cold 23,334 (-37.3%); with the detailed warm-up unit
    (``warmup_units=1``, units 0, 1, 4, 8, 11 detailed) warm 35,313 (-5.1%, interval
    [16,131, 80,043]). With gtx480's integer mul/mad on the SFU (GPGPU-Sim 3.x routing,
    2026-12-07): full 35,802, warm 35,462 (-0.95%, [21,733, 49,190]), cold 28,313 (-20.9%)."""
    from golden.runs.tb_sampled_run import run_tb_sampled_timing_workload
    from golden.runs.timing_workload import run_timing_workload
    from golden.workloads.user_kernel import kernel_workload, load_spec
    spec = tmp_path / "saxpy12.yaml"
    spec.write_text(SPEC12 % (DATA / "user_reference.py"))
    w = kernel_workload(DATA / "user_kernels.ptx", load_spec(spec))
    full = run_timing_workload(w, "spec", 0, "gtx480")["cycles"]
    warm = run_tb_sampled_timing_workload(w, "spec", 0, "gtx480", plan=TBSamplingPlan(seed=0))
    cold = run_tb_sampled_timing_workload(w, "spec", 0, "gtx480",
                                          plan=TBSamplingPlan(seed=0, warming=False))
    assert warm["outputs_match"] and cold["outputs_match"]
    iv = warm["sampling"]["intervals"]["cycles"]
    assert iv["estimable"] and iv["low"] <= full <= iv["high"], (iv, full)
    assert abs(iv["estimate"] - full) < 0.10 * full, (iv["estimate"], full)
    cold_err, warm_err = abs(cold["cycles"] - full), abs(iv["estimate"] - full)
    assert cold_err > 0.15 * full and cold_err > 2 * warm_err, (cold["cycles"], iv["estimate"], full)
    assert warm["per_launch"][0]["tb_sampling"]["warming"]["l2_fills"] > 0
    assert cold["per_launch"][0]["tb_sampling"]["warming"] is None
