"""The stand-ins for WarpMan's ST and RAY show the properties the chapter publishes for
its benchmarks (dissertation ch. 3, Table 5 and §3.3; paper-facts §3.4-§3.5)."""

import dataclasses
import math

import numpy as np

from golden.configs import load_config
from golden.mechanisms.warpman.lifetimes import WarpLifetimes
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry
from golden.workloads.occupancy import occupancy_of, probe_workload

CONFIG = "gtx480_warpman"


def _warp_counts(workload, size="small", sizes=None):
    """Timing run on gtx480_warpman with a one-instruction-bin lifetime recorder:
    (outputs mismatches, {instructions: warps}, summed lifetimes counters)."""
    cfg = load_config(CONFIG)
    w = registry.get(workload)
    if sizes is not None:
        w = dataclasses.replace(w, sizes=sizes)
    run = registry.run_workload(w, size, device=TimingDevice(
        cfg, mechanisms=[WarpLifetimes(cfg, bin=1)]))
    m = {}
    for s in run.stats:
        for k, v in s.timing.mechanism.items():
            m[k] = m.get(k, 0) + v
    counts = {int(k.rsplit(".", 1)[1]): v for k, v in m.items()
              if k.startswith("lifetimes.warp_insts.")}
    return run.mismatches(), counts, m


def _main_kernel(workload, size="small"):
    occ = occupancy_of(probe_workload(workload, size), load_config(CONFIG))
    return max(occ.kernels, key=lambda k: k.warp_instructions)


def test_st_occupancy_is_table5s_one_32_warp_tb_per_sm_limited_by_threads_and_registers():
    k = _main_kernel("ST")
    assert k.threads_per_tb == 1024 and k.shared_per_tb == 0
    assert k.tbs_per_sm == 1 and k.regs_clamped_from == 0
    assert "threads" in k.limiters and "registers" in k.limiters
    # registers alone would also stop a second TB: 2 x 1024 x regs > 32 k (Table 5: 17/thread)
    assert 2 * 1024 * k.regs_per_thread > load_config(CONFIG).core.registers_per_sm


def test_st_paper_input_is_64_tbs():
    w = registry.get("ST")
    p = w.sizes["paper"]
    tbs = math.ceil(p["nx"] / w.tb_dims[0]) * math.ceil(p["ny"] / w.tb_dims[1])
    assert tbs == 64


def test_st_has_two_warp_types_and_most_warps_of_a_tb_finish_early():
    bad, counts, m = _warp_counts("ST")
    assert bad == []
    w = registry.get("ST")
    p = w.sizes["small"]
    short = {n: c for n, c in counts.items() if n < 50}
    long = {n: c for n, c in counts.items() if n >= 50}
    # §3.3: "fewer than 50 instructions or about 1,250" -- no warp in between
    assert min(long) > 10 * max(short)
    n_tbs = m["lifetimes.tbs"]
    assert sum(long.values()) == n_tbs * (p["ny"] - 2)          # interior rows walk z
    assert sum(short.values()) == n_tbs * (32 - (p["ny"] - 2))
    # TB 0: 8 of 32 warps live long (chapter: TB0 RTRU 70.1%, mean 81.7%)
    assert m["lifetimes.tb0_rtru"] > 0.6
    assert m["lifetimes.rtru_sum"] / n_tbs > 0.6


def test_st_long_warps_run_about_1250_instructions_at_the_paper_depth():
    p = dict(registry.get("ST").sizes["paper"], nx=64)     # a 2-TB slice of the paper input
    bad, counts, _ = _warp_counts("ST", "slice", {"slice": p})
    assert bad == []
    long = [n for n in counts if n >= 50]
    assert long and all(1150 <= n <= 1350 for n in long)
    assert all(n < 50 for n in counts if n not in long)


class _WarpInstructions:
    """Functional observer: warp instructions per global warp id, and active lanes."""

    def __init__(self):
        self.per_warp, self.lanes, self.issued = None, 0, 0

    def on_launch_begin(self, launch):
        self.per_warp = np.zeros(launch.geo.num_tbs * 6, np.int64)

    def on_launch_end(self, stats):
        pass

    def on_exec(self, ev):
        np.add.at(self.per_warp, ev.warps, 1)
        self.lanes += int(ev.active.sum())
        self.issued += len(ev.warps)


def test_ray_occupancy_six_warp_tbs_limited_by_registers():
    k = _main_kernel("RAY")
    assert k.threads_per_tb == 192 and k.shared_per_tb == 0 and k.regs_clamped_from == 0
    assert "registers" in k.limiters
    ilp = max(occupancy_of(probe_workload("RAY", "small"), load_config("gtx280_ilp")).kernels,
              key=lambda r: r.warp_instructions)
    assert ilp.tbs_per_sm * 6 <= 16            # ILP chapter: RAY runs <= 16 warps per SM
    assert 192 * k.regs_per_thread > 8192      # and cannot launch with 8 k registers


def test_ray_paper_input_is_512_tbs():
    w = registry.get("RAY")
    p = w.sizes["paper"]
    assert math.ceil(p["width"] / 16) * math.ceil(p["height"] / 12) == 512


def test_ray_warp_work_depends_on_what_the_warp_sees():
    from golden.workloads.observed import run_observed
    obs = _WarpInstructions()
    run = run_observed("RAY", [obs], size="small")
    assert run.mismatches() == []
    n = obs.per_warp
    # §3.3's histogram: most warps cheap (one pass: sky through a gap), many at
    # 1,000-1,500 (a slat: shade, bounce, sky), a few bouncing between mirror spheres
    assert np.mean(n < 500) > 0.4
    assert np.mean((n >= 1000) & (n < 1500)) > 0.25
    assert np.any(n >= 2500)
    # slats and gaps are a few rows high: most TBs mix cheap and expensive warps
    tbs = n.reshape(-1, 6)
    assert np.mean((tbs.min(axis=1) < 500) & (tbs.max(axis=1) >= 1000)) > 0.5
    # CAPRI Table 2 puts RAY in its non-divergent class (91% SIMD utilisation)
    assert obs.lanes / (32 * obs.issued) > 0.85
