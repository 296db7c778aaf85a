"""Local worker-process pools of every simtlab command: sized, interruptible, never orphaned.

Every command that runs jobs in parallel processes (``report``, ``characterise``,
``cache rekey``, ``gscalar-stats``) gets its pool from :func:`worker_pool` and drives it
with :func:`run_unordered`, so they share one behaviour:

* **Size.** :func:`pool_size` caps the pool at the number of jobs (``-j 60`` for one job
  starts one process) and warns, once, when more workers than CPU cores are asked for.
* **Workers die with their parent.** Each worker, when it starts, asks the Linux kernel
  to kill it when its parent exits (``prctl(PR_SET_PDEATHSIG, SIGKILL)`` through ctypes)
  and runs a watchdog thread that exits the process once its parent pid changes (the
  portable fallback, and a second line of defence). A ``kill -9`` of ``simtlab`` leaves no
  worker simulating on for hours.
* **Workers ignore Ctrl-C.** A terminal's Ctrl-C goes to the whole process group; only
  the parent decides what happens (no traceback from each worker).
* **First Ctrl-C** (:class:`KeyboardInterrupt` in the parent): nothing more is scheduled,
  every result that has already come back is handed to the caller's ``on_done``, the
  running jobs are cancelled (their workers are terminated within a second), and
  :class:`Interrupted` is raised with the counts, so the command can say in one line what
  it kept and exit 130 (:func:`golden.cli.main`). **A second Ctrl-C** during that
  clean-up kills the workers and exits 130 at once.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, InvalidStateError, ProcessPoolExecutor, wait

#: exit status of a command stopped by Ctrl-C (128 + SIGINT), as a shell reports it
EXIT_INTERRUPTED = 130
#: seconds between two looks of a worker's watchdog at its parent
WATCHDOG_PERIOD_S = 0.5
#: Linux prctl option: signal delivered to this process when its parent thread exits
_PR_SET_PDEATHSIG = 1

__all__ = ["EXIT_INTERRUPTED", "Interrupted", "die_with_parent", "exit_at_second_interrupt",
           "interrupted_exit", "pool_size", "run_unordered", "worker_pool"]


class Interrupted(Exception):
    """Ctrl-C stopped a parallel run. ``finished``: jobs whose results the caller got,
    ``total``: jobs it asked for. The message (set by the command) says what was kept."""

    def __init__(self, message: str = "", finished: int = 0, total: int = 0):
        super().__init__(message)
        self.finished, self.total = finished, total


def pool_size(workers: int, jobs: int, stream=None) -> int:
    """Worker processes to start for ``jobs`` jobs when ``workers`` were asked for: at most
    one per job (at least 1). Above the machine's core count, one warning line on
    ``stream`` (stderr): the extra workers only share the same cores."""
    n = max(1, min(workers, jobs))
    cores = os.cpu_count() or 1
    if n > cores:
        print(f"simtlab: warning: {n} worker processes on {cores} CPU core(s); they share "
              f"the cores, so runs take as long and use more memory", file=stream or sys.stderr)
    return n


def die_with_parent(parent_pid: int) -> None:
    """Make this process exit when process ``parent_pid`` (the one that started it) is
    gone: ``PR_SET_PDEATHSIG`` on Linux, and a daemon watchdog thread everywhere."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no libc prctl: the watchdog alone
            pass
    if os.getppid() != parent_pid:     # the parent died before we could ask
        os._exit(1)

    def watch():
        while True:
            threading.Event().wait(WATCHDOG_PERIOD_S)
            if os.getppid() != parent_pid:
                os._exit(1)

    threading.Thread(target=watch, name="simtlab-parent-watchdog", daemon=True).start()


def _worker_start(parent_pid: int) -> None:
    """Initializer of every pool worker: ignore Ctrl-C (the parent handles it), die with
    the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})   # blocked by the spawner
    die_with_parent(parent_pid)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool of ``workers`` processes set up by :func:`_worker_start` (size it
    with :func:`pool_size`)."""
    return ProcessPoolExecutor(max_workers=workers, initializer=_worker_start,
                               initargs=(os.getpid(),))


