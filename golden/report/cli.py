"""``simtlab report``, ``publish``, ``cache`` and ``dask-slurm``: the main job's commands.

``simtlab report NAME... | all`` runs the reports' simulations (locally or on a Dask
cluster, golden/jobs/executors.py) and writes, per report, ``<out>/<name>.md`` and
``<out>/<name>.json`` (atomically, only after every simulation finished), then
``<out>/speedups.md`` concatenating them, the tidy ``<out>/results.csv``, the figures
``<out>/figures/*.svg|png`` and the page ``<out>/index.html`` (golden/report/present).
Each simulation's result is kept in the result cache (golden/jobs/cache.py) the moment
it finishes, so a re-run, or an interrupted run started again, simulates only what is
missing.

``simtlab publish`` rebuilds the figures, CSV and page from the JSON already in ``<out>``;
``simtlab cache info|clear`` shows or empties the result cache; ``simtlab dask-slurm``
starts Dask workers as SLURM jobs (dask-jobqueue) for ``report --executor dask``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from golden.fileio import write_output
from golden.cli_args import SIZES, jobs as jobs_arg, output_dir, seed as seed_arg
from golden.errors import SimtlabError
from golden.report import REPORTS, available_reports
from golden.jobs.cache import DEFAULT_ARCHIVE, DEFAULT_ROOT, DEFAULT_WITNESSES, ResultCache
from golden.jobs.executors import EXECUTORS, ORDERS, run_jobs
from golden.report.runner import ReportOptions


def add_subcommand(sub) -> None:
    r = sub.add_parser("report", help="run reports (baseline, darsie, gscalar or all) -> build/results")
    r.add_argument("names", nargs="+", metavar="REPORT", help=f"one of {', '.join(REPORTS)} or all")
    r.add_argument("--size", default="paper", choices=SIZES,
                   help="workload input size (default: paper = at least two full waves of "
                        "TBs on each reported config; small: a quick run for tests; "
                        "published: the input a workload's paper names, else paper; best "
                        "with --sample)")
    r.add_argument("--full", action="store_true", help="same as --size default (long)")
    r.add_argument("--all-configs", action="store_true",
                   help="every workload, not only each seed's stand-ins: baseline on every "
                        "config, darsie on all workloads")
    r.add_argument("--seed", type=seed_arg, default=0)
    r.add_argument("-j", "--jobs", type=jobs_arg, default=os.cpu_count() or 1)
    r.add_argument("--workloads", metavar="DIR",
                   help="also run the user workloads of DIR (specs with 'ptx:', Python WORKLOAD "
                        "modules) in the reports their 'stands_for' entries name, e.g. "
                        "'Locality: my kernel' (docs/own-kernel.md)")
    r.add_argument("--out", type=output_dir, default="build/results")
    r.add_argument("--no-cache", action="store_true",
                   help="simulate everything again instead of reusing cached or archived "
                        "results whose dependency files are unchanged")
    r.add_argument("--cache-dir", default=str(DEFAULT_ROOT),
                   help="result cache root (default: %(default)s); a result is reused while "
                        "every file its job depends on is unchanged")
    r.add_argument("--archive", action="append", metavar="DIR",
                   help=f"read-only directory of committed results searched after the cache "
                        f"(default: {DEFAULT_ARCHIVE} when it exists; repeatable)")
    r.add_argument("--executor", choices=EXECUTORS, default="local",
                   help="where simulations run: local = -j worker processes here (default); "
                        "dask = a Dask cluster (a LocalCluster of -j workers, or --scheduler)")
    r.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --executor dask: address of a running Dask scheduler "
                        "(tcp://host:8786), e.g. the one `simtlab dask-slurm` prints")
    r.add_argument("--plan", action="store_true",
                   help="simulate nothing: per report, how many of its simulations the cache or "
                        "the archive already hold for today's source, and how many would run")
    r.add_argument("--cached-only", action="store_true",
                   help="simulate nothing: render the reports from the simulations the cache or "
                        "the archive already hold (the others are shown as missing), e.g. in the "
                        "middle of a long paper-size campaign")
    r.add_argument("--order", choices=ORDERS, default="given",
                   help="order the simulations to run are submitted in: given = the reports' "
                        "own order (default); cheap-first = by the CPU time stored runs of the "
                        "same simulation or workload took, cheapest first (a campaign that is "
                        "stopped part-way has then finished the most simulations)")
    r.add_argument("--sample", nargs="?", const="launch", default=None, choices=("launch", "tb"),
                   metavar="LEVEL",
                   help="sampled timing (docs/sampling.md): every timing simulation runs on a "
                        "seeded sample and is extrapolated; tables print estimates as 'x ±h' "
                        "(95%% half-width), the JSON adds <key>_low/_high and results.csv "
                        "<metric>.low/.high. LEVEL launch (default) or tb; a mechanism that "
                        "must keep a launch (tb) or the whole run whole runs in full, said "
                        "on one line. Sampled results are cached apart from full runs")
    r.add_argument("--sample-seed", type=seed_arg, default=None, metavar="S",
                   help="with --sample: the sample's seed (default 0)")
    r.add_argument("--no-figures", action="store_true",
                   help="write Markdown/JSON/CSV only, no figures or HTML page")
    r.add_argument("--profiles", action="store_true",
                   help="also profile each report's headline runs again with the per-PC "
                        "profiler (and their baselines) and write the listings and the diffs "
                        "vs baseline into <out>/profiles, linked from the page's tables "
                        "(golden/report/profile_pages.py; off by default)")
    r.set_defaults(fn=cmd_report)

    p = sub.add_parser("publish", help="rebuild figures, results.csv and index.html from the "
                                       "report JSON in build/results (no simulation)")
    p.add_argument("--out", type=output_dir, default="build/results")
    p.add_argument("--cache-dir", default=str(DEFAULT_ROOT),
                   help="result cache the reports' simulations are read from for the CSV")
    p.set_defaults(fn=cmd_publish)

    c = sub.add_parser("cache", help="show (info), empty (clear) or commit (archive) the "
                                     "report result cache, or carry stale results over to "
                                     "today's source once witnesses reproduce them (rekey)")
    c.add_argument("action", choices=("info", "clear", "archive", "rekey"))
    c.add_argument("--stale", action="store_true",
                   help="clear: only results whose dependency files changed (keep valid ones)")
    c.add_argument("--cache-dir", default=str(DEFAULT_ROOT))
    c.add_argument("--archive-too", action="store_true",
                   help="clear: allow --cache-dir to name the committed archive "
                        f"({DEFAULT_ARCHIVE}); without it that directory is never cleared")
    c.add_argument("--to", default=str(DEFAULT_ARCHIVE),
                   help="archive: directory the valid results are copied to (default: "
                        "%(default)s, committed with the repository)")
    c.add_argument("--size", default="paper", choices=(*SIZES, "all"),
                   help="archive: only results of this input size (default: %(default)s)")
    c.add_argument("--dir", default=str(DEFAULT_ARCHIVE),
                   help="rekey: directory whose stale results are re-keyed (default: "
                        "%(default)s)")
    c.add_argument("--per-group", type=int, default=1, metavar="K",
                   help="rekey: witnesses simulated again per group (default: %(default)s)")
    c.add_argument("--all", action="store_true",
                   help="rekey: simulate every stale result again (no sampling)")
    c.add_argument("--dry-run", action="store_true",
                   help="rekey: show the groups and witnesses, simulate nothing")
    c.add_argument("--config", action="append", default=None, metavar="NAME",
                   help="rekey: only results of this GPU config (repeatable; default: all)")
    c.add_argument("--shared-only", action="store_true",
                   help="rekey: only results whose changed files are all shared source (a "
                        "result whose own workload's PTX, module or register file changed is "
                        "left for a report to simulate again)")
    c.add_argument("--valid-at", default=None, metavar="COMMIT",
                   help="rekey: only results that were valid at git COMMIT (what the "
                        "commits since then made stale; older staleness is left alone)")
    c.add_argument("-j", "--jobs", type=jobs_arg, default=os.cpu_count() or 1,
                   help="rekey: worker processes for the witnesses")
    c.add_argument("--witness-cache", default=str(DEFAULT_WITNESSES), metavar="DIR",
                   help="rekey: where each witness's new run is kept as soon as it finishes, "
                        "so an interrupted rekey resumes without simulating it again "
                        "(default: %(default)s; a committed directory carries a long rekey "
                        "across machines)")
    c.set_defaults(fn=cmd_cache)

    from golden.jobs.executors import add_slurm_subcommand
    add_slurm_subcommand(sub)


def cmd_report(args) -> int:
    avail = available_reports()
    names = list(avail) if "all" in args.names else args.names
    for n in names:
        if n not in REPORTS:
            raise SimtlabError(f"unknown report '{n}'; known reports: {', '.join(REPORTS)}, all")
        if n not in avail:
            raise SimtlabError(f"report '{n}' is not available in this checkout")
    opts = ReportOptions(size="default" if args.full else args.size, seed=args.seed,
                         jobs=args.jobs, all_configs=args.all_configs or args.full,
                         workloads=_user_workloads(args.workloads, names, avail,
                                                   explicit="all" not in args.names))
    all_jobs = [j for n in names for j in avail[n].jobs(opts)]
    sized = None
    if opts.size == "published":    # a run at paper where that is the published input
        from golden.jobs.published import published_plan
        sized = published_plan(all_jobs)
        all_jobs = sized.jobs

    def jobs_of(n):
        """Report ``n``'s jobs as they run (at paper where that is the published input)."""
        return sized.map(avail[n].jobs(opts)) if sized else avail[n].jobs(opts)

    for a in args.archive or ():
        if not Path(a).is_dir():
            raise SimtlabError(f"--archive {a}: no such directory")
    cache = None if args.no_cache else ResultCache(args.cache_dir, archive=args.archive)
    sampled = _sample_plan(args, all_jobs, cache)
    if args.plan:
        if sized:
            print(sized.note().strip("> \n"))
        return _plan(names, jobs_of, opts, cache or ResultCache(args.cache_dir, archive=args.archive),
                     sampled)
    t0 = time.perf_counter()
    n_unique = len({j.key for j in all_jobs})
    print(f"simtlab report {' '.join(names)}: {n_unique} simulations, size {opts.size}, "
          + ("cached results only" if args.cached_only else f"{opts.jobs} worker(s)"),
          file=sys.stderr)
    results = run_jobs(sampled.jobs if sampled else all_jobs, workers=opts.jobs, cache=cache,
                       executor=args.executor, scheduler=args.scheduler,
                       cached_only=args.cached_only, order=args.order)
    if args.cached_only:
        print(f"{len(results)} of {n_unique} simulations found in the result cache or archive; "
              f"the reports show the others as missing", file=sys.stderr)
    wall = time.perf_counter() - t0
    out = Path(args.out)
    docs, datas = [], {}
    runs = results          # by the keys of the jobs that ran
    if sampled:
        from golden.report.present.estimates import with_bounds, with_estimates
        results = with_estimates(sampled.view(results))
    if sized:
        results = sized.view(results)
    for n in names:
        md, data = avail[n].render(results, opts)
        data = {"report": n, "wall_seconds_all_reports": wall, "all_configs": opts.all_configs,
                "model_fingerprint": cache.fingerprint if cache is not None else None, **data}
        if sampled:
            md = _sampling_note(sampled, jobs_of(n)) + md
            data = with_bounds({**data, "sampling": _sampling_doc(sampled, jobs_of(n))})
        if sized:
            md = sized.note() + md
            data = {**data, "published": {"own_input": sized.own, "at_paper": sized.at_paper}}
        text = json.dumps(data, indent=1, default=str)
        write_output(out / f"{n}.md", md)
        write_output(out / f"{n}.json", text)
        datas[n] = json.loads(text)  # the document as publish reads it back
        docs.append(md)
        print(md)
    fresh = [r for r in runs.values() if "timing" in r and not r.get("from_cache")]
    cpu = sum(r.get("cpu_seconds", r.get("wall_seconds", 0.0)) for r in fresh)
    winst = sum(r["timing"]["instructions_issued"] for r in fresh)
    if args.cached_only:
        footer = (f"\n---\n{n_unique} simulations, {len(runs)} of them read from the result "
                  f"cache or archive, {n_unique - len(runs)} missing (rendered with "
                  f"--cached-only: nothing simulated).\n")
    else:
        footer = (f"\n---\n{n_unique} simulations ({n_unique - len(fresh)} reused from the "
                  f"result cache) in {wall:.0f} s wall on {opts.jobs} worker(s); the "
                  f"{len(fresh)} simulated issued {winst:,} warp instructions, "
                  f"{winst / max(cpu, 1e-9):,.0f} warp-inst per CPU-second.\n")
    write_output(out / "speedups.md", "\n".join(docs) + footer)
    print(footer)
    print(f"wrote {out}/speedups.md and {', '.join(f'{n}.md/.json' for n in names)}", file=sys.stderr)
    jobs_by_report = {n: jobs_of(n) for n in names}
    if args.profiles:
        from golden.report.profile_pages import headline_views, write_profiles
        views_of = {n: headline_views(n, avail[n], opts) for n in names}
        write_profiles(out, views_of, results, workers=opts.jobs,
                       fingerprint=cache.fingerprint if cache is not None else None,
                       log=lambda m: print(m, file=sys.stderr))
    from golden.report.present import publish
    page = publish(out, datas, {n: md for n, md in zip(names, docs)}, results, jobs_by_report,
                   size=opts.size, seed=opts.seed, figures=not args.no_figures,
                   fingerprint=cache.fingerprint if cache is not None else None)
    print(f"wrote {page}", file=sys.stderr)
    errors = [r for r in runs.values() if "error" in r]
    bad = [r for r in runs.values() if "error" not in r and not r["outputs_match"]]
    for r in errors:
        print(f"simtlab: error in {r['key']}: {r['error']}", file=sys.stderr)
    for r in bad:
        print(f"simtlab: outputs differ from the reference in {r['key']}", file=sys.stderr)
    return 1 if errors or bad else 0


