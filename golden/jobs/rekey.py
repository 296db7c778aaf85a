"""Verified re-keying: carry stored results across source edits that do not change them.

A stored result is valid while every file it depends on is unchanged
(:mod:`golden.jobs.deps`). An edit that only makes the model faster, or fixes a comment,
changes the dependency map of every job that imports the edited file, so a committed
``paper``-size archive (CPU-days on 2 cores) would be thrown away although its numbers
still hold. ``simtlab cache rekey`` moves such results to today's dependency map, but only
on evidence, never on trust:

1. The stale results of a directory are grouped by what they exercise: for a timing job
   the configuration, the mechanisms with their arguments and the config overrides; for
   any other report job (a concurrent-kernel run, a functional probe, an occupancy or
   locality table) its kind and its fields besides the workload; and in both cases the
   set of dependency files that changed. A result whose own workload files changed (its
   PTX or its workload module) is a group of its own. A group whose results took less
   than ``RERUN_BELOW_CPU_S`` in all is simply simulated again, every member a witness.
2. In each group *witnesses* are chosen to be simulated again on today's source: as
   few results as cover every statistic the group's results count (each nonzero counter
   of the timing record, mechanism counters included, is counted by at least one
   witness), cheapest first by the CPU time they took (a derived result costs its
   observer run's), and at least ``per_group`` of them. A result that alone exercises
   some path of the model (a mechanism event, a stall kind) is therefore always re-run;
   a cheap witness that never takes the changed path cannot vouch for the group alone.
3. Every witness must reproduce its stored result exactly: cycles, every counter, the
   energy report, the output digest (only host times and provenance fields are ignored,
   and the host-dependent fields a job kind lists in its ``HOST_FIELDS``).
4. Then every result of the group gets today's dependency map and a ``rekeyed`` record
   (the commit, the changed files, the witnesses' keys). Witnesses are stored as their new
   runs. A group with a differing witness stays stale (a report simulates it again) and
   the difference is shown.

Evidence, not proof: a change that alters the numbers only where no counted statistic
tells the witnesses apart from the other results passes. ``per_group`` raises the sample; ``per_group=0`` (``--all``) re-simulates every
stale result, which is the same as running the report again. The statistics fixtures
(``tests/fixtures/timing_stats``) are the other half of the evidence: run the test suite
first.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from golden.fileio import write_atomic
from golden.jobs.cache import ResultCache, checked_entry, entries_of, entry_name, read_entry, \
    source_commit
from golden.jobs.deps import DependencyFinder, default_finder, holds, stale_files
from golden.jobs.entries import seal
from golden.jobs.executors import run_jobs
from golden.jobs.job import TimingJob
from golden.jobs.kinds import job_kinds, job_of

#: fields of a result that describe the host or the result's provenance, not the simulation
NOT_SIMULATION = frozenset({"wall_seconds", "cpu_seconds", "from_cache", "simulated_at", "deps",
                            "rekeyed", "derived_from", "checksum"})

__all__ = ["RekeyGroup", "RekeyPlan", "choose_witnesses", "plan_rekey", "rekey",
           "simulation_part", "first_differences",
           "digests_at_commit"]


def simulation_part(result: dict, host_fields: tuple = ()) -> dict:
    """What a result measured (JSON-normalised), without host times and provenance.
    ``host_fields``: dotted paths of further host-dependent fields inside the record (a job
    kind names them in its ``HOST_FIELDS``, e.g. ``row.seconds``), dropped too."""
    out = json.loads(json.dumps({k: v for k, v in result.items() if k not in NOT_SIMULATION},
                                sort_keys=True, default=str))
    for path in host_fields:
        *parents, leaf = path.split(".")
        d = out
        for k in parents:
            d = d.get(k) if isinstance(d, dict) else None
        if isinstance(d, dict):
            d.pop(leaf, None)
    return out


def first_differences(old, new, path: str = "", limit: int = 5) -> list[str]:
    """Up to ``limit`` differing leaves between two JSON trees, as ``path: old -> new``."""
    out: list[str] = []

    def walk(a, b, p):
        if len(out) >= limit:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                walk(a.get(k), b.get(k), f"{p}.{k}" if p else k)
        elif a != b:
            out.append(f"{p}: {a!r} -> {b!r}")

    walk(old, new, path)
    return out


@dataclass
class _Stale:
    path: Path
    entry: dict
    job: object           # a TimingJob or another report job kind
    deps: dict            # today's dependency map
    changed: tuple        # files whose digest differs, appeared or disappeared

    cost: float = 0.0     # CPU seconds a re-run is expected to take

    @property
    def features(self) -> frozenset:
        """The statistics this result counts: paths of nonzero numbers in its timing
        record (``mechanism.capri.bypass_divergent``, ``stalls.memory``...), or for a job
        kind without one, in the fields of its result."""
        out = set()

        def walk(o, p):
            if isinstance(o, dict):
                for k, v in o.items():
                    walk(v, f"{p}.{k}" if p else str(k))
            elif isinstance(o, (int, float)) and not isinstance(o, bool) and o:
                out.add(p)

        timing = self.entry.get("timing")
        if timing is None:     # another job kind: what it measured, beside its own fields
            own = {f.name for f in dataclasses.fields(self.job)}
            timing = {k: v for k, v in self.entry.items()
                      if k not in NOT_SIMULATION and k not in own}
        walk(timing, "")
        return frozenset(out)


@dataclass
class RekeyGroup:
    """Stale results that exercise the same model code, and the witnesses that vouch for
    them."""
    label: str
    changed: tuple
    members: list = field(default_factory=list)
    witnesses: list = field(default_factory=list)

    @property
    def witness_cpu_seconds(self) -> float:
        return sum(m.cost for m in self.witnesses)


@dataclass
class RekeyPlan:
    directory: Path
    valid: int = 0
    other: int = 0                 # entries that are not timing jobs (left alone)
    groups: list = field(default_factory=list)

    @property
    def stale(self) -> int:
        return sum(len(g.members) for g in self.groups)


def _cost(directory: Path, entry: dict) -> float:
    """CPU seconds a re-run of ``entry`` takes: its own, or for a result derived from an
    observer run, the observer's (from the same directory when it is there)."""
    src = entry.get("derived_from")
    if src:
        obs = read_entry(directory / entry_name(src))
        return float((obs or {}).get("cpu_seconds") or 1e9)
    return float(entry.get("cpu_seconds") or 0.0)


