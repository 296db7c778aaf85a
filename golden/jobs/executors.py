"""Where the reports' simulations run: a local process pool or a Dask cluster.

:func:`run_jobs` takes the union of the requested reports' jobs, looks each one up in the
result cache (golden/jobs/cache.py), runs the rest and stores every new result in the
cache the moment it finishes, so an interrupted sweep keeps what it completed.

Executors:

* ``local`` (default): ``workers`` processes of a :class:`ProcessPoolExecutor` on this
  machine (``workers == 1`` runs in this process).
* ``dask``: a ``distributed`` cluster. Without ``scheduler`` a :class:`LocalCluster` of
  ``workers`` single-threaded worker processes is started for the sweep; with a scheduler
  address (``tcp://host:8786``) the jobs go to that cluster -- e.g. one whose workers
  ``dask-jobqueue`` started as SLURM jobs (``simtlab dask-slurm``, README). Workers need only
  the simtlab package: each task is a picklable job spec (:class:`TimingJob` or a report's own
  job kind) that the worker imports simtlab to run. A worker whose copy of any file the job
  depends on (:mod:`golden.jobs.deps`) differs from the client's refuses the job with an
  error result, so a stale worker can never put numbers into the report. When the cache directory is visible
  to the workers (a shared file system, as on a cluster), workers write each result there
  themselves as well; the client always writes what comes back.

Results do not depend on the executor, the number of workers or the order in which jobs
finish: every job runs on its own fresh device.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import asdict

from golden.errors import SimtlabError
from golden.jobs.cache import CpuEstimator, ResultCache, source_commit
from golden.jobs.claims import Claim, holder, release, try_claim
from golden.jobs.deps import default_finder
from golden.jobs.job import run_job
from golden.jobs.passive import derive, observer_for
from golden.workers import Interrupted, exit_at_second_interrupt, run_unordered

EXECUTORS = ("local", "dask")
#: orders in which run_jobs submits the simulations it runs (see run_jobs)
ORDERS = ("given", "cheap-first")


def run_job_safe(job) -> dict:
    """Run one job; an exception becomes a result with an ``error`` field (one failing
    simulation must not hide the others)."""
    try:
        return run_job(job)
    except Exception as e:  # reported per job
        return {**asdict(job), "key": job.key, "error": f"{type(e).__name__}: {e}"}


#: field of a worker's answer for a job whose claim another live process holds
#: (:mod:`golden.jobs.claims`): the owner record; the job was not simulated
CLAIMED = "claimed_by"
#: seconds between two looks for the results of jobs other processes are running
CLAIM_POLL_S = 0.5


def run_job_claimed(job, deps: dict | None, cache_root: str | None) -> dict:
    """The task of a local worker (or of this process) when results go to a cache:
    claim the job in ``cache_root`` (:mod:`golden.jobs.claims`), look in the cache
    again (another report may have stored it since), simulate only if it is still missing,
    store the result, release the claim. A job another live process has claimed is not
    simulated: the answer is ``{"key": ..., CLAIMED: owner}``. Without a cache, or without
    a dependency map (the job cannot be cached), the job just runs."""
    if cache_root is None or deps is None:
        return run_job_safe(job)
    try:
        claim = try_claim(cache_root, job.key)
    except OSError:    # claims cannot be written: run unclaimed (the store reports the problem)
        return run_job_safe(job)
    if not isinstance(claim, Claim):
        return {"key": job.key, CLAIMED: claim}
    try:
        store = ResultCache(cache_root, archive=[])
        hit = store.get(job, deps)
        if hit is not None:
            return {**hit, "from_cache": True}
        r = run_job_safe(job)
        if "error" not in r:
            # stored before the claim goes; the report stores it again with its own
            # simulated_at (this process's commit may be read later, after an edit)
            try:
                store.put(r, deps)
            except OSError:  # the report stores it again and says what went wrong
                pass
        return r
    finally:
        release(claim)


def run_job_on_worker(job, deps: dict | None, cache_root: str | None) -> dict:
    """The task a Dask worker runs: check that the files ``job`` depends on are the same
    on this worker as on the client (``deps``, the client's dependency map), run ``job``
    under its claim in ``cache_root`` (:func:`run_job_claimed`: on a cache shared with the
    workers, a job another process is running is not run twice), store the result there
    when the worker can write there, and return it."""
    if deps is not None:
        finder = default_finder()
        mine = finder.job_dependencies(job)
        if mine != deps:
            differ = sorted(k for k in set(mine) | set(deps) if mine.get(k) != deps.get(k))
            return {**asdict(job), "key": job.key,
                    "error": f"worker's simtlab source differs from the client's in "
                             f"{', '.join(differ[:5])}{' ...' if len(differ) > 5 else ''}; "
                             f"install the same checkout on the workers"}
    if cache_root is not None and deps is not None:
        try:
            return run_job_claimed(job, deps, cache_root)   # claims coordinate on a shared FS
        except OSError:  # the cache directory is not writable from here: the client stores it
            pass
    return run_job_safe(job)


def run_jobs(jobs, workers: int = 1, progress: bool = True, cache=None, executor: str = "local",
             scheduler: str | None = None, cached_only: bool = False,
             derive_passive: bool = True, order: str = "given") -> dict[str, dict]:
    """Run every distinct job (by ``job.key``); return ``{key: result}``.

    With a ``cache``, a plain timing job whose passive observer run is in the batch is not
    simulated: its result is derived from the observer run's (:mod:`golden.jobs.passive`).

    Jobs are submitted in the given order. A job that raises produces a result with an
    ``error`` field instead of numbers. ``cache`` (a :class:`ResultCache`) supplies results
    of jobs already run on the same dependency files and stores each new result as soon as it
    finishes; cached results carry ``from_cache: True``. Progress goes to stderr: a tqdm bar
    on a terminal, one line per finished job with a count and an ETA otherwise.

    ``cached_only``: simulate nothing; return only what the cache holds (and what derives
    from it), so a report can be rendered in the middle of a long campaign.

    ``derive_passive=False``: simulate every job, even one a passive observer run in the batch
    could answer (``simtlab cache rekey``'s witnesses must be simulations).

    ``order``: ``"given"`` submits the jobs to simulate in the given order; ``"cheap-first"``
    by their estimated CPU time (:class:`golden.jobs.cache.CpuEstimator` over ``cache``;
    without a cache nothing has an estimate and the given order stays), cheapest first, jobs
    without an estimate last, ties in the given order. Results do not depend on it.
    """
    if order not in ORDERS:
        raise SimtlabError(f"unknown order '{order}'; known: {', '.join(ORDERS)}")
    if executor not in EXECUTORS:
        raise SimtlabError(f"unknown executor '{executor}'; known: {', '.join(EXECUTORS)}")
    if scheduler is not None and executor != "dask":
        raise SimtlabError("--scheduler needs --executor dask")
    if cached_only and cache is None:
        raise SimtlabError("--cached-only reads the result cache; it cannot go with --no-cache")
    unique = list({j.key: j for j in jobs}.values())
    results: dict[str, dict] = {}
    todo = []
    deps = {j.key: cache.dependencies(j) for j in unique} if cache is not None else {}
    for j in unique:
        hit = cache.get(j, deps[j.key]) if cache is not None else None
        if hit is not None:
            results[j.key] = {**hit, "from_cache": True}
        else:
            todo.append(j)
    if cache is not None and todo and not cached_only:
        cache.require_writable()    # before any simulation starts, not after the first one
    # plain runs whose passive observer run is in the batch are derived from it
    waiting: dict[str, list] = {}

    def settle_derived(plain, observer_result: dict) -> dict:
        """Derive ``plain``'s result and store it (so publish and archive find it)."""
        d = results[plain.key] = derive(observer_result, plain)
        cache.put(d, deps[plain.key])
        return d

    if cache is not None and derive_passive:
        for j in list(todo):
            o = observer_for(j, unique, deps)
            if o is None:
                continue
            todo.remove(j)
            if o.key in results:
                settle_derived(j, results[o.key])["from_cache"] = True
            else:
                waiting.setdefault(o.key, []).append(j)
    if cached_only:
        return results
    if order == "cheap-first" and cache is not None:
        todo = cheapest_first(todo, cache)
    rep = Progress(len(todo), len(unique) - len(todo), progress)

    commit = source_commit()

    root = str(cache.root) if cache is not None else None
    elsewhere: dict = {}     # jobs another live process had claimed: {key: job}

    def done(j, r):
        if CLAIMED in r:
            elsewhere[j.key] = j
            return
        if "error" not in r:
            r.setdefault("simulated_at", commit)
        results[j.key] = r
        if cache is not None and not r.get("from_cache"):
            cache.put(r, deps[j.key])
        for plain in waiting.pop(j.key, ()):
            settle_derived(plain, r)
        rep.update(r)

    def run_local(batch):
        if workers <= 1 or len(batch) <= 1:
            for j in batch:
                done(j, run_job_claimed(j, deps.get(j.key), root))
        else:
            run_unordered(run_job_claimed, [(j, (j, deps.get(j.key), root)) for j in batch],
                          workers, done)

    try:
        if executor == "dask" and todo:
            _run_dask(todo, workers, scheduler, cache, deps, done)
        else:
            run_local(todo)
        # jobs another process had claimed: wait for their results; one whose owner died
        # without a result is run here (locally, also after a Dask run: a rare case)
        if elsewhere and progress:
            print(f"waiting for {len(elsewhere)} simulation(s) another simtlab process is "
                  f"running (claimed in {cache.root / 'claims'})", file=sys.stderr, flush=True)
        while elsewhere:
            retry = _settle_claimed(elsewhere, cache, deps, done)
            if retry:
                run_local(retry)
            elif elsewhere:
                time.sleep(CLAIM_POLL_S)
    except (KeyboardInterrupt, Interrupted):
        exit_at_second_interrupt()
        rep.close()
        raise Interrupted(_kept_message(todo, results, cache)) from None
    finally:
        rep.close()
    return results


def _settle_claimed(elsewhere: dict, cache, deps, done) -> list:
    """One look at the jobs other processes had claimed: a result now in the cache is
    taken (``done``); a job whose claim is gone without a result (its owner died) is
    returned, to be run here; the others stay in ``elsewhere``."""
    retry = []
    for key, j in list(elsewhere.items()):
        hit = cache.get(j, deps[key])
        if hit is not None:
            del elsewhere[key]
            done(j, {**hit, "from_cache": True})
        elif holder(cache.root, key) is None:
            del elsewhere[key]
            retry.append(j)
    return retry


def _kept_message(todo, results: dict, cache) -> str:
    """The one line an interrupted :func:`run_jobs` ends with: how many of the simulations
    it was running finished and where they were kept."""
    ran = sum(1 for j in todo if j.key in results)
    ok = sum(1 for j in todo if j.key in results and "error" not in results[j.key])
    where = (f"kept in the result cache {cache.root}" if cache is not None
             else "not kept (--no-cache)")
    return (f"{ran} of {len(todo)} simulation(s) had finished ({ok} result(s) {where}); "
            f"{len(todo) - ran} not run")


def cheapest_first(jobs, cache) -> list:
    """``jobs`` sorted by estimated CPU seconds (:class:`CpuEstimator` over ``cache``),
    jobs without an estimate last; a stable sort, so ties keep their order."""
    est = CpuEstimator(cache)
    cpu = {j.key: est.estimate(j)[0] for j in jobs}
    return sorted(jobs, key=lambda j: (cpu[j.key] is None, cpu[j.key] or 0.0))


def _run_dask(todo, workers: int, scheduler: str | None, cache, deps, done) -> None:
    """Run ``todo`` on a Dask cluster (a LocalCluster of ``workers`` processes when
    ``scheduler`` is None), calling ``done(job, result)`` as results arrive."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed as dask_completed
    except ImportError as e:  # pragma: no cover - dask is a dependency
        raise SimtlabError("--executor dask needs the 'distributed' package "
                           "(pip install 'dask[distributed]')") from e
    root = str(cache.root) if cache is not None else None
    cluster = client = None
    futs: dict = {}
    try:
        if scheduler is None:
            # Ctrl-C stays blocked while the cluster starts: its event-loop thread and the
            # worker processes it spawns inherit the mask, so only this thread ever sees a
            # Ctrl-C; one pressed meanwhile arrives when the mask is restored, below
            # (the resource tracker is started first: starting it unblocks Ctrl-C again)
            import signal
            from multiprocessing import resource_tracker
            resource_tracker.ensure_running()
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1,
                                       processes=True, dashboard_address=None)
                client = Client(cluster)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        else:
            client = _connect(Client, scheduler)
        futs = {client.submit(run_job_on_worker, j, deps.get(j.key), root, pure=False): j for j in todo}
        for f in dask_completed(list(futs)):
            job = futs[f]
            try:
                r = f.result()
            except Exception as e:  # a worker died or the task could not be unpickled
                r = {**asdict(job), "key": job.key, "error": f"dask: {type(e).__name__}: {e}"}
            done(job, r)
    except KeyboardInterrupt:
        _stop_dask_quietly(client, cluster, futs)
        raise
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


def _connect(Client, scheduler: str):
    """A client of the Dask scheduler at ``scheduler``; a one-line :class:`SimtlabError` for
    an address that is malformed or cannot be reached within
    ``SIMTLAB_DASK_CONNECT_TIMEOUT`` (a Dask duration: 30s, 2min; default 30s)."""
    import dask.utils
    timeout = os.environ.get("SIMTLAB_DASK_CONNECT_TIMEOUT", "30s")
    try:
        dask.utils.parse_timedelta(timeout)
    except (KeyError, ValueError, TypeError):
        raise SimtlabError(f"SIMTLAB_DASK_CONNECT_TIMEOUT={timeout!r} is not a duration "
                           f"(e.g. 30s, 2min)") from None
    try:
        return Client(scheduler, timeout=timeout)
    except (OSError, ValueError, TypeError) as e:
        raise SimtlabError(f"cannot reach the Dask scheduler at {scheduler}: "
                           f"{type(e).__name__}: {e}") from None


def _stop_dask_quietly(client, cluster, futs) -> None:
    """First Ctrl-C of a Dask run: a second one exits at once; results already back are
    kept (``done`` stored them); cancel the rest; the local cluster's worker processes
    (children of this process) are killed rather than waited for, and the shutdown chatter
    of ``distributed``'s loggers is silenced, so the command ends with its one line."""
    import logging
    import multiprocessing
    import signal
    exit_at_second_interrupt()
    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    try:
        if client is not None:
            client.cancel(list(futs))
    except Exception:  # noqa: BLE001 - the cluster is going away anyway
        pass
    if cluster is not None:
        for p in multiprocessing.active_children():
            try:
                os.kill(p.pid, signal.SIGKILL)
            except OSError:
                pass


class Progress:
    """tqdm bar on a terminal; on a pipe or log file, one line per finished simulation with
    the count, the job's time, the elapsed time and an ETA (mean time per finished job x
    jobs left, so the first lines are rough)."""

    def __init__(self, total: int, cached: int, enabled: bool, stream=None):
        self.total, self.n, self.enabled = total, 0, enabled
        self.stream = stream or sys.stderr
        self.t0 = time.perf_counter()
        self.bar = None
        if not enabled:
            return
        if cached:
            print(f"{cached} simulation(s) reused from the result cache, {total} to run",
                  file=self.stream, flush=True)
        if self.stream.isatty():
            try:
                from tqdm import tqdm
                self.bar = tqdm(total=total, desc="simulations", unit="run", file=self.stream)
            except ImportError:  # pragma: no cover
                self.bar = None

    def update(self, result: dict) -> None:
        self.n += 1
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(1)
            return
        elapsed = time.perf_counter() - self.t0
        what = (f"error: {result['error']}" if "error" in result
                else f"{result.get('wall_seconds', 0.0):.0f} s")
        eta = elapsed / self.n * (self.total - self.n)
        print(f"[{self.n}/{self.total}] {result.get('key', '?')}: {what} "
              f"({elapsed:.0f} s elapsed, ETA {_hms(eta)})", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _hms(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


# ------------------------------------------------------------------ SLURM workers (dask-jobqueue)
def slurm_cluster(jobs: int, memory: str, walltime: str, partition: str | None = None,
                  account: str | None = None, python: str | None = None, extra=()):
    """A ``dask_jobqueue.SLURMCluster`` whose SLURM jobs each run one single-threaded Dask
    worker with this interpreter (the venv simtlab is installed in), scaled to ``jobs``
    workers (0: none submitted yet). The scheduler runs in this process."""
    try:
        from dask_jobqueue import SLURMCluster
    except ImportError as e:
        raise SimtlabError("simtlab dask-slurm needs dask-jobqueue "
                           "(pip install 'simtlab[cluster]' or pip install dask-jobqueue)") from e
    cluster = SLURMCluster(cores=1, processes=1, memory=memory, walltime=walltime,
                           queue=partition, account=account, python=python or sys.executable,
                           job_extra_directives=list(extra),
                           scheduler_options={"dashboard_address": None})
    if jobs:
        cluster.scale(jobs=jobs)
    return cluster


def add_slurm_subcommand(sub) -> None:
    s = sub.add_parser("dask-slurm",
                       help="start Dask workers as SLURM jobs for `report --executor dask`")
    s.add_argument("--jobs", type=int, default=8, help="SLURM jobs (one worker each; default 8)")
    s.add_argument("--memory", default="4GB", help="memory per worker job (default 4GB)")
    s.add_argument("--walltime", default="04:00:00", help="SLURM time limit per worker job")
    s.add_argument("--partition", help="SLURM partition (queue)")
    s.add_argument("--account", help="SLURM account")
    s.add_argument("--sbatch", action="append", default=[], metavar="DIRECTIVE",
                   help="extra #SBATCH directive, e.g. --sbatch=--constraint=skylake (repeatable)")
    s.add_argument("--print-script", action="store_true",
                   help="print the worker job script and exit (nothing is submitted)")
    s.set_defaults(fn=cmd_dask_slurm)


def cmd_dask_slurm(args) -> int:
    """Start the scheduler here, submit the worker jobs, print the address, wait for Ctrl-C."""
    cluster = slurm_cluster(0 if args.print_script else args.jobs, args.memory, args.walltime,
                            args.partition, args.account, extra=args.sbatch)
    try:
        if args.print_script:
            print(cluster.job_script())
            return 0
        print(f"Dask scheduler: {cluster.scheduler_address}\n"
              f"{args.jobs} SLURM worker job(s) submitted. In another shell on this host:\n"
              f"  simtlab report all --executor dask --scheduler {cluster.scheduler_address}\n"
              "Ctrl-C here cancels the worker jobs.", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return 0
    finally:
        cluster.close()