#: reports that cannot take a user workload, and why (``--workloads`` with one of them
#: named is an error; with ``all`` a note)
NO_USER_WORKLOADS = {
    "hetero": "it runs the chapter's fixed pairs of a low-TLP and a high-TLP kernel "
              "concurrently, and one user kernel is no such pair",
    "fidelity": "it compares the stand-ins with the workload properties the papers publish, "
                "which a user workload has none of",
}


def _takes(module, stands_for) -> bool:
    """Whether report ``module`` runs a user workload with these ``stands_for`` entries: by
    its own rule (``takes_user_workload``, compose's pairs) or its ``STANDS_FOR`` prefix
    (:func:`golden.report.runner.selects`; None: every one)."""
    from golden.report.runner import selects
    if hasattr(module, "takes_user_workload"):
        return module.takes_user_workload(stands_for)
    return hasattr(module, "STANDS_FOR") and selects(module.STANDS_FOR, stands_for)


def _sample_plan(args, all_jobs, cache=None):
    """The :class:`~golden.jobs.sampled.SamplePlan` of ``--sample`` (None without it); a
    one-line error for a sampling option given where it does not apply; one line on
    stderr per reason some simulations run in full. A timing job whose full result
    ``cache`` (or its archive) already holds is read, not sampled."""
    if args.sample_seed is not None and not args.sample:
        raise SimtlabError("--sample-seed needs --sample")
    if not args.sample:
        return None
    if args.profiles:
        raise SimtlabError("--profiles and --sample do not go together: the profiles time "
                           "every instruction of the headline runs (run them without --sample)")
    from golden.jobs.sampled import sample_jobs
    stored = None
    if cache is not None:
        def stored(j):
            return cache.get(j, cache.dependencies(j)) is not None
    plan = sample_jobs(all_jobs, args.sample, args.sample_seed or 0, stored)
    for line in plan.refused_lines():
        print(f"simtlab: note: {line}", file=sys.stderr)
    return plan


