"""Run a workload with *thread-block sampling* inside each launch
(``simtlab run W --mode timing --sample tb``).

Every launch runs on a :class:`TBSampledGPU`: its dispatcher (:class:`TBSampledKernelRun`)
places the TBs of the detailed units (:func:`golden.timing.tb_sampling.choose_units`) on the
cycle-level model in linear-id order, and runs each skipped unit functionally, at once,
when the dispatch reaches it and an SM has room for its first TB (with the plan's
``warming``, its memory accesses warm the caches: :mod:`golden.timing.functional_warming`).
Every instruction of every TB executes on the same memory, so
outputs are those of a full run; only the timing is sampled. At the dispatch of the first
TB of each detailed unit, the run snapshots every counter (core counters and the memory
hierarchy's) with the cycle and the detailed warp instructions so far: consecutive
snapshots of the middle units give the steady-state intervals of
:func:`golden.timing.tb_sampling.steady_estimate`.

The record has the keys of :func:`golden.runs.timing_workload.run_timing_workload`, every
figure extrapolated (``cycles``, every counter of ``timing``, ``energy``), plus
``sampling`` with ``unit: "thread-block"``, per-launch units detailed / total, the detailed
warp-instruction fraction and ``intervals`` (95%) of cycles, the main counters and the
total energy.

Mechanisms: thread-block sampling keeps TBs whole and every TB resident on an SM is a
detailed one, so it accepts the units ``any``, ``whole-tbs`` and ``whole-waves``
(:data:`golden.timing.hooks.SAMPLING_UNITS`); a ``whole-launch`` or ``not-sampleable``
mechanism (DARSIE, WarpMan, CAPRI, G-Scalar, the set-dueling coarse L1, ...) is refused
with a one-line error that names the launch-level mode instead.
"""

from __future__ import annotations

import time

import numpy as np

from golden.configs import load_config
from golden.errors import SimtlabError
from golden.mechanisms.registry import make_mechanisms
from golden.runs.sampled_run import MAIN_COUNTERS, interval_lines
from golden.simt.engine import DEFAULT_MAX_CYCLES, DEFAULT_MAX_INSTRUCTIONS
from golden.timing.functional_warming import FunctionalWarmer
from golden.timing.gpu import GPU, KernelRun
from golden.timing.hooks import SAMPLING_UNITS
from golden.timing.stats import TimingStats
from golden.timing.tb_sampling import (
    TBSamplingPlan, choose_units, end_block_term, make_units, middle_population,
    steady_estimate, sum_estimates,
)
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry

#: mechanism sampling units thread-block sampling honours (TBs and co-resident sets whole)
TB_SAMPLEABLE = SAMPLING_UNITS[:SAMPLING_UNITS.index("whole-waves") + 1]

LIMITS = ("thread-block sampling: with warming the skipped TBs' accesses update the L1/L2 "
          "tags and DRAM open rows but not MSHRs, queues or bank timing, in the functional "
          "executor's order (without warming they update nothing); the interval assumes "
          "the sampled steady-state intervals are a simple random sample of the middle "
          "units; every interval adds a type-B term of half-width |excess| for the "
          "end block (cool-down and last units), whose drain depends on the sample; "
          "launches with fewer than min_units units (occupancy waves) are simulated whole")


def check_tb_sampleable(mechanisms) -> dict:
    """``name -> declared unit`` of every mechanism; a one-line SimtlabError for one that
    thread-block sampling may not cut (module docstring)."""
    out = {}
    for m in mechanisms:
        unit = getattr(type(m), "sampling", "not-sampleable")
        name = getattr(m, "name", type(m).__name__)
        if unit not in SAMPLING_UNITS:
            raise SimtlabError(f"mechanism {name} ({type(m).__name__}) declares sampling = "
                               f"{unit!r}; expected one of {', '.join(SAMPLING_UNITS)}")
        if unit not in TB_SAMPLEABLE:
            why = getattr(type(m), "sampling_reason", "")
            alt = ("use --sample launch (launches kept whole) or run without --sample"
                   if unit == "whole-launch" else "run it without --sample")
            raise SimtlabError(f"thread-block sampling refused: mechanism {name} "
                               f"({type(m).__name__}) needs {unit} ({why}); {alt}")
        out[name] = unit
    return out


