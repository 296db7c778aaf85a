"""Ctrl-C and kill -9 of simtlab's parallel commands (issue 74 items 3, 8, 11): the first
Ctrl-C stops within seconds, keeps finished results, says so in one line and exits 130;
a second exits at once; no traceback; no worker outlives its parent.

Commands run as subprocesses in their own session; Ctrl-C is sent to the whole process
group, as a terminal does. Orchestration is tested on cheap stand-in jobs
(tests/fake_jobs.py); one test interrupts the real ``simtlab report``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
SIMTLAB = [PY, "-m", "golden.cli"]
FAKE = [PY, str(ROOT / "tests" / "fake_jobs.py")]


def _sigint_default():
    signal.signal(signal.SIGINT, signal.SIG_DFL)   # a shell's `cmd &` would ignore it


def start(cmd, tmp_path: Path) -> subprocess.Popen:
    err = open(tmp_path / "stderr.txt", "wb")
    return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=err,
                            start_new_session=True, preexec_fn=_sigint_default)


def children_of(pid: int) -> list[int]:
    """Pids whose parent is ``pid`` (from /proc)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid:
            out.append(int(d.name))
    return out


def alive(pids) -> list[int]:
    out = []
    for p in pids:
        try:
            state = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.append(p)
    return out


def wait_for(cond, timeout: float, what: str):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        v = cond()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def stderr_of(tmp_path: Path) -> str:
    return (tmp_path / "stderr.txt").read_text()


def gone_within(pids, seconds: float) -> list[int]:
    t0 = time.monotonic()
    while alive(pids) and time.monotonic() - t0 < seconds:
        time.sleep(0.1)
    return alive(pids)


def interrupt_and_check(p: subprocess.Popen, tmp_path: Path, workers: list[int],
                        sigints: int = 1, within: float = 10.0) -> str:
    for i in range(sigints):
        os.killpg(p.pid, signal.SIGINT)
        if i + 1 < sigints:
            time.sleep(0.05)
    t0 = time.monotonic()
    rc = p.wait(timeout=30)
    took = time.monotonic() - t0
    err = stderr_of(tmp_path)
    # 130, or killed by the second SIGINT itself in the last moments of the interpreter's
    # shutdown (after Python restored the default handler): a shell shows 130 for both
    assert rc == 130 or (sigints > 1 and rc == -signal.SIGINT), (rc, err)
    assert took < within, f"took {took:.1f} s to stop"
    assert "Traceback" not in err, err
    assert len([ln for ln in err.splitlines() if "interrupted" in ln]) == 1, err
    assert err.rstrip().splitlines()[-1].startswith("simtlab: interrupted"), err
    assert gone_within(workers, 3.0) == [], "workers outlived the interrupted parent"
    return err


