"""A host-API device that runs launches on the cycle-level timing model.

``TimingDevice(config)`` is a :class:`golden.host.Device` whose kernels run through
:class:`golden.timing.gpu.GPU` instead of the batched functional executor. Outputs are
the functional core's (the timing model steps it instruction by instruction), so they
equal a functional-mode run; a launch returns :class:`TimingLaunchStats` (timing
counters, energy report and the functional core's instruction statistics). The drivers
that run a whole workload on it and summarise the run live above, in :mod:`golden.runs`
(:func:`golden.runs.timing_workload.run_timing_workload`)::

    from golden.configs import load_config
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry
    dev = TimingDevice(load_config("pascal"))
    run = registry.run_workload("MM", "small", device=dev)
    print(run.stats[0].timing.cycles, run.stats[0].energy.total)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from golden.errors import SimtlabError
from golden.host import Device, Kernel, RawModule
from golden.simt.engine import DEFAULT_MAX_CYCLES, DEFAULT_MAX_INSTRUCTIONS, FunctionalLaunch
from golden.simt.stats import LaunchStats
from golden.timing.energy import EnergyModel, EnergyReport
from golden.timing.gpu import GPU
from golden.timing.stats import TimingStats


@dataclass
class TimingLaunchStats:
    """What a timing-mode launch returns: ``timing`` counters, ``energy`` report,
    ``functional`` instruction statistics and host ``wall_seconds``."""

    kernel: str
    grid: tuple
    block: tuple
    timing: TimingStats
    energy: EnergyReport
    functional: LaunchStats
    wall_seconds: float

    @property
    def cycles(self) -> int:
        return self.timing.cycles

    @property
    def ipc(self) -> float:
        return self.timing.ipc

    @property
    def warp_instructions(self) -> int:
        """Warp instructions executed by the functional core (same as functional mode)."""
        return self.functional.warp_instructions

    def to_dict(self) -> dict:
        """JSON-ready dictionary of every statistic."""
        return {"kernel": self.kernel, "grid": list(self.grid), "block": list(self.block),
                "timing": self.timing.to_dict(), "energy": self.energy.to_dict(),
                "warp_instructions": self.functional.warp_instructions,
                "wall_seconds": self.wall_seconds}


class TimingKernel(Kernel):
    """A kernel whose launches run on the timing model of its device."""

    def __call__(self, grid, block, args=(), shared_mem: int = 0, observers=(),
                 max_instructions: int | None = None, max_cycles: int | None = None):
        """Simulate the launch; it stops with a DeadlockError after ``max_cycles`` cycles or
        ``max_instructions`` warp instructions (defaults: the device's)."""
        dev = self.module.device
        max_instructions, max_cycles = self.watchdog_limits(max_instructions, max_cycles)
        geo, dyn = self.launch_geometry(grid, block, shared_mem)
        params = self.pack_args(args)
        t0 = time.perf_counter()
        launch = FunctionalLaunch(dev, self.program, geo, params, dyn_shared=dyn,
                                  observers=observers, watchdog=max_instructions)
        timing = dev.gpu.run(launch, max_cycles=max_cycles)
        wall = time.perf_counter() - t0
        launch.stats.wall_seconds = wall
        launch.stats.thread_blocks = geo.num_tbs
        launch.stats.warps = geo.num_tbs * geo.warps_per_tb
        energy = dev.energy_model.compute(timing, dev.config)
        out = TimingLaunchStats(kernel=self.name, grid=geo.grid, block=geo.block, timing=timing,
                                energy=energy, functional=launch.stats, wall_seconds=wall)
        dev.launches.append(out)
        return out


class TimingModule(RawModule):
    """A loaded PTX module whose kernels are :class:`TimingKernel` s."""

    kernel_class = TimingKernel


class TimingDevice(Device):
    """A simulated GPU in timing mode (``mode == "timing"``) for configuration ``config``.

    ``mechanisms`` are :class:`golden.timing.hooks.Mechanism` instances plugged into every
    SM; ``regs_per_thread`` overrides the PTX register count used for occupancy.
    ``max_cycles`` / ``max_instructions``: the watchdogs of every launch (a launch may
    override them); defaults :data:`golden.simt.engine.DEFAULT_MAX_CYCLES` and
    ``DEFAULT_MAX_INSTRUCTIONS``.
    """

    mode = "timing"

    def __init__(self, config, mechanisms=(), regs_per_thread: int | None = None,
                 echo_printf: bool = True, max_cycles: int = DEFAULT_MAX_CYCLES,
                 max_instructions: int = DEFAULT_MAX_INSTRUCTIONS):
        core = config.core
        super().__init__(num_sms=core.num_sms, max_warps_per_sm=core.max_warps_per_sm,
                         max_threads_per_tb=min(1024, core.max_threads_per_sm),
                         echo_printf=echo_printf, max_instructions=max_instructions)
        if isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1:
            raise SimtlabError(f"max_cycles must be a positive integer, got {max_cycles!r}")
        self.max_cycles = max_cycles
        self.config = config
        if core.shared_mem_per_sm < self.max_shared_per_tb:
            self.max_shared_per_tb = core.shared_mem_per_sm
            self.shared_limit_source = f"core.shared_mem_per_sm of {config.name}"
        self.gpu = GPU(config, mechanisms=mechanisms, regs_per_thread=regs_per_thread,
                       max_cycles=max_cycles)
        self.energy_model = EnergyModel(config.energy)

    def host_copied(self, ptr: int, nbytes: int) -> None:
        """Record a host-to-device copy for the next launch's L2 warm-up
        (``idealisations.l2_warm_on_memcpy``)."""
        self.gpu.host_copies.append((int(ptr), int(nbytes)))

    def load_module(self, path=None, code=None) -> TimingModule:
        return TimingModule(path=path, code=code, device=self)