def _sampling_doc(plan, jobs) -> dict:
    """The ``sampling`` block of a sampled report's JSON: level, seed, which of its timing
    simulations ran sampled and which in full (with the reason), which were sampled at
    launch level instead of ``tb`` (``at_launch``, with the reason) and each one's level
    (``levels``: ``tb``, ``launch`` or ``full``)."""
    keys = list(dict.fromkeys(j.key for j in jobs))
    return {"level": plan.level, "sample_seed": plan.sample_seed,
            "sampled": sum(k in plan.alias for k in keys),
            "in_full": {k: plan.in_full[k] for k in keys if k in plan.in_full},
            "at_launch": {k: plan.at_launch[k] for k in keys if k in plan.at_launch},
            "levels": {k: plan.level_of(k) for k in keys if plan.level_of(k)},
            "interval": "95%; ratios by the delta method on independent estimates "
                        "(docs/sampling.md)"}


def _sampling_note(plan, jobs) -> str:
    """The lines a sampled report's Markdown begins with."""
    doc = _sampling_doc(plan, jobs)
    full = doc["in_full"]
    lines = [f"> **Sampled timing** (`--sample {plan.level}`, sample seed {plan.sample_seed}): "
             f"{doc['sampled']} simulation(s) sampled; their cycles, energies and the ratios "
             f"computed from them are estimates printed as `x ±h` (95% half-width; `±?` = "
             f"interval not estimable; no `±` = exact). Ratios: delta method on independent "
             f"estimates (docs/sampling.md)."]
    if doc["at_launch"]:
        lines.append(f"> {len(doc['at_launch'])} of them sampled at launch level instead of "
                     f"{plan.level} (whole launches kept for "
                     f"{', '.join(plan.launch_mechanisms())}); the JSON's `sampling.levels` "
                     f"gives each simulation's level.")
    if full:
        reasons = sorted(set(full.values()))
        lines.append(f"> {len(full)} simulation(s) ran in full (exact, no interval): "
                     + "; ".join(reasons))
    return "\n".join(lines) + "\n\n"