def choose_witnesses(members: list, minimum: int = 1) -> list:
    """Greedy cover: repeatedly take the member that counts the most statistics no chosen
    witness counts yet per CPU-second (cheaper first on ties) until every statistic of
    the group is covered, drop witnesses the others cover, then add the cheapest others
    up to ``minimum``."""
    left = sorted(members, key=lambda m: (m.cost, m.job.key))
    uncovered = set().union(*(m.features for m in members)) if members else set()
    chosen = []
    while uncovered and left:
        best = max(left, key=lambda m: (len(m.features & uncovered) / (m.cost + 1.0), -m.cost))
        if not best.features & uncovered:
            break
        chosen.append(best)
        left.remove(best)
        uncovered -= best.features
    # drop witnesses the others cover (the most expensive first)
    for m in sorted(chosen, key=lambda m: (-m.cost, m.job.key)):
        rest = [o for o in chosen if o is not m]
        if rest and m.features <= set().union(*(o.features for o in rest)):
            chosen = rest
            left.append(m)
    left.sort(key=lambda m: (m.cost, m.job.key))
    while len(chosen) < minimum and left:
        chosen.append(left.pop(0))
    return sorted(chosen, key=lambda m: (m.cost, m.job.key))


#: a group whose results took less than this many CPU-seconds in all is simulated again
#: entirely instead of through witnesses (the probes that take a second each, small groups)
RERUN_BELOW_CPU_S = 120.0


