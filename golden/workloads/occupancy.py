"""Occupancy of the suite's launches on a GPU configuration (``simtlab list --occupancy``).

:func:`probe_workload` runs a workload once in functional mode (fast) and records every
launch: kernel, grid, block, the linked program, shared bytes per TB and warp
instructions executed. :func:`launch_rows` then sizes each launch on a configuration with
the timing model's own occupancy computation (:meth:`golden.timing.gpu.GPU.occupancy`,
i.e. :func:`golden.timing.occupancy.tb_occupancy` with the PTX register estimate and its
``__launch_bounds__`` clamp), so the listing and a timing run agree by construction.

Workloads with several launches (HS's time steps, SR1's five kernels, BFS's levels) are
summarised by their **main waves**: the largest ``w`` such that the launches of at least
``w`` waves execute at least :data:`MAIN_WORK_SHARE` of the workload's warp instructions
(so "main waves >= 2" reads "80% of the work runs in launches of two or more full
waves"). A tiny set-up launch (MQ's ``compute_phi_mag``) or BFS's first and last levels
(a handful of frontier nodes) do not pull it down; a launch that does a real share of the
work does. For a single launch it is that launch's waves.

(The configurations the main job runs a workload on are the reports' business:
:func:`golden.report.main_job.report_configs`.)

Nothing is cached between calls (no global state).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from golden.host import Device, Kernel, RawModule
from golden.simt.engine import FunctionalLaunch

#: share of a workload's warp instructions its main launches execute (see module docstring)
MAIN_WORK_SHARE = 0.8


@dataclass(frozen=True)
class LaunchProbe:
    """One functional launch as the timing model would receive it.

    ``launch`` is the (finished) :class:`FunctionalLaunch`: ``geo``, ``program`` and
    ``shared_bytes`` are what :meth:`GPU.occupancy` reads.
    """

    kernel: str
    launch: FunctionalLaunch
    warp_instructions: int

    @property
    def num_tbs(self) -> int:
        return self.launch.geo.num_tbs


class _ProbeKernel(Kernel):
    """A functional kernel that records each launch into its device's ``probes``."""

    def __call__(self, grid, block, args=(), shared_mem: int = 0, observers=(),
                 max_instructions: int | None = None, max_cycles: int | None = None):
        dev = self.module.device
        max_instructions, _ = self.watchdog_limits(max_instructions, max_cycles)
        geo, dyn = self.launch_geometry(grid, block, shared_mem)
        launch = FunctionalLaunch(dev, self.program, geo, self.pack_args(args),
                                  dyn_shared=dyn, observers=observers,
                                  max_wave_threads=dev.max_wave_threads,
                                  watchdog=max_instructions)
        stats = launch.run()
        dev.launches.append(stats)
        dev.probes.append(LaunchProbe(self.name, launch, stats.warp_instructions))
        return stats


class _ProbeModule(RawModule):
    kernel_class = _ProbeKernel


class ProbeDevice(Device):
    """A functional-mode device that keeps every launch (:class:`LaunchProbe`) in ``probes``."""

    def __init__(self, **kwargs):
        kwargs.setdefault("echo_printf", False)
        super().__init__(**kwargs)
        self.probes: list[LaunchProbe] = []

    def load_module(self, path=None, code=None) -> RawModule:
        return _ProbeModule(path=path, code=code, device=self)


@dataclass
class Probe:
    """Result of :func:`probe_workload`: the launches and whether outputs matched numpy."""

    workload: str
    size: str
    params: dict
    launches: list[LaunchProbe]
    mismatches: list[str]
    wall_seconds: float

    @property
    def warp_instructions(self) -> int:
        return sum(p.warp_instructions for p in self.launches)


def probe_workload(name: str, size: str, seed: int = 0) -> Probe:
    """Run workload ``name`` at ``size`` functionally, recording every launch."""
    from golden.workloads import registry
    w = registry.get(name)
    dev = ProbeDevice()
    t0 = time.perf_counter()
    run = registry.run_workload(w, size=size, seed=seed, device=dev)
    return Probe(w.name, size, dict(run.params), list(dev.probes), run.mismatches(),
                 time.perf_counter() - t0)


@dataclass(frozen=True)
class KernelRow:
    """Occupancy of the launches of one kernel of a workload on one configuration."""

    kernel: str
    launches: int
    threads_per_tb: int
    regs_per_thread: int
    regs_clamped_from: int
    shared_per_tb: int
    tbs_per_sm: int
    limiters: tuple[str, ...]
    tbs_min: int
    tbs_max: int
    waves_min: float
    waves_max: float
    warp_instructions: int