def flatten(d: dict, prefix: str = "") -> dict:
    """``TimingStats.to_dict()`` as ``{"a.b": number}`` (``derived`` and the array sizes
    dropped; lists indexed ``name.0``, ``name.1``, ...)."""
    out = {}
    for k, v in d.items():
        if not prefix and k in ("derived", "rf_banks", "warp_size"):
            continue
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "\x1f"))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                out[f"{key}\x1f#{i}"] = x
        else:
            out[key] = v
    return out


def unflatten(flat: dict, template: dict) -> dict:
    """The inverse of :func:`flatten` on the layout of ``template`` (a ``to_dict()``);
    counters rounded to integers (mechanism counters that are floats stay floats)."""
    def build(t, prefix):
        if isinstance(t, dict):
            return {k: build(v, f"{prefix}{k}\x1f") for k, v in t.items()}
        if isinstance(t, list):
            return [build(x, f"{prefix}#{i}\x1f") for i, x in enumerate(t)]
        v = flat.get(prefix[:-1], 0)
        return v if isinstance(t, float) else max(0, round(v))
    out = {}
    for k, v in template.items():
        if k == "derived":
            continue
        if k in ("rf_banks", "warp_size"):
            out[k] = v
        elif k == "mechanism":
            out[k] = {n: (flat.get(f"mechanism\x1f{n}", 0) if isinstance(x, float)
                          else max(0, round(flat.get(f"mechanism\x1f{n}", 0))))
                      for n, x in v.items()}
        else:
            out[k] = build(v, k + "\x1f")
    return out


