"""Run one workload on the cycle-level timing model and summarise it
(``simtlab run W --mode timing``).

:func:`run_timing_workload` loads the configuration, makes the named mechanisms
(:mod:`golden.mechanisms.registry`), runs the workload (:mod:`golden.workloads.registry`) on a
:class:`golden.timing.timing_device.TimingDevice` and returns a JSON-ready record: the merged
counters of every launch, energy, per-launch statistics and whether the outputs equal the
numpy references. :func:`format_timing_summary` is that record's readable text. The sampled
drivers (:mod:`golden.runs.sampled_run`, :mod:`golden.runs.tb_sampled_run`) return records
with the same keys.
"""

from __future__ import annotations

import time

from golden.configs import load_config
from golden.mechanisms.registry import make_mechanisms
from golden.simt.engine import DEFAULT_MAX_CYCLES, DEFAULT_MAX_INSTRUCTIONS
from golden.timing.stats import TimingStats
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry


def run_timing_workload(name: str, size: str, seed: int, config_name: str,
                        mechanisms: tuple = (), max_cycles: int = DEFAULT_MAX_CYCLES,
                        max_instructions: int = DEFAULT_MAX_INSTRUCTIONS,
                        pc_profiler=None, on_run=None) -> dict:
    """Run workload ``name`` in timing mode on configuration ``config_name`` with the
    registered ``mechanisms`` (names); return a JSON-ready summary (merged counters of
    every launch, energy, per-launch statistics). ``max_cycles`` / ``max_instructions``:
    the watchdogs of each launch. ``pc_profiler``: a
    :class:`~golden.timing.pc_profile.PCProfiler` attached to the GPU for the run (an
    observer: statistics and outputs are unchanged); ``on_run(workload, config, run)`` is
    called with the finished WorkloadRun before the summary is built."""
    cfg = load_config(config_name)
    w = registry.get(name) if isinstance(name, str) else name  # or a user Workload
    dev = TimingDevice(cfg, mechanisms=make_mechanisms(mechanisms, cfg), echo_printf=False,
                       max_cycles=max_cycles, max_instructions=max_instructions)
    if pc_profiler is not None:
        dev.gpu.pc_profiler = pc_profiler
    t0 = time.perf_counter()
    run = registry.run_workload(w, size=size, seed=seed, device=dev)
    wall = time.perf_counter() - t0
    if on_run is not None:
        on_run(w, cfg, run)
    bad = run.mismatches()
    total = TimingStats.merged([s.timing for s in run.stats], concurrent=False)
    energy = dev.energy_model.compute(total, cfg)
    return {"workload": w.name, "size": size, "seed": seed, "config": cfg.name, "mode": "timing",
            "mechanisms": list(mechanisms),
            "launches": len(run.stats), "outputs_match": not bad, "mismatches": bad[:5],
            "cycles": total.cycles, "ipc": total.ipc, "timing": total.to_dict(),
            "stall_fractions": total.stall_fractions(), "energy": energy.to_dict(),
            "energy_text": energy.format(), "wall_seconds": wall,
            "warp_instructions_per_second": total.instructions_executed / max(wall, 1e-9),
            "per_launch": [s.to_dict() for s in run.stats]}


def format_timing_summary(d: dict) -> str:
    """Readable text of :func:`run_timing_workload`'s summary."""
    t = d["timing"]
    mech = ", ".join(d.get("mechanisms") or ()) or "none (baseline)"
    lines = [f"{d['workload']} ({d['size']}, seed {d['seed']}) on {d['config']}, timing mode: "
             f"{d['launches']} launch(es), mechanisms: {mech}",
             f"  outputs vs numpy reference : {'MATCH' if d['outputs_match'] else 'MISMATCH'}"]
    lines += [f"    {m}" for m in d["mismatches"]]
    lines += [f"  cycles                     : {d['cycles']:,}",
              f"  warp instructions executed : {t['instructions_executed']:,}",
              f"  IPC (warp instr / cycle)   : {d['ipc']:.3f}",
              "  stall breakdown            : " + ", ".join(
                  f"{k} {100 * v:.1f}%" for k, v in d["stall_fractions"].items()),
              "  energy:"]
    lines += ["    " + ln for ln in d["energy_text"].splitlines()]
    lines.append(f"  host time                  : {d['wall_seconds']:.2f} s "
                 f"({d['warp_instructions_per_second']:,.0f} warp-inst/s)")
    return "\n".join(lines)