def test_first_ctrl_c_stops_fake_report_keeps_finished_results_exits_130(tmp_path):
    cache, log = tmp_path / "cache", tmp_path / "runs.log"
    p = start(FAKE + ["--cache", str(cache), "--n", "12", "--seconds", "1.5", "-j", "2",
                      "--log", str(log)], tmp_path)
    wait_for(lambda: "[2/12]" in stderr_of(tmp_path), 30, "two finished jobs")
    workers = children_of(p.pid)
    assert len(workers) == 2
    err = interrupt_and_check(p, tmp_path, workers, within=5.0)
    kept = len(list(cache.glob("*.json")))
    assert kept >= 2
    assert f"({kept} result(s) kept in the result cache" in err
    assert "not run" in err
    # nothing was scheduled after the Ctrl-C: at most the 2 running ones beyond the kept
    assert len(log.read_text().splitlines()) <= kept + 2
    # the run resumes from what was kept
    r = subprocess.run(FAKE + ["--cache", str(cache), "--n", "12", "--seconds", "0", "-j", "2",
                               "--log", str(log)], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert f"{kept} simulation(s) reused from the result cache" in r.stderr
    assert len(json.loads(r.stdout)) == 12


def test_second_ctrl_c_exits_at_once_without_traceback(tmp_path):
    p = start(FAKE + ["--cache", str(tmp_path / "c"), "--n", "8", "--seconds", "30", "-j", "2"],
              tmp_path)
    workers = wait_for(lambda: len(children_of(p.pid)) == 2 and children_of(p.pid), 30,
                       "two workers")
    time.sleep(0.5)
    interrupt_and_check(p, tmp_path, workers, sigints=2, within=5.0)


def test_sigkill_of_parent_leaves_no_worker(tmp_path):
    p = start(FAKE + ["--cache", str(tmp_path / "c"), "--n", "8", "--seconds", "60", "-j", "2"],
              tmp_path)
    workers = wait_for(lambda: len(children_of(p.pid)) == 2 and children_of(p.pid), 30,
                       "two workers")
    time.sleep(0.3)
    p.kill()
    p.wait(timeout=10)
    assert gone_within(workers, 5.0) == [], "workers outlived their SIGKILLed parent"


def test_worker_watchdog_exits_when_parent_pid_changes():
    """The portable fallback alone (no prctl): a grandchild whose parent exits leaves."""
    code = ("import os, time, sys\n"
            "from golden.workers import die_with_parent\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    import golden.workers as w\n"
            "    w.sys.platform = 'other'   # skip prctl: only the watchdog\n"
            "    die_with_parent(os.getppid())\n"
            "    print(os.getpid(), flush=True)\n"
            "    time.sleep(60)\n"
            "    os._exit(0)\n"
            "time.sleep(1.0)\n")
    r = subprocess.Popen([PY, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    child = int(r.stdout.readline())
    r.wait(timeout=10)
    assert gone_within([child], 3.0) == []


def test_pool_is_capped_at_the_jobs_and_warns_above_the_cores(tmp_path):
    from golden.workers import pool_size
    import io
    s = io.StringIO()
    assert pool_size(60, 1, s) == 1 and s.getvalue() == ""
    cores = os.cpu_count() or 1
    assert pool_size(cores + 3, 100, s) == cores + 3
    assert s.getvalue().count("\n") == 1 and "warning" in s.getvalue()
    # the CLI: -j 60 over 3 jobs starts 3 workers
    p = start(FAKE + ["--cache", str(tmp_path / "c"), "--n", "3", "--seconds", "3", "-j", "60"],
              tmp_path)
    workers = wait_for(lambda: children_of(p.pid), 30, "workers")
    time.sleep(1.0)
    assert len(children_of(p.pid)) == 3
    assert p.wait(timeout=60) == 0


def _has_progress(tmp_path):
    return "[1/" in stderr_of(tmp_path)


def test_ctrl_c_during_report_j2_exits_130_with_one_line(tmp_path):
    cache = tmp_path / "cache"
    (tmp_path / "arch").mkdir()
    p = start(SIMTLAB + ["report", "baseline", "--size", "small", "-j", "2", "--cache-dir",
                         str(cache), "--archive", str(tmp_path / "arch"), "--out",
                         str(tmp_path / "out"), "--no-figures"], tmp_path)
    wait_for(lambda: _has_progress(tmp_path), 120, "the first finished simulation")
    workers = children_of(p.pid)
    err = interrupt_and_check(p, tmp_path, workers, within=10.0)
    kept = len(list(cache.glob("*.json")))
    assert kept >= 1 and f"({kept} result(s) kept in the result cache" in err
    assert not (tmp_path / "out" / "baseline.md").exists()


def test_ctrl_c_during_characterise_j2_exits_130(tmp_path):
    p = start(SIMTLAB + ["characterise", "--size", "small", "-j", "2", "--out",
                         str(tmp_path / "out")], tmp_path)
    workers = wait_for(lambda: len(children_of(p.pid)) >= 2 and children_of(p.pid), 60,
                       "workers")
    time.sleep(1.0)
    err = interrupt_and_check(p, tmp_path, workers, within=10.0)
    assert "nothing written" in err


def test_ctrl_c_during_run_exits_130_without_traceback(tmp_path):
    p = start(SIMTLAB + ["run", "BP", "--size", "default", "--mode", "timing"], tmp_path)
    time.sleep(4.0)
    interrupt_and_check(p, tmp_path, [], within=10.0)


@pytest.mark.slow
def test_ctrl_c_during_dask_report_exits_130_with_one_line(tmp_path):
    pytest.importorskip("distributed")
    (tmp_path / "arch").mkdir()
    p = start(SIMTLAB + ["report", "baseline", "--size", "small", "-j", "2", "--executor", "dask",
                         "--cache-dir", str(tmp_path / "cache"), "--archive",
                         str(tmp_path / "arch"), "--out", str(tmp_path / "out"), "--no-figures"],
              tmp_path)
    workers = wait_for(lambda: len(children_of(p.pid)) >= 2 and children_of(p.pid), 120,
                       "the local cluster's workers")
    time.sleep(5.0)
    # a Ctrl-C while the local cluster is still starting waits until it has started
    err = interrupt_and_check(p, tmp_path, workers, within=30.0)
    assert "simulation(s) had finished" in err


def test_ctrl_c_during_cache_rekey_exits_130_with_one_line(tmp_path):
    from golden.jobs.cache import ResultCache
    from golden.jobs.entries import entry_name
    from golden.report.runner import TimingJob, run_job
    d = tmp_path / "arch"
    cache = ResultCache(d, archive=[])
    va = run_job(TimingJob("VA", "gtx285"))
    for seed in range(4):    # stale results of slower simulations (their re-runs are cut short)
        job = TimingJob("BP", "gtx480", size="default", seed=seed)
        stale = {**cache.dependencies(job), "timing/sm.py": "0" * 20}
        cache.put({**va, "workload": "BP", "config": "gtx480", "size": "default", "seed": seed,
                   "key": job.key, "cpu_seconds": 1e4}, stale)
        assert (d / entry_name(job.key)).is_file()
    p = start(SIMTLAB + ["cache", "rekey", "--dir", str(d), "--all", "-j", "2",
                         "--witness-cache", str(tmp_path / "w")], tmp_path)
    workers = wait_for(lambda: len(children_of(p.pid)) == 2 and children_of(p.pid), 60,
                       "two workers")
    time.sleep(2.0)
    err = interrupt_and_check(p, tmp_path, workers, within=10.0)
    assert "of 4 simulation(s) had finished" in err


def test_pool_teardown_silences_only_the_manager_threads_invalid_state():
    """CPython 3.11's executor manager thread raises InvalidStateError on futures already
    cancelled when it finds its killed workers; during teardown that is not reported, and
    any other thread exception still is."""
    import threading
    from concurrent.futures import InvalidStateError

    from golden.workers import _quiet_manager_thread

    seen = []

    def raise_(exc):
        def run():
            raise exc
        t = threading.Thread(target=run)
        t.start()
        t.join()

    outer = threading.excepthook
    threading.excepthook = lambda args: seen.append(type(args.exc_value).__name__)
    try:
        previous = _quiet_manager_thread()
        raise_(InvalidStateError("CANCELLED"))
        raise_(ValueError("a real bug"))
        threading.excepthook = previous
        raise_(InvalidStateError("CANCELLED"))
    finally:
        threading.excepthook = outer
    assert seen == ["ValueError", "InvalidStateError"]


def test_a_reader_that_goes_away_stops_the_command_quietly(tmp_path):
    """`simtlab list | head`: the pipe closes before simtlab writes; no traceback, 141."""
    import sys as _sys
    p = subprocess.Popen([_sys.executable, "-m", "golden.cli", "list"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parent.parent)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err