class TBSampledKernelRun(KernelRun):
    """A :class:`KernelRun` whose dispatcher skips the units the sample leaves out, running
    them functionally (module docstring); it records a counter snapshot at the dispatch of
    the first TB of every detailed unit."""

    def __init__(self, gpu, launch, sm_ids, config, mechanisms, memory, plan, salt):
        super().__init__(gpu, launch, sm_ids, config, mechanisms, memory)
        self.memory = memory
        wave = len(self.sms) * self.sms[0].occupancy.tbs_per_sm
        self.unit_tbs = plan.unit_waves * wave
        self.units = make_units(self.n_tbs, self.unit_tbs)
        self.detailed_units = choose_units(len(self.units), plan, salt)
        self.plan = plan
        self._detailed = frozenset(self.detailed_units)
        #: (unit, cycle, detailed warp instructions, flattened counters) per detailed unit
        self.boundaries: list[tuple] = []
        self.skipped_instructions = 0
        self.skipped_tbs = 0
        #: replays the skipped TBs' accesses into the tags (None: plan.warming off)
        self.warmer = (FunctionalWarmer(memory, self.n_tbs * self.wpt * 32)
                       if plan.warming else None)

    def _detailed_instructions(self) -> int:
        return self.launch.stats.warp_instructions - self.skipped_instructions

    def _snapshot(self, now: int) -> dict:
        GPU._memory_stats(self.stats, self.memory)
        flat = flatten(self.stats.to_dict())
        flat["cycles"] = now + 1 - self.start
        return flat

    def _fast_forward(self, first: int, end: int) -> None:
        """Run TBs ``first .. end - 1`` functionally (whole TBs, in waves of at most the
        functional executor's wave size), counting their warp instructions. With the plan's
        ``warming`` their memory accesses warm the caches (:attr:`warmer`): TB ``first + k``
        is placed on the ``k``-th SM of the dispatcher's round robin from where it stands,
        which then moves on past them, as if the unit had been dispatched."""
        ln = self.launch
        before = ln.stats.warp_instructions
        per = max(1, ln.max_wave_threads // (self.wpt * 32))
        if self.warmer is not None:
            n = len(self.sms)
            self.warmer.place(range(first, end),
                              (self.sms[(self._rr + k) % n].id for k in range(end - first)))
            self._rr = (self._rr + end - first) % n
            ln.mem_tap = self.warmer
        try:
            for s in range(first, end, per):
                ln._run_wave(ln.make_wave(np.arange(s, min(end, s + per), dtype=np.int64)))
        finally:
            ln.mem_tap = None
            if self.warmer is not None:
                self.warmer.tb_sm.clear()
        self.skipped_instructions += ln.stats.warp_instructions - before
        self.skipped_tbs += end - first
        self.retired += end - first

    def dispatch(self, now: int) -> None:
        full = self.n_tbs
        while self.next_tb < full:
            u = self.next_tb // self.unit_tbs
            first, end = self.units[u]
            if u not in self._detailed:
                # the skipped unit runs when its first TB would be placed (an SM has room),
                # not before: the TBs still resident then issued most of their accesses, so
                # the warmed tags see the skipped accesses after theirs, as a full run does
                if not any(self._fits(sm) for sm in self.sms):
                    return
                self._fast_forward(first, end)
                self.next_tb = end
                continue
            was = self.next_tb
            self.n_tbs = end
            try:
                super().dispatch(now)
            finally:
                self.n_tbs = full
            if was == first and self.next_tb > first:
                self.boundaries.append((u, now, self._detailed_instructions(),
                                        self._snapshot(now)))
            if self.next_tb < end:
                return


class TBSampledGPU(GPU):
    """A :class:`GPU` whose launches run as :class:`TBSampledKernelRun` s; ``runs`` keeps
    each launch's run (its units, sample and snapshots) in launch order."""

    def __init__(self, config, plan: TBSamplingPlan, **kwargs):
        super().__init__(config, **kwargs)
        self.plan = plan
        self.runs: list[TBSampledKernelRun] = []

    def kernel_run(self, launch, memory) -> TBSampledKernelRun:
        kr = TBSampledKernelRun(self, launch, range(self.config.core.num_sms), self.config,
                                self.mechanisms, memory, self.plan, salt=len(self.runs))
        self.runs.append(kr)
        return kr


class TBSampledTimingDevice(TimingDevice):
    """A :class:`TimingDevice` whose launches are thread-block sampled with ``plan``."""

    def __init__(self, config, plan: TBSamplingPlan, mechanisms=(), **kwargs):
        super().__init__(config, mechanisms=mechanisms, **kwargs)
        self.gpu = TBSampledGPU(config, plan, mechanisms=mechanisms,
                                regs_per_thread=kwargs.get("regs_per_thread"),
                                max_cycles=self.max_cycles)


def launch_estimates(kr: TBSampledKernelRun, final: dict, energy_of) -> tuple[dict, dict, dict]:
    """For one launch: the extrapolated flattened counters, ``name -> Estimate`` of cycles,
    the main counters and ``energy_total_j``, and a summary of its sample.
    ``final``: the flattened counters of the sampled run's end (cycles included);
    ``energy_of(flat) -> joules``."""
    units = kr.units
    n_units = len(units)
    # the warm-up units (1 .. warmup_units) and the cool-down units before the last are
    # detailed and counted exactly in the sampled run's totals; they are not part of the
    # sample the ratio is estimated from. The last interval ends where the end block (the
    # cool-down units and the last unit) starts.
    end_block = n_units - 1 - kr.plan.cooldown_units
    middle = [b for b in kr.boundaries if kr.plan.warmup_units < b[0] < end_block]
    tail = [b for b in kr.boundaries if b[0] == end_block]
    seq = middle + tail
    xs = kr.skipped_instructions
    keys = set(final)
    est_flat = dict(final)
    dx_total = 0
    if xs and len(seq) >= 2:
        first, last = seq[0], seq[-1]
        dx_total = last[2] - first[2]
    for k in keys:
        if xs and dx_total > 0:
            dy = seq[-1][3].get(k, 0) - seq[0][3].get(k, 0)
            est_flat[k] = final[k] + dy / dx_total * xs
    pairs = list(zip(seq, seq[1:]))

    # the end block (cool-down units and the last unit) is counted exactly, but its drain
    # depends on the sample: each quantity's excess over its steady ratio there is the
    # width of its type-B term (golden/timing/tb_sampling.py, end_block_term)
    with_end = bool(xs and dx_total > 0 and tail)
    x_end = kr._detailed_instructions() - tail[0][2] if with_end else 0

    def est(key, total, get):
        iv = [(get(b) - get(a), b[2] - a[2]) for a, b in pairs]
        e = steady_estimate(total, iv, xs, middle_population(n_units, kr.plan))
        if not with_end:
            return e, None
        r = (get(seq[-1]) - get(seq[0])) / dx_total
        excess = (total - get(tail[0])) - r * x_end
        return end_block_term(e, excess, floor=total), excess

    estimates, excesses = {}, {}
    estimates["cycles"], excesses["cycles"] = est("cycles", final["cycles"],
                                                  lambda b: b[3]["cycles"])
    for c in MAIN_COUNTERS:
        estimates[c], excesses[c] = est(c, final.get(c, 0), lambda b, c=c: b[3].get(c, 0))
    energies = {id(b): energy_of(b[3]) for b in seq}
    estimates["energy_total_j"], excesses["energy_total_j"] = est(
        "energy", energy_of(final), lambda b: energies[id(b)])
    end = None
    if with_end:
        end = {"first_unit": tail[0][0], "cycles": final["cycles"] - tail[0][3]["cycles"],
               "warp_instructions": x_end, "excess_cycles": excesses["cycles"],
               "excess": excesses}
    info = {"kernel": kr.launch.name, "thread_blocks": kr.n_tbs, "unit_tbs": kr.unit_tbs,
            "units_total": n_units, "units_detailed": len(kr.detailed_units),
            "warmup_units": [u for u in kr.detailed_units
                             if 0 < u <= kr.plan.warmup_units and u < n_units - 1]
            if xs else [],
            "cooldown_units": [u for u in kr.detailed_units
                               if end_block <= u < n_units - 1 and u > kr.plan.warmup_units]
            if xs else [],
            "detailed_units": kr.detailed_units, "skipped_tbs": kr.skipped_tbs,
            "skipped_warp_instructions": xs, "steady_intervals": len(pairs),
            "warming": dict(kr.warmer.counts) if kr.warmer is not None else None,
            "sampled_run_cycles": final["cycles"], "end_block": end,
            "cycles": estimates["cycles"].to_dict()}
    return est_flat, estimates, info


def run_tb_sampled_timing_workload(name: str, size: str, seed: int, config_name: str,
                                   mechanisms: tuple = (), plan: TBSamplingPlan | None = None,
                                   max_cycles: int = DEFAULT_MAX_CYCLES,
                                   max_instructions: int = DEFAULT_MAX_INSTRUCTIONS,
                                   overrides: dict | None = None, keep_outputs: bool = False) -> dict:
    """Thread-block-sampled counterpart of
    :func:`golden.runs.timing_workload.run_timing_workload` (module docstring)."""
    plan = plan or TBSamplingPlan()
    cfg = load_config(config_name, overrides or None)
    w = registry.get(name) if isinstance(name, str) else name
    mechs = make_mechanisms(mechanisms, cfg)
    units = check_tb_sampleable(mechs)
    dev = TBSampledTimingDevice(cfg, plan, mechanisms=mechs, echo_printf=False,
                                max_cycles=max_cycles, max_instructions=max_instructions)
    t0 = time.perf_counter()
    run = registry.run_workload(w, size=size, seed=seed, device=dev)
    wall = time.perf_counter() - t0
    bad = run.mismatches()
    template = run.stats[0].timing.to_dict() if run.stats else None

    def energy_of(flat):
        st = TimingStats.from_dict(unflatten(flat, template))
        return dev.energy_model.compute(st, cfg).total

    flats, per_launch_est, infos = [], [], []
    for kr, st in zip(dev.gpu.runs, run.stats):
        final = flatten(st.timing.to_dict())
        f, e, info = launch_estimates(kr, final, energy_of)
        flats.append(f)
        per_launch_est.append(e)
        infos.append(info)
    total_flat: dict = {}
    for f in flats:
        for k, v in f.items():
            total_flat[k] = total_flat.get(k, 0) + v
    total = TimingStats.from_dict(unflatten(total_flat, template))
    energy = dev.energy_model.compute(total, cfg)
    intervals = {}
    for k in per_launch_est[0]:
        parts = [e[k] for e in per_launch_est]
        floor = sum(p.value for p in parts if p.exact) + sum(
            p.low for p in parts if not p.exact and p.low is not None)
        intervals[k] = sum_estimates(parts, nonnegative_floor=floor)
    x_all = sum(st.warp_instructions for st in run.stats)
    x_skip = sum(kr.skipped_instructions for kr in dev.gpu.runs)
    per_launch = []
    for st, info in zip(run.stats, infos):
        d = st.to_dict()
        d["tb_sampling"] = info
        per_launch.append(d)
    sampling = {
        "method": "thread-block sampling: systematic sample of occupancy-wave units per "
                  "launch (first, warm-up, cool-down and last units always detailed and "
                  "counted exactly), skipped units run functionally; steady-state ratio estimator "
                  "on warp instructions over the sampled middle units",
        "plan": plan.to_dict(), "unit": "thread-block",
        "units_total": sum(i["units_total"] for i in infos),
        "units_detailed": sum(i["units_detailed"] for i in infos),
        "launches_sampled": sum(1 for i in infos if i["skipped_tbs"]),
        "total_warp_instructions": x_all, "detailed_warp_instructions": x_all - x_skip,
        "detailed_warp_instruction_fraction": (x_all - x_skip) / max(x_all, 1),
        "mechanism_units": units,
        "intervals": {k: e.to_dict() for k, e in intervals.items()},
        "limits": LIMITS,
    }
    return {"workload": w.name, "size": size, "seed": seed, "config": cfg.name, "mode": "timing",
            "mechanisms": list(mechanisms),
            "launches": len(run.stats), "outputs_match": not bad, "mismatches": bad[:5],
            "cycles": round(intervals["cycles"].value), "ipc": total.ipc,
            "timing": total.to_dict(), "stall_fractions": total.stall_fractions(),
            "energy": energy.to_dict(), "energy_text": energy.format(), "wall_seconds": wall,
            "warp_instructions_per_second": x_all / max(wall, 1e-9),
            "per_launch": per_launch, "sampling": sampling,
            **({"outputs": run.outputs} if keep_outputs else {})}


def format_tb_sampling(d: dict) -> str:
    """Readable lines of a TB-sampled record's ``sampling`` block, with the sampled
    launches' end-block excess (the width of the cycles' type-B term) beside the estimate."""
    s = d["sampling"]
    ends = [e for e in (pl.get("tb_sampling", {}).get("end_block")
                        for pl in d.get("per_launch", [])) if e]
    lines = interval_lines(s)
    if ends:
        excess = sum(abs(e["excess_cycles"]) for e in ends)
        lines.insert(1, f"    {'end block excess':<24}: {excess:,.0f} cycles in "
                        f"{len(ends)} sampled launch(es), "
                        f"{100 * excess / max(d['cycles'], 1):.2f}% of the estimate "
                        "(in the cycles' interval as a type-B term)")
    return "\n".join(
        [f"  SAMPLED (thread blocks): {s['units_detailed']} of {s['units_total']} units "
         f"(occupancy waves) in detail, {s['launches_sampled']} of {d['launches']} "
         f"launch(es) sampled, seed {s['plan']['seed']}; "
         f"{100 * s['detailed_warp_instruction_fraction']:.1f}% of the warp instructions"]
        + lines)