def _user_workloads(folder: str | None, names: list[str], avail: dict,
                    explicit: bool = True) -> str | None:
    """``--workloads DIR`` checked once here (one-line errors: no folder, a bad spec, a name
    used twice or by a built-in, a named report in :data:`NO_USER_WORKLOADS`), as the
    absolute path the report jobs re-load it from; a note on stderr for each user workload
    no requested report includes (and, for ``all``, each report that leaves them out)."""
    if not folder:
        return None
    for n in names:
        if n in NO_USER_WORKLOADS and explicit:
            raise SimtlabError(f"report {n} takes no --workloads: {NO_USER_WORKLOADS[n]}")
    from golden.workloads.user_ref import label, refs_of_dir
    refs = refs_of_dir(folder)
    if not refs:
        raise SimtlabError(f"--workloads {folder}: no user workloads in it (specs with 'ptx:' "
                           f"or Python modules defining WORKLOAD)")
    for n in names:
        if n in NO_USER_WORKLOADS:
            print(f"simtlab: note: report {n} leaves out the user workloads: "
                  f"{NO_USER_WORKLOADS[n]}", file=sys.stderr)
    # a report that includes user workloads names its stands_for prefix as STANDS_FOR
    prefixes = [avail[n].STANDS_FOR for n in names
                if isinstance(getattr(avail[n], "STANDS_FOR", None), str)]
    ways = ([f"a stands_for entry beginning with {' or '.join(prefixes)}"] if prefixes else []) \
        + (["entries for both papers of a pair (compose)"] if "compose" in names else [])
    takes = f"give it {' or '.join(ways)}" if ways else "these reports take no user workloads"
    for r, w in refs.items():
        if not any(_takes(avail[n], w.stands_for) for n in names):
            print(f"simtlab: note: user workload {label(r)} is in none of the reports "
                  f"{', '.join(names)}: {takes}", file=sys.stderr)
    return str(Path(folder).resolve())