@dataclass(frozen=True)
class WorkloadOccupancy:
    """A workload at one size on one configuration: per-kernel rows and the summary."""

    workload: str
    size: str
    config: str
    num_sms: int
    kernels: tuple[KernelRow, ...]
    main_waves: float
    min_waves: float
    warp_instructions: int

    def to_dict(self) -> dict:
        from dataclasses import asdict
        return asdict(self)


def main_waves(waves: list[float], warp_instructions: list[int],
               share: float = MAIN_WORK_SHARE) -> float:
    """The largest ``w`` such that launches of at least ``w`` waves execute at least
    ``share`` of the warp instructions (``waves[i]``, ``warp_instructions[i]``: launch i).
    0.0 for no launches; with no instructions at all, the fewest waves."""
    if not waves:
        return 0.0
    total = sum(warp_instructions)
    if total <= 0:
        return min(waves)
    done = 0
    for w, n in sorted(zip(waves, warp_instructions), key=lambda t: -t[0]):
        done += n
        if done >= share * total:
            return w
    return min(waves)  # pragma: no cover - float rounding only


def occupancy_of(probe: Probe, config) -> WorkloadOccupancy:
    """Size every launch of ``probe`` on ``config`` (a loaded GPU configuration)."""
    from golden.timing.gpu import GPU
    gpu = GPU(config)
    sms = config.core.num_sms
    occs = [gpu.occupancy(p.launch) for p in probe.launches]
    waves = [o.waves(p.num_tbs, sms) for o, p in zip(occs, probe.launches)]
    rows = []
    for kernel in dict.fromkeys(p.kernel for p in probe.launches):
        idx = [i for i, p in enumerate(probe.launches) if p.kernel == kernel]
        o = occs[idx[0]]
        tbs = [probe.launches[i].num_tbs for i in idx]
        kw = [waves[i] for i in idx]
        rows.append(KernelRow(kernel, len(idx), o.threads_per_tb, o.regs_per_thread,
                              o.regs_clamped_from, o.shared_per_tb, o.tbs_per_sm, o.limiters,
                              min(tbs), max(tbs), min(kw), max(kw),
                              sum(probe.launches[i].warp_instructions for i in idx)))
    return WorkloadOccupancy(probe.workload, probe.size, config.name, sms, tuple(rows),
                             main_waves(waves, [p.warp_instructions for p in probe.launches]),
                             min(waves) if waves else 0.0, probe.warp_instructions)


def format_table(rows: list[WorkloadOccupancy]) -> str:
    """Fixed-width text table of :func:`occupancy_of` results (one line per kernel; a
    workload with several kernels gets an ``(all)`` line with its main waves)."""
    head = (f"{'workload':<8} {'size':<8} {'kernel':<24} {'launch':>6} {'thr/TB':>6} "
            f"{'regs/thr':>8} {'smem/TB':>7} {'TBs/SM':>6} {'limited by':<24} {'TBs/launch':>11} "
            f"{'waves':>11} {'main waves':>10} {'warp inst':>12}")
    lines = [head, "-" * len(head)]
    for r in rows:
        for i, k in enumerate(r.kernels):
            regs = f"{k.regs_per_thread}" + (f"<{k.regs_clamped_from}" if k.regs_clamped_from else "")
            tbs = f"{k.tbs_min}" if k.tbs_min == k.tbs_max else f"{k.tbs_min}-{k.tbs_max}"
            wv = f"{k.waves_min:.2f}" if k.waves_min == k.waves_max else \
                f"{k.waves_min:.2f}-{k.waves_max:.2f}"
            single = len(r.kernels) == 1
            lines.append(
                f"{r.workload if i == 0 else '':<8} {r.size if i == 0 else '':<8} {k.kernel[:24]:<24} "
                f"{k.launches:>6} {k.threads_per_tb:>6} {regs:>8} {k.shared_per_tb:>7} "
                f"{k.tbs_per_sm:>6} {','.join(k.limiters):<24} {tbs:>11} {wv:>11} "
                f"{(f'{r.main_waves:.2f}' if single else ''):>10} {k.warp_instructions:>12,}")
        if len(r.kernels) > 1:
            lines.append(f"{'':<8} {'':<8} {'(all)':<24} {sum(k.launches for k in r.kernels):>6} "
                         f"{'':>6} {'':>8} {'':>7} {'':>6} {'':<24} {'':>11} "
                         f"{f'min {r.min_waves:.2f}':>11} {r.main_waves:>10.2f} "
                         f"{r.warp_instructions:>12,}")
    return "\n".join(lines)