def _label(job) -> str:
    """What a group of results has in common besides the workload: the configuration, the
    mechanisms with their arguments and the overrides of a timing job; the kind and the
    other fields of any other job (``ConcurrentJob/gpu=H``), and for a job of several
    kernels how many it runs (``kernels=2``): a kernel alone and a mix of two take
    different paths through a model (a lone kernel may span SMs a mix splits), so one
    cannot vouch for the other."""
    if isinstance(job, TimingJob):
        return f"{job.config}/{'+'.join(job.mechanisms) or 'baseline'}" + "".join(
            f",{k}={v}" for k, v in job.overrides)
    rest = [f"{f.name}={getattr(job, f.name)}" for f in dataclasses.fields(job)
            if f.name not in ("workload", "kernels", "size", "seed")]
    kernels = getattr(job, "kernels", None)
    if kernels is not None:
        rest.append(f"kernels={len(kernels)}")
    return "/".join([type(job).__name__, *rest])


def _own_files(finder: DependencyFinder, job) -> set:
    """The files that belong to the job's workloads alone (definition module and PTX)."""
    names = [getattr(job, "workload", None), *(getattr(job, "kernels", ()) or ())]
    return set().union(*(finder.workload_files(n) for n in names if n)) if any(names) else set()


def plan_rekey(directory: Path | str, per_group: int = 1,
               finder: DependencyFinder | None = None,
               configs: list[str] | None = None,
               rerun_below: float = RERUN_BELOW_CPU_S,
               shared_only: bool = False,
               digest_at=None) -> RekeyPlan:
    """Group the stale results of ``directory`` (every report job kind) and choose each
    group's witnesses (every member when ``per_group`` is 0, or when the whole group took
    less than ``rerun_below`` CPU-seconds). ``configs`` keeps only the results of those
    GPU configs (the others, and jobs without a config, count as ``other`` and are left
    alone). ``shared_only`` keeps only the groups whose changed files are all shared source:
    a result whose own workload files changed (its PTX, module or register file) changed
    for real and is left to a report to simulate again (counted in ``other``).
    ``digest_at`` (a function from a dependency key to that file's digest in an earlier
    source tree, None when the file was not there; :func:`digests_at_commit`) keeps only
    the results that were valid in that tree: every file that changed for them since
    they were stored had the digest they recorded there, so exactly the edits made since
    then made them stale (the others count as ``other``)."""
    directory, finder = Path(directory), finder or default_finder()
    cache = ResultCache(directory, archive=[], finder=finder)
    plan = RekeyPlan(directory)
    groups: dict[tuple, RekeyGroup] = {}
    kinds = job_kinds()
    for p in entries_of(directory):
        entry = checked_entry(p)[0]       # an invalid entry is never carried over
        job = job_of(entry, kinds) if entry is not None else None
        if job is None or not isinstance(entry.get("deps"), dict) \
                or (configs and getattr(job, "config", None) not in configs):
            plan.other += 1
            continue
        today = cache.dependencies(job)
        if today is None:
            plan.other += 1
            continue
        if holds(entry["deps"], today):
            plan.valid += 1
            continue
        changed = stale_files(entry["deps"], today)
        label = _label(job)
        own_changed = bool(_own_files(finder, job) & set(changed))
        if shared_only and own_changed:
            plan.other += 1
            continue
        if digest_at is not None and any(digest_at(k) != entry["deps"].get(k) for k in changed):
            plan.other += 1
            continue
        gkey = (job.key, changed) if own_changed else (label, changed)
        g = groups.get(gkey)
        if g is None:
            g = groups[gkey] = RekeyGroup(label=gkey[0], changed=changed)
        g.members.append(_Stale(p, entry, job, today, changed, _cost(directory, entry)))
    for g in groups.values():
        everyone = per_group <= 0 or sum(m.cost for m in g.members) < rerun_below
        g.witnesses = g.members[:] if everyone else choose_witnesses(g.members, per_group)
    plan.groups = sorted(groups.values(), key=lambda g: g.label)
    return plan


