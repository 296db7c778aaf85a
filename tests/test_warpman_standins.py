"""The stand-ins for WarpMan's ST and RAY show the properties the chapter publishes for
its benchmarks (dissertation ch. 3, Table 5 and §3.3; paper-facts §3.4-§3.5)."""

import dataclasses
import math

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
