"""Concurrent reports on one result cache coordinate through per-job claims
(golden/jobs/claims.py, issue 74): no simulation runs twice, a claim whose owner
died is taken over, a live one is waited for."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from golden.jobs.claims import Claim, claim_path, holder, release, try_claim

ROOT = Path(__file__).resolve().parents[1]
FAKE = [sys.executable, str(ROOT / "tests" / "fake_jobs.py")]
sys.path.insert(0, str(ROOT / "tests"))
from fake_jobs import expected_value  # noqa: E402


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_claim_is_exclusive_and_released(tmp_path):
    c = try_claim(tmp_path, "k")
    assert isinstance(c, Claim) and claim_path(tmp_path, "k").is_file()
    other = try_claim(tmp_path, "k")
    assert isinstance(other, dict) and other["pid"] == c.pid     # held: the owner record
    release(c)
    assert holder(tmp_path, "k") is None and not claim_path(tmp_path, "k").exists()
    assert isinstance(try_claim(tmp_path, "k"), Claim)


def test_a_claim_of_a_dead_pid_a_reused_pid_or_garbage_is_taken_over(tmp_path):
    import os
    import socket
    p = claim_path(tmp_path, "k")
    p.parent.mkdir(parents=True)
    for record in ({"pid": _dead_pid(), "host": socket.gethostname(), "started": "1"},
                   {"pid": os.getpid(), "host": socket.gethostname(), "started": "-1"},
                   "not json"):
        p.write_text(record if isinstance(record, str) else json.dumps(record))
        assert holder(tmp_path, "k") is None
        c = try_claim(tmp_path, "k")
        assert isinstance(c, Claim), record
        release(c)


def test_a_live_claim_of_another_process_is_respected(tmp_path):
    sleeper = subprocess.Popen([sys.executable, "-c",
                                "import sys, time\n"
                                "sys.path.insert(0, %r)\n"
                                "from golden.jobs.claims import try_claim\n"
                                "try_claim(%r, 'k'); print('ok', flush=True); time.sleep(60)"
                                % (str(ROOT), str(tmp_path))],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert sleeper.stdout.readline().strip() == "ok"
        owner = try_claim(tmp_path, "k")
        assert isinstance(owner, dict) and owner["pid"] == sleeper.pid
    finally:
        sleeper.kill()
        sleeper.wait()
    assert isinstance(try_claim(tmp_path, "k"), Claim)   # its owner died: stale, taken over


def _report(cache: Path, log: Path, n=8, seconds=1.0, j=2):
    return subprocess.Popen(FAKE + ["--cache", str(cache), "--n", str(n), "--seconds",
                                    str(seconds), "-j", str(j), "--log", str(log)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_concurrent_reports_on_one_cache_run_each_simulation_once(tmp_path):
    cache, log = tmp_path / "cache", tmp_path / "runs.log"
    procs = [_report(cache, log) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    runs = Counter(line.split()[0] for line in log.read_text().splitlines())
    assert sorted(runs) == [f"sleep/j{i:03d}" for i in range(8)]
    assert set(runs.values()) == {1}, runs
    for out, _ in outs:
        got = json.loads(out)
        assert got == {f"sleep/j{i:03d}": expected_value(f"j{i:03d}") for i in range(8)}
    assert not list((cache / "claims").glob("*.claim"))


def test_a_report_waits_for_a_claimed_job_and_runs_it_when_its_owner_dies(tmp_path):
    """Another process holds job j000's claim and dies without a result: the report waits
    for it, then takes the stale claim over and runs the job itself."""
    cache, log = tmp_path / "cache", tmp_path / "runs.log"
    holder_proc = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\nsys.path.insert(0, %r)\n"
         "from golden.jobs.claims import try_claim\n"
         "try_claim(%r, 'sleep/j000'); print('ok', flush=True); time.sleep(3)"
         % (str(ROOT), str(cache))], stdout=subprocess.PIPE, text=True)
    assert holder_proc.stdout.readline().strip() == "ok"
    t0 = time.monotonic()
    p = _report(cache, log, n=3, seconds=0.1, j=1)
    out, err = p.communicate(timeout=60)
    holder_proc.wait()
    assert p.returncode == 0, err
    assert "waiting for 1 simulation(s) another simtlab process is running" in err
    assert time.monotonic() - t0 >= 2.0          # it waited for the owner
    runs = Counter(line.split()[0] for line in log.read_text().splitlines())
    assert runs == {"sleep/j000": 1, "sleep/j001": 1, "sleep/j002": 1}
    assert json.loads(out)["sleep/j000"] == expected_value("j000")
