"""Run a workload in *sampled* timing mode (``simtlab run W --mode timing --sample``).

Two passes over the workload, both executing every instruction functionally:

1. a fast functional pass (every launch through the batched functional executor on a
   :class:`SampledTimingDevice` with no launch in detail) records each launch's
   :class:`~golden.timing.sampling.LaunchSignature`;
2. the launches are grouped and a seeded random sample of each group chosen
   (:mod:`golden.timing.sampling`); the workload runs again from the same inputs, the
   chosen launches on the cycle-level model, the others functionally ("fast-forwarded").
   The launch sequence must repeat the first pass's (kernel, grid and block of every
   launch), else the run stops with an error. A kernel with benign races (BFS's visited
   flags) may run a different number of warp instructions under the timing model's warp
   interleaving than functionally; the estimator uses the second pass's counts and the
   record counts such launches (``sampling.instruction_drift_launches``).

Because every launch runs functionally on the same memory, outputs are bit-identical to
a full run. The record has the keys of :func:`golden.runs.timing_workload.run_timing_workload`
plus ``sampling``: ``cycles``, ``timing`` (every counter), ``energy`` are the ratio
estimator's extrapolation, built as ``sum_i w_i * stats_i`` over the detailed launches
(:func:`golden.timing.sampling.launch_weights`), and ``sampling.intervals`` gives the 95%
interval of cycles, the main counters and the total energy.

Mechanisms are checked first: each must declare (:attr:`golden.timing.hooks.Mechanism.sampling`)
a unit that launch sampling keeps whole (any unit up to ``"whole-launch"``); a
``"not-sampleable"`` (or undeclared) mechanism is refused with a one-line error.

Limits (simplifications, stated in every record's ``sampling.limits``): the L2 tags
carried from launch to launch are not updated by fast-forwarded launches (the next
detailed launch sees the L2 of the last detailed one, plus host copies); thread-block
sampling inside a launch is not implemented (a single-launch workload is simulated whole).
"""

from __future__ import annotations

import time

from golden.configs import load_config
from golden.errors import SimtlabError
from golden.host import Kernel
from golden.mechanisms.registry import make_mechanisms
from golden.simt.engine import DEFAULT_MAX_CYCLES, DEFAULT_MAX_INSTRUCTIONS
from golden.timing.hooks import SAMPLING_UNITS
from golden.timing.sampling import (
    LaunchSignature, SamplingPlan, choose_detailed, group_launches, launch_weights,
    ratio_estimate,
)
from golden.timing.stats import TimingStats
from golden.timing.timing_device import TimingDevice, TimingKernel, TimingModule
from golden.workloads import registry

#: sampling units launch-level sampling keeps whole (a launch is simulated whole or not at all)
LAUNCH_SAMPLEABLE = SAMPLING_UNITS[:SAMPLING_UNITS.index("whole-launch") + 1]

#: counters of the merged TimingStats given a 95% interval in ``sampling.intervals``
MAIN_COUNTERS = ("instructions_issued", "instructions_executed", "thread_instructions",
                 "l1_hits", "l1_misses", "l2_hits", "l2_misses", "dram_reads", "dram_writes",
                 "dram_bytes", "shared_accesses")

LIMITS = ("launch-level sampling only (no thread-block sampling inside a launch); L2 tags "
          "are not updated by fast-forwarded launches; intervals assume the detailed "
          "launches are a simple random sample of their group")


def check_sampleable(mechanisms) -> dict:
    """``name -> declared unit`` of every mechanism; a SimtlabError (one line) if one may
    not be launch-sampled."""
    out = {}
    for m in mechanisms:
        unit = getattr(type(m), "sampling", "not-sampleable")
        name = getattr(m, "name", type(m).__name__)
        if unit not in SAMPLING_UNITS:
            raise SimtlabError(f"mechanism {name} ({type(m).__name__}) declares sampling = "
                               f"{unit!r}; expected one of {', '.join(SAMPLING_UNITS)}")
        if unit not in LAUNCH_SAMPLEABLE:
            why = getattr(type(m), "sampling_reason", "")
            raise SimtlabError(f"sampling refused: mechanism {name} ({type(m).__name__}) is "
                               f"{unit} ({why}); run it without --sample")
        out[name] = unit
    return out


class SampledTimingKernel(TimingKernel):
    """A kernel whose launches run in detail (timing model) when their index is in the
    device's ``detailed`` set, else functionally; each launch is checked against the
    device's ``expected`` signatures."""

    def __call__(self, grid, block, args=(), shared_mem: int = 0, observers=(),
                 max_instructions: int | None = None, max_cycles: int | None = None):
        dev = self.module.device
        i = dev.launch_index
        dev.launch_index += 1
        if i in dev.detailed:
            out = super().__call__(grid, block, args, shared_mem, observers,
                                   max_instructions, max_cycles)
            st = out.functional
        else:
            st = Kernel.__call__(self, grid, block, args, shared_mem, observers,
                                 max_instructions, None)
            out = st
        dev.check_launch(i, st)
        return out


