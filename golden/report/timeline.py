"""Run a workload with the over-time sampler on (issue 72 item 2): the document behind
``simtlab timeline`` (:mod:`golden.report.timeline_cli`) and its page
(:mod:`golden.report.timeline_render`).

The document is :meth:`golden.timing.timeline.Timeline.to_dict` plus what was run
(workload, size, seed, config, mechanisms), the run's totals (cycles, warp instructions
executed, outputs equal to numpy) and the configuration's SM count and DRAM channels:
their count, each channel's peak bandwidth (bytes per core cycle and GB/s: one burst per
slot, :meth:`golden.configs.schema.DRAMConfig.bytes_per_core_cycle`) and its scheduler-queue
entries.
"""

from __future__ import annotations

from golden.errors import SimtlabError


def timeline_workload(name: str, size: str = "small", seed: int = 0, config: str = "pascal",
                      mechanisms: tuple = (), every: int = 1000) -> dict:
    """Run workload ``name`` in timing mode, sampled every ``every`` cycles; return the
    timeline document (module docstring)."""
    from golden.configs import load_config
    from golden.mechanisms.registry import make_mechanisms
    from golden.timing.stats import TimingStats
    from golden.timing.timeline import Timeline
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry

    w = registry.get(name)
    if size not in w.sizes:
        raise SimtlabError(f"workload {w.name} has no size {size!r}; sizes: {', '.join(w.sizes)}")
    cfg = load_config(config)
    timeline = Timeline(every)
    dev = TimingDevice(cfg, mechanisms=make_mechanisms(tuple(mechanisms), cfg),
                       echo_printf=False)
    dev.gpu.timeline = timeline
    run = registry.run_workload(w, size=size, seed=seed, device=dev)
    total = TimingStats.merged([s.timing for s in run.stats], concurrent=False)
    doc = {"workload": w.name, "size": size, "seed": seed, "config": cfg.name,
           "mechanisms": list(mechanisms), "cycles": total.cycles,
           "instructions_executed": total.instructions_executed,
           "instructions_issued": total.instructions_issued,
           "outputs_match": not run.mismatches(), "num_sms": cfg.core.num_sms,
           "dram_channels": cfg.memory.dram.channels,
           "dram_peak_bytes_per_cycle_per_channel":
               cfg.memory.dram.bytes_per_core_cycle(cfg.core.clock_mhz),
           "dram_peak_gb_per_s_per_channel": cfg.peak_dram_gb_per_s / cfg.memory.dram.channels,
           "dram_queue_entries": cfg.memory.dram.request_queue_entries}
    doc.update(timeline.to_dict())
    return doc