def digests_at_commit(commit: str, finder: DependencyFinder | None = None):
    """A ``digest_at`` function for :func:`plan_rekey`: the digest each dependency file
    (a key relative to the package, as the dependency maps store it) had at git
    ``commit``; None for a file the commit does not have. Raises SimtlabError when
    ``commit`` is not a commit of the repository the package lives in."""
    import hashlib
    import subprocess

    from golden.errors import SimtlabError

    finder = finder or default_finder()
    root = Path(finder.root)

    def git(*args, binary=False):
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True,
                              text=not binary)

    top = git("rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise SimtlabError(f"--valid-at: {root} is not inside a git checkout")
    sha = git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
    if sha.returncode != 0:
        raise SimtlabError(f"--valid-at: {commit!r} is not a commit of {top.stdout.strip()}")
    sha = sha.stdout.strip()
    prefix = root.resolve().relative_to(Path(top.stdout.strip()).resolve()).as_posix()
    memo: dict[str, str | None] = {}

    def digest_at(key: str) -> str | None:
        if key not in memo:
            out = git("show", f"{sha}:{prefix}/{key}" if prefix != "." else f"{sha}:{key}",
                      binary=True)
            memo[key] = (hashlib.sha256(out.stdout).hexdigest()[:20]
                         if out.returncode == 0 else None)
        return memo[key]
    return digest_at


def rekey(plan: RekeyPlan, workers: int = 1, progress: bool = True,
          runner=None, witness_cache: Path | str | None = None) -> tuple[int, list[str]]:
    """Simulate every group's witnesses, re-key the groups they vouch for; return
    ``(results re-keyed, problems)`` (a problem: a witness that differs or failed).
    ``runner(jobs, workers)`` -> ``{key: result}`` runs the witnesses (by default the local
    pool, every witness simulated, none derived from a passive observer run).

    ``witness_cache``: a directory where each witness's new run is stored as soon as it
    finishes (a result cache valid for today's source). An interrupted rekey started again
    with the same directory takes the witnesses already run from it instead of simulating
    them again; point it at a committed directory to carry a long rekey across machines.
    A group's witnesses leave it once the group is re-keyed (their runs are then the
    group's stored results)."""
    store = ResultCache(witness_cache, archive=[]) if witness_cache is not None else None
    if runner is None:

        def runner(jobs, workers):
            return run_jobs(jobs, workers=workers, progress=progress, cache=store,
                            derive_passive=False)

    witnesses = [w for g in plan.groups for w in g.witnesses]
    fresh = runner([w.job for w in witnesses], workers) if witnesses else {}
    commit = source_commit()
    done, problems = 0, []
    for g in plan.groups:
        bad = []
        for w in g.witnesses:
            new = fresh.get(w.job.key)
            if new is None or "error" in new:
                bad.append(f"{w.job.key}: the re-run failed: "
                           f"{(new or {}).get('error', 'no result')}")
                continue
            host = getattr(type(w.job), "HOST_FIELDS", ())
            diffs = first_differences(simulation_part(w.entry, host), simulation_part(new, host))
            if diffs:
                bad.append(f"{w.job.key}: differs from its stored result: " + "; ".join(diffs))
        if bad:
            problems += [f"group {g.label} (changed: {', '.join(g.changed)}) stays stale: {b}"
                         for b in bad]
            continue
        record = {"at": commit, "changed": list(g.changed),
                  "witnesses": [w.job.key for w in g.witnesses]}
        for m in g.members:
            if any(m is w for w in g.witnesses):
                entry = {k: v for k, v in fresh[m.job.key].items() if k != "from_cache"}
                entry.setdefault("simulated_at", commit)   # a stored witness keeps its own
            else:
                entry = dict(m.entry)
                entry["rekeyed"] = [*entry.get("rekeyed", []), record]
            entry["deps"] = m.deps
            write_atomic(m.path, json.dumps(seal(entry), sort_keys=True, separators=(",", ":"),
                                            default=str) + "\n")
            done += 1
        if store is not None:
            for w in g.witnesses:
                (store.dir / entry_name(w.job.key)).unlink(missing_ok=True)
    return done, problems