class SampledTimingModule(TimingModule):
    kernel_class = SampledTimingKernel


class SampledTimingDevice(TimingDevice):
    """A :class:`TimingDevice` that simulates only the launches whose index (in launch
    order) is in ``detailed`` and runs the others functionally. ``signatures`` collects
    every launch's :class:`LaunchSignature`; ``expected`` (optional) is the sequence a
    previous pass recorded, which this one must repeat."""

    def __init__(self, config, detailed=(), expected=None, **kwargs):
        super().__init__(config, **kwargs)
        self.detailed = frozenset(detailed)
        self.expected = expected
        self.launch_index = 0
        self.signatures: list[LaunchSignature] = []
        #: launches whose warp instructions differ from ``expected``'s (racy kernels)
        self.instruction_drift = 0

    def load_module(self, path=None, code=None) -> SampledTimingModule:
        return SampledTimingModule(path=path, code=code, device=self)

    def check_launch(self, i: int, st) -> None:
        sig = LaunchSignature.from_stats(i, st)
        self.signatures.append(sig)
        if self.expected is None:
            return
        if i >= len(self.expected):
            raise SimtlabError(f"sampled run: launch {i} ({sig.kernel}) did not happen in the "
                               f"functional pass ({len(self.expected)} launches)")
        e = self.expected[i]
        if e.shape != sig.shape:
            raise SimtlabError(f"sampled run: launch {i} differs from the functional pass "
                               f"({sig.kernel} {sig.grid} {sig.block} vs {e.kernel} {e.grid} "
                               f"{e.block})")
        if e.warp_instructions != sig.warp_instructions:
            # a kernel with benign races (BFS's visited flags) runs a different number of
            # instructions under another warp interleaving; outputs still match
            self.instruction_drift += 1


def _weighted_stats(parts: list, weights: list, cfg) -> TimingStats:
    """``sum_i w_i * parts_i`` counter by counter (rounded to integers)."""
    dicts = [p.to_dict() for p in parts]
    out: dict = {}
    for key, v0 in dicts[0].items():
        if key in ("derived", "rf_banks", "warp_size"):
            if key != "derived":
                out[key] = v0
            continue
        if key == "mechanism":
            names = sorted({n for d in dicts for n in d["mechanism"]})
            mech = {}
            for n in names:
                vals = [d["mechanism"].get(n, 0) for d in dicts]
                s = sum(w * v for w, v in zip(weights, vals))
                mech[n] = round(s) if all(isinstance(v, int) for v in vals) else s
            out[key] = mech
        elif isinstance(v0, dict):
            out[key] = {k: round(sum(w * d[key][k] for w, d in zip(weights, dicts)))
                        for k in v0}
        elif isinstance(v0, list):
            out[key] = [round(sum(w * d[key][j] for w, d in zip(weights, dicts)))
                        for j in range(len(v0))]
        else:
            out[key] = round(sum(w * d[key] for w, d in zip(weights, dicts)))
    return TimingStats.from_dict(out)