def _plan(names, report_jobs, opts, cache, sampled=None) -> int:
    """``simtlab report --plan``: reusable vs to-run simulations per report (no simulation);
    ``report_jobs(name)`` gives a report's jobs as they run; with ``--sample``, the sampled
    jobs (``sampled``, a SamplePlan) instead of the full runs."""
    from golden.jobs.passive import observer_for
    print(f"size {opts.size}, seed {opts.seed}; reusable = in {cache.root} or "
          f"{', '.join(map(str, cache.archive)) or 'no archive'} with unchanged dependencies")
    print(f"{'report':<10} {'simulations':>12} {'reusable':>9} {'to run':>7}")
    jobs_of = {n: list({j.key: j for j in report_jobs(n)}.values()) for n in names}
    if sampled:
        by_key = {j.key: j for j in sampled.jobs}
        jobs_of = {n: list({(k := sampled.alias.get(j.key, j.key)): by_key[k]
                            for j in js}.values()) for n, js in jobs_of.items()}
    every = list({j.key: j for js in jobs_of.values() for j in js}.values())
    deps = {j.key: cache.dependencies(j) for j in every}
    hit = {j.key: cache.get(j, deps[j.key]) is not None for j in every}
    # a plain run answered by its passive observer run needs no simulation of its own
    # (golden.jobs.passive); it counts as reusable once the observer run is
    derived = {j.key: o.key for j in every if not hit[j.key]
               and (o := observer_for(j, every, deps)) is not None}
    ready = {k: hit[k] or hit.get(derived.get(k), False) for k in hit}
    later = {k for k in derived if not ready[k]}   # derived once their observer has run

    def row(name, js):
        ok = sum(ready[j.key] for j in js)
        print(f"{name:<10} {len(js):>12} {ok:>9} {len(js) - ok - sum(j.key in later for j in js):>7}")

    for n, js in jobs_of.items():
        row(n, js)
    row("(distinct)", every)
    todo = [j for j in every if not ready[j.key] and j.key not in later]
    if todo:
        print(_plan_estimate(todo, cache))
    if derived:
        print(f"{len(derived)} plain run(s) are derived from their passive observer runs instead "
              f"of simulated (reusable once the observer run is; {len(later)} not yet)")
    return 0


