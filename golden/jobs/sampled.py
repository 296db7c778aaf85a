"""Sampled timing jobs: ``simtlab report ... --sample [launch|tb]`` (issue 68, docs/sampling.md).

A :class:`SampledTimingJob` is a :class:`~golden.jobs.job.TimingJob` run with sampled timing
(:func:`golden.runs.sampled_run.run_sampled_timing_workload` for ``launch``,
:func:`golden.runs.tb_sampled_run.run_tb_sampled_timing_workload` for ``tb``). Its key is
the timing job's key followed by ``/sampled-<level>-s<sample seed>``, so a sampled result
is stored apart from the full run's and never answers a full-run request, nor a full run a
sampled one. Its result has the fields of a timing job's (estimates: ``cycles`` and every
counter of ``timing`` and ``energy`` are extrapolated) plus ``sampling``: the sampled run's
block (level, units detailed / total, detailed warp-instruction fraction, and the 95%
``intervals`` of cycles, the main counters and the total energy).

:func:`sample_jobs` turns the timing jobs of a set of reports into sampled jobs. A job whose
mechanisms declare that sampling at that level would cut what they must keep whole
(``Mechanism.sampling``; the same rule and text as ``simtlab run --sample``) is **run in
full instead** and listed with the reason, except that the level is a *preference*: at
``tb`` a job whose mechanisms need whole launches (``whole-launch``) but may be sampled at
``launch`` level is sampled at ``launch`` level instead (listed in ``at_launch``), so that
``--sample tb`` still samples most of a report's simulations. A report compares mechanisms with a baseline, so
refusing the whole report for one mechanism would leave ``simtlab report all --sample``
nothing to render; the full run is exact, its numbers show no interval, and the report says
which simulations ran in full and why. Jobs of other kinds (functional probes, concurrent
sessions, occupancy tables) are left as they are (they are not timed on the sampled path).

Kept apart from :mod:`golden.jobs.job` on purpose: that module is a dependency of every
stored timing result, and full runs must not depend on the sampled runners.
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass, field

from golden.errors import SimtlabError
from golden.jobs.job import TimingJob, output_digest

__all__ = ["LEVELS", "STORED", "SampledTimingJob", "SamplePlan", "refusal", "sample_jobs"]

#: sampling levels: ``launch`` = a sample of each group of similar launches, ``tb`` = a
#: sample of the occupancy waves of thread blocks inside each launch
LEVELS = ("launch", "tb")


@dataclass(frozen=True)
class SampledTimingJob:
    """One sampled timing-mode simulation: a workload on a configuration with mechanisms,
    timed on a seeded sample (``level``, ``sample_seed``) and extrapolated."""

    workload: str
    config: str
    size: str = "small"
    seed: int = 0
    mechanisms: tuple = ()
    overrides: tuple = field(default=())
    level: str = "launch"
    sample_seed: int = 0

    def __post_init__(self):
        if self.level not in LEVELS:
            raise SimtlabError(f"sampling level must be one of {', '.join(LEVELS)}, "
                               f"not {self.level!r}")

    @property
    def full(self) -> TimingJob:
        """The full-run job this one samples."""
        return TimingJob(self.workload, self.config, self.size, self.seed,
                         tuple(self.mechanisms), tuple(self.overrides))

    @property
    def key(self) -> str:
        return f"{self.full.key}/sampled-{self.level}-s{self.sample_seed}"

    def run(self) -> dict:
        """Simulate; the record of a timing job plus ``sampling`` (module docstring)."""
        if self.level == "tb":
            from golden.runs.tb_sampled_run import run_tb_sampled_timing_workload as runner
            from golden.timing.tb_sampling import TBSamplingPlan as Plan
        else:
            from golden.runs.sampled_run import run_sampled_timing_workload as runner
            from golden.timing.sampling import SamplingPlan as Plan
        t0, c0 = time.perf_counter(), time.process_time()
        d = runner(self.workload, self.size, self.seed, self.config,
                   mechanisms=tuple(self.mechanisms), plan=Plan(seed=self.sample_seed),
                   overrides=dict(self.overrides) or None, keep_outputs=True)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        return {**asdict(self), "key": self.key, "config_name": d["config"],
                "outputs_match": d["outputs_match"], "output_digest": output_digest(d["outputs"]),
                "launches": d["launches"], "cycles": int(d["cycles"]), "ipc": d["ipc"],
                "timing": d["timing"], "stall_fractions": d["stall_fractions"],
                "energy": d["energy"], "sampling": d["sampling"],
                "wall_seconds": wall, "cpu_seconds": cpu}


def refusal(job: TimingJob, level: str) -> str | None:
    """Why ``job``'s mechanisms may not be sampled at ``level`` (the one-line reason
    ``simtlab run --sample`` gives), or None when they may."""
    if not job.mechanisms:
        return None
    from golden.configs import load_config
    from golden.mechanisms.registry import make_mechanisms
    if level == "tb":
        from golden.runs.tb_sampled_run import check_tb_sampleable as check
    else:
        from golden.runs.sampled_run import check_sampleable as check
    cfg = load_config(job.config, dict(job.overrides) if job.overrides else None)
    try:
        check(make_mechanisms(job.mechanisms, cfg))
    except SimtlabError as e:
        # the reason without the advice meant for `simtlab run` ("; run it without --sample")
        return re.sub(r"; (run it without --sample|use --sample launch .*)$", "", str(e))
    return None


@dataclass
class SamplePlan:
    """The jobs to run for a sampled report and how the reports' own keys find them.

    ``jobs``: the sampled jobs, the refused timing jobs (run in full) and the other kinds
    unchanged; ``alias``: ``{timing job key: key of the job that answers it}``;
    ``in_full``: ``{timing job key: reason it runs in full}``; ``at_launch``: ``{timing
    job key: why it is not sampled at the requested level}`` for the jobs sampled at
    ``launch`` level instead (only with ``level == "tb"``)."""

    level: str
    sample_seed: int
    jobs: list
    alias: dict
    in_full: dict
    at_launch: dict = field(default_factory=dict)

    def level_of(self, key: str) -> str | None:
        """The level the timing job ``key`` was run at: ``tb``, ``launch`` or ``full``
        (None for a key this plan does not know)."""
        if key in self.in_full:
            return "full"
        if key in self.at_launch:
            return "launch"
        return self.level if key in self.alias else None

    def view(self, results: dict) -> dict:
        """``results`` (by the keys of :attr:`jobs`) as the reports look them up (by their
        timing jobs' keys): each timing job's key names its sampled result."""
        out = dict(results)
        for plain, key in self.alias.items():
            if key in results:
                out[plain] = results[key]
        return out

    def refused_lines(self) -> list[str]:
        """One line per distinct reason a set of simulations runs in full."""
        by_reason: dict[str, int] = {}
        for reason in self.in_full.values():
            by_reason[reason] = by_reason.get(reason, 0) + 1
        lines = [f"--sample {self.level}: {n} simulation(s) run in full instead: {reason}"
                 for reason, n in by_reason.items()]
        if self.at_launch:
            lines.append(f"--sample {self.level}: {len(self.at_launch)} simulation(s) sampled "
                         f"at launch level instead (whole launches kept for "
                         f"{', '.join(self.launch_mechanisms())})")
        return lines

    def launch_mechanisms(self) -> list[str]:
        """The mechanism classes whose need for whole launches moved jobs to ``launch``
        level (as the refusal names them: ``mechanism <name> (<Class>)``)."""
        names = {m[1] if (m := re.match(r"[^:]*: mechanism \S+ \((\w+)\)", reason)) else reason
                 for reason in self.at_launch.values()}
        return sorted(names)


#: the reason a timing job runs (is read) in full when its full result is already stored
STORED = "its full run is already stored (exact)"


def sample_jobs(jobs, level: str, sample_seed: int = 0, stored=None) -> SamplePlan:
    """The :class:`SamplePlan` of ``jobs`` at ``level`` (module docstring). ``stored(job)``
    (optional) tells whether a timing job's full result is already in the result cache or
    archive: such a job is kept as it is (exact, nothing to simulate) instead of sampled."""
    if level not in LEVELS:
        raise SimtlabError(f"--sample: level must be one of {', '.join(LEVELS)}, not {level!r}")
    out, alias, in_full, at_launch, seen = [], {}, {}, {}, {}
    memo: dict[tuple, str | None] = {}
    for j in jobs:
        if type(j) is not TimingJob:
            out.append(j)
            continue
        if j.key in seen:
            continue
        if stored is not None and stored(j):
            in_full[j.key] = STORED
            seen[j.key] = j
            out.append(j)
            continue
        mk = (j.config, tuple(j.mechanisms), tuple(j.overrides))
        if mk not in memo:
            memo[mk] = refusal(j, level)
        use = level
        if memo[mk] is not None and level == "tb":
            lk = mk + ("launch",)
            if lk not in memo:
                memo[lk] = refusal(j, "launch")
            if memo[lk] is None:            # the level is a preference (module docstring)
                use = "launch"
                at_launch[j.key] = memo[mk]
        if memo[mk] is not None and use == level:
            in_full[j.key] = memo[(*mk, "launch")] if level == "tb" else memo[mk]
            seen[j.key] = j
            out.append(j)
            continue
        s = SampledTimingJob(j.workload, j.config, j.size, j.seed, tuple(j.mechanisms),
                             tuple(j.overrides), use, sample_seed)
        seen[j.key] = s
        alias[j.key] = s.key
        out.append(s)
    return SamplePlan(level, sample_seed, out, alias, in_full, at_launch)