def _pool_processes(ex: ProcessPoolExecutor) -> list:
    # the executor keeps its worker processes here; no public accessor exists
    return list((getattr(ex, "_processes", None) or {}).values())


def _kill_workers(ex: ProcessPoolExecutor, sig=signal.SIGKILL) -> None:
    for p in _pool_processes(ex):
        try:
            os.kill(p.pid, sig)
        except (OSError, TypeError):
            pass


def exit_at_second_interrupt(cleanup=None) -> None:
    """From now on a Ctrl-C runs ``cleanup()`` (kill workers) and exits 130 at once,
    without a traceback (installed when the first Ctrl-C is being handled)."""
    def now(signum, frame):
        if cleanup is not None:
            try:
                cleanup()
            except Exception:  # noqa: BLE001 - exiting anyway
                pass
        os._exit(EXIT_INTERRUPTED)
    try:
        signal.signal(signal.SIGINT, now)
    except ValueError:     # not the main thread: the default handler stays
        pass


def interrupted_exit(e: BaseException, stream=None) -> int:
    """What a command does with a Ctrl-C that reached its top level (``e``: the
    :class:`KeyboardInterrupt` or :class:`Interrupted`): a second Ctrl-C now exits at once;
    print one line (what was kept, when ``e`` says) and return :data:`EXIT_INTERRUPTED`."""
    exit_at_second_interrupt()
    said = str(e) if isinstance(e, Interrupted) else ""
    print(f"simtlab: interrupted{': ' + said if said else ''}", file=stream or sys.stderr,
          flush=True)
    return EXIT_INTERRUPTED


def _quiet_manager_thread():
    """Stop the executor's manager thread from printing a traceback while the pool is
    torn down on purpose: when it finds its killed workers it sets an exception on the
    futures already cancelled, and CPython 3.11 raises InvalidStateError there (in that
    thread, which then prints it). Returns the previous ``threading.excepthook``."""
    previous = threading.excepthook

    def hook(args):
        if isinstance(args.exc_value, InvalidStateError):
            return
        previous(args)
    threading.excepthook = hook
    return previous


def run_unordered(fn, tasks: list, workers: int, on_done) -> None:
    """Run ``fn(*args)`` for every ``(tag, args)`` of ``tasks`` in a :func:`worker_pool`
    of ``pool_size(workers, len(tasks))`` processes; call ``on_done(tag, result)`` in this
    process as each finishes (any order). An exception in ``fn`` propagates (after the
    pool is shut down). On Ctrl-C: see the module docstring; raises :class:`Interrupted`."""
    if not tasks:
        return
    ex = worker_pool(pool_size(workers, len(tasks)))
    finished = 0
    pending: dict = {}
    try:
        # workers are forked inside submit(): Ctrl-C stays blocked until each has set
        # itself to ignore it (a SIGINT in between would end it with a traceback); one
        # that arrives meanwhile is delivered here when the mask is restored
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            pending = {ex.submit(fn, *args): tag for tag, args in tasks}
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        while pending:
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            for f in done:
                tag = pending.pop(f)
                on_done(tag, f.result())
                finished += 1
    except KeyboardInterrupt:
        exit_at_second_interrupt(lambda: _kill_workers(ex))
        for f in list(pending):
            f.cancel()
        # results that came back before the Ctrl-C was seen are kept
        for f in [f for f in pending if f.done() and not f.cancelled()]:
            tag = pending.pop(f)
            try:
                r = f.result()
            except BaseException:  # noqa: BLE001 - a job that failed or was cut short
                continue
            on_done(tag, r)
            finished += 1
        previous = _quiet_manager_thread()
        _kill_workers(ex, signal.SIGTERM)
        ex.shutdown(wait=True, cancel_futures=True)
        threading.excepthook = previous
        raise Interrupted(finished=finished, total=len(tasks)) from None
    except BaseException:
        previous = _quiet_manager_thread()
        _kill_workers(ex, signal.SIGTERM)
        ex.shutdown(wait=True, cancel_futures=True)
        threading.excepthook = previous
        raise
    ex.shutdown(wait=True)