def _plan_estimate(todo, cache) -> str:
    """A rough CPU-time estimate of the simulations ``todo`` (:class:`CpuEstimator`)."""
    from golden.jobs.cache import CpuEstimator
    est = CpuEstimator(cache)
    total = 0.0
    kinds = {"same": 0, "workload": 0, "none": 0}
    for j in todo:
        cpu, kind = est.estimate(j)
        kinds[kind] += 1
        total += cpu or 0.0
    same, near, none = kinds["same"], kinds["workload"], kinds["none"]
    return (f"to run: about {total / 3600:.1f} CPU-hours for {same + near} of {len(todo)} "
            f"simulation(s) ({same} from an earlier run of the same simulation, {near} from "
            f"stored runs of the same workload at this size; {none} without an estimate)")


def _report_json_problem(data) -> str | None:
    """What keeps ``data`` from being the JSON ``simtlab report`` wrote (the fields publish
    reads before a report's own presentation: an object, ``size`` one of the sizes,
    ``seed`` a non-negative integer, ``all_configs`` true/false), or None."""
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    if data.get("size", "small") not in SIZES:
        return f"size {data.get('size')!r} is not one of {', '.join(SIZES)}"
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        return f"seed {seed!r} is not a non-negative integer"
    if not isinstance(data.get("all_configs", False), bool):
        return f"all_configs {data.get('all_configs')!r} is not true or false"
    return None


def cmd_publish(args) -> int:
    """Figures, CSV and page from ``<out>/<report>.json`` / ``.md`` and the cached results."""
    from golden.report.present import publish
    avail = available_reports()
    out = Path(args.out)
    datas, mds = {}, {}
    for n in avail:
        j, m = out / f"{n}.json", out / f"{n}.md"
        if j.is_file() and m.is_file():
            try:
                datas[n] = json.loads(j.read_text())
            except ValueError as e:
                raise SimtlabError(f"{j}: not valid JSON ({e}); run `simtlab report {n}` again")
            problem = _report_json_problem(datas[n])
            if problem:
                raise SimtlabError(f"{j}: not a report's JSON ({problem}); run "
                                   f"`simtlab report {n}` again")
            mds[n] = m.read_text()
    if not datas and not (out / "validate.json").is_file():
        raise SimtlabError(f"no report results in {out}; run `simtlab report all` (or "
                           f"`simtlab validate`) first")
    first = next(iter(datas.values()), {})
    opts = ReportOptions(size=first.get("size", "small"), seed=int(first.get("seed", 0)))
    # the simulations of these reports were run on the source that wrote the report JSON,
    # which need not be this checkout's (publish only presents): read them unverified
    cache = ResultCache(args.cache_dir)
    jobs_of = {n: list(avail[n].jobs(ReportOptions(size=datas[n].get("size", opts.size),
                                                   seed=int(datas[n].get("seed", opts.seed)),
                                                   all_configs=bool(datas[n].get("all_configs")))))
               for n in datas}
    results = {}
    for n, js in jobs_of.items():
        # a report rendered with --sample reads its sampled runs (and those that ran in full)
        s = datas[n].get("sampling")
        plan = None
        if isinstance(s, dict) and s.get("level") in ("launch", "tb"):
            from golden.jobs.sampled import sample_jobs
            plan = sample_jobs(js, s["level"], int(s.get("sample_seed", 0)))
        for j in js:
            r = cache.get_unverified(plan.alias.get(j.key, j.key) if plan else j.key)
            if r is not None:
                results[j.key] = r
    if any(isinstance(d.get("sampling"), dict) for d in datas.values()):
        from golden.report.present.estimates import with_estimates
        results = with_estimates(results)
    page = publish(out, datas, mds, results, jobs_of, size=opts.size, seed=opts.seed,
                   fingerprint=first.get("model_fingerprint") or None)
    print(f"wrote {page} ({len(results)} cached simulation results in results.csv)")
    return 0