def run_sampled_timing_workload(name: str, size: str, seed: int, config_name: str,
                                mechanisms: tuple = (), plan: SamplingPlan | None = None,
                                max_cycles: int = DEFAULT_MAX_CYCLES,
                                max_instructions: int = DEFAULT_MAX_INSTRUCTIONS,
                                overrides: dict | None = None, keep_outputs: bool = False) -> dict:
    """Sampled counterpart of :func:`golden.runs.timing_workload.run_timing_workload`:
    the same record, extrapolated, plus a ``sampling`` block (module docstring)."""
    plan = plan or SamplingPlan()
    cfg = load_config(config_name, overrides or None)
    w = registry.get(name) if isinstance(name, str) else name  # or a user Workload
    mechs = make_mechanisms(mechanisms, cfg)
    units = check_sampleable(mechs)
    limits = dict(echo_printf=False, max_cycles=max_cycles, max_instructions=max_instructions)
    t0 = time.perf_counter()
    c0 = time.process_time()
    probe = SampledTimingDevice(cfg, **limits)
    registry.run_workload(w, size=size, seed=seed, device=probe)
    sigs = probe.signatures
    prepass_cpu = time.process_time() - c0
    groups = group_launches(sigs, plan, num_sms=cfg.core.num_sms)
    detailed = choose_detailed(groups, plan)
    chosen = sorted(i for s in detailed for i in s)
    dev = SampledTimingDevice(cfg, detailed=chosen, expected=sigs, mechanisms=mechs, **limits)
    run = registry.run_workload(w, size=size, seed=seed, device=dev)
    wall = time.perf_counter() - t0
    if dev.launch_index != len(sigs):
        raise SimtlabError(f"sampled run: {dev.launch_index} launches, the functional pass "
                           f"made {len(sigs)}")
    bad = run.mismatches()
    x = [st.warp_instructions for st in run.stats]   # this pass's counts (see docstring)
    by_index = {i: st for i, st in enumerate(run.stats) if i in dev.detailed}
    weights = launch_weights(groups, detailed, x)
    order = sorted(by_index)
    total = _weighted_stats([by_index[i].timing for i in order], [weights[i] for i in order], cfg)
    energy = dev.energy_model.compute(total, cfg)
    intervals = {"cycles": ratio_estimate(groups, detailed, x,
                                          {i: by_index[i].timing.cycles for i in order})}
    for c in MAIN_COUNTERS:
        intervals[c] = ratio_estimate(groups, detailed, x,
                                      {i: getattr(by_index[i].timing, c) for i in order})
    intervals["energy_total_j"] = ratio_estimate(
        groups, detailed, x, {i: by_index[i].energy.total for i in order})
    det_insts = sum(x[i] for i in order)
    per_launch = []
    for i, st in enumerate(run.stats):
        if i in dev.detailed:
            d = st.to_dict()
        else:
            d = {"kernel": st.kernel, "grid": list(st.grid), "block": list(st.block),
                 "timing": None, "energy": None, "warp_instructions": st.warp_instructions,
                 "wall_seconds": st.wall_seconds}
        d["detailed"] = i in dev.detailed
        per_launch.append(d)
    sampling = {
        "method": "launch-stratified ratio estimator (groups: kernel, grid, block, "
                  "instruction mix, size; seeded simple random sample per group; auxiliary "
                  "variable: warp instructions)",
        "plan": plan.to_dict(), "unit": "launch",
        "units_total": len(sigs), "units_detailed": len(order), "groups": len(groups),
        "group_members": groups, "detailed_launches": detailed,
        "weights": {str(i): weights[i] for i in order},
        "total_warp_instructions": sum(x), "detailed_warp_instructions": det_insts,
        "detailed_warp_instruction_fraction": det_insts / max(sum(x), 1),
        "mechanism_units": units,
        "prepass_cpu_seconds": prepass_cpu,
        "instruction_drift_launches": dev.instruction_drift,
        "intervals": {k: e.to_dict() for k, e in intervals.items()},
        "limits": LIMITS,
    }
    est_cycles = intervals["cycles"].value
    return {"workload": w.name, "size": size, "seed": seed, "config": cfg.name, "mode": "timing",
            "mechanisms": list(mechanisms),
            "launches": len(run.stats), "outputs_match": not bad, "mismatches": bad[:5],
            "cycles": round(est_cycles), "ipc": total.ipc, "timing": total.to_dict(),
            "stall_fractions": total.stall_fractions(), "energy": energy.to_dict(),
            "energy_text": energy.format(), "wall_seconds": wall,
            "warp_instructions_per_second": sum(x) / max(wall, 1e-9),
            "per_launch": per_launch, "sampling": sampling,
            **({"outputs": run.outputs} if keep_outputs else {})}


def format_sampling(d: dict) -> str:
    """Readable lines of a sampled record's ``sampling`` block."""
    s = d["sampling"]
    return "\n".join(
        [f"  SAMPLED: {s['units_detailed']} of {s['units_total']} launches in detail "
         f"({s['groups']} groups, seed {s['plan']['seed']}); "
         f"{100 * s['detailed_warp_instruction_fraction']:.1f}% of the warp instructions"]
        + interval_lines(s))


def interval_lines(s: dict) -> list[str]:
    """The estimate and 95% interval lines of a sampled record's ``sampling`` block ``s``
    (launch or thread-block sampling), then its limits line."""
    lines = []
    for k in ("cycles", "instructions_executed", "dram_bytes", "energy_total_j"):
        e = s["intervals"][k]
        if e["estimable"]:
            pct = e["half_width_pct"]
            iv = (f"95% interval [{e['low']:,.6g}, {e['high']:,.6g}]"
                  + ("" if pct is None else f" (+-{pct:.2f}%)"))
        else:
            iv = e["note"]
        lines.append(f"    {k:<24}: {e['estimate']:,.6g}  {iv}")
    lines.append(f"  limits: {s['limits']}")
    return lines