def cmd_cache(args) -> int:
    from golden.jobs.cache import archive_results, cache_info, clear_cache
    if args.action == "clear":
        if not Path(args.cache_dir).exists():
            print(f"nothing to clear: {args.cache_dir} does not exist")
            return 0
        n = clear_cache(args.cache_dir, stale_only=args.stale, archive_ok=args.archive_too)
        print(f"removed {n} cached result(s) from {args.cache_dir}"
              + (" (only those whose dependency files changed)" if args.stale else ""))
        return 0
    if args.action == "rekey":
        return _rekey(args)
    if args.action == "archive":
        n = archive_results(args.cache_dir, args.to, None if args.size == "all" else args.size)
        print(f"archived {n} result(s) of size {args.size} from {args.cache_dir} into {args.to} "
              f"(commit that directory to keep them)")
        return 0
    dirs = (args.cache_dir, str(DEFAULT_ARCHIVE))
    wd = max(24, *(len(d) for d in dirs))
    print(f"{'directory':<{wd}} {'results':>8} {'valid':>7} {'stale':>7} {'size':>10}")
    for d in dirs:
        e = cache_info(d)
        print(f"{d:<{wd}} {e['entries']:>8} {e['valid']:>7} {e['stale']:>7} "
              f"{e['bytes'] / 1e6:>7.1f} MB"
              + (f"  (+{e['old_layout']} in the old per-fingerprint layout, never read; "
                 f"`simtlab cache clear --stale` removes them)" if e["old_layout"] else "")
              + (f"  ({e['invalid']} invalid, never used)" if e["invalid"] else "")
              + (f"  ({e['other']} other JSON file(s), not results)" if e["other"] else ""))
    print("valid = every file the job depends on is unchanged (reused by `simtlab report`)")
    return 0


def _rekey(args) -> int:
    from golden.jobs.rekey import digests_at_commit, plan_rekey, rekey
    if args.per_group < 1 and not args.all:
        raise SimtlabError("--per-group must be at least 1 (or use --all)")
    if not Path(args.dir).is_dir():
        raise SimtlabError(f"cache rekey: no directory {args.dir}")
    plan = plan_rekey(args.dir, per_group=0 if args.all else args.per_group,
                      configs=args.config, shared_only=args.shared_only,
                      digest_at=digests_at_commit(args.valid_at) if args.valid_at else None)
    print(f"{args.dir}: {plan.valid} valid, {plan.stale} stale result(s) in "
          f"{len(plan.groups)} group(s)"
          + (f", {plan.other} other result(s) left alone" if plan.other else ""))
    for g in plan.groups:
        print(f"  {g.label}: {len(g.members)} result(s); witness(es) "
              f"{', '.join(w.job.key for w in g.witnesses)} "
              f"(~{g.witness_cpu_seconds:,.0f} CPU-s when stored); changed: "
              f"{', '.join(g.changed[:4])}{' ...' if len(g.changed) > 4 else ''}")
    if args.dry_run or not plan.groups:
        return 0
    n, problems = rekey(plan, workers=args.jobs, witness_cache=args.witness_cache)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"re-keyed {n} of {plan.stale} stale result(s) in {args.dir}"
          + (" (commit that directory to keep them)" if n else ""))
    return 1 if problems else 0
