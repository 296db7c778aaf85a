"""Fault injection of the result store (issue 74 acceptance): kill -9 at seeded random
moments of a report, corrupted entries, read-only directories, two concurrent reports.
Whatever happens, no valid result is lost or computed twice, and no invalid one is used.

The reports are tests/fake_jobs.py runs: cheap jobs through the real run_jobs, worker
pool, claims and ResultCache. A job that starts while a valid result of it is already
stored logs ``DUPLICATE`` (a recomputation); every finished run prints its results,
which must equal the jobs' known values."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest

from golden.jobs.cache import QUARANTINE, checked_entry
from golden.jobs.entries import entry_name

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from fake_jobs import SleepJob, expected_value  # noqa: E402
from test_interrupts import alive, children_of  # noqa: E402

FAKE = [sys.executable, str(ROOT / "tests" / "fake_jobs.py")]
N = 10
EXPECTED = {f"sleep/j{i:03d}": expected_value(f"j{i:03d}") for i in range(N)}


def start(cache: Path, log: Path, seconds=0.3, j=2, extra=()):
    return subprocess.Popen(FAKE + ["--cache", str(cache), "--n", str(N), "--seconds",
                                    str(seconds), "-j", str(j), "--log", str(log), *extra],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(p, timeout=120) -> dict:
    out, err = p.communicate(timeout=timeout)
    assert p.returncode == 0, err
    assert "Traceback" not in err, err
    return json.loads(out)


def log_lines(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def starts(log: Path) -> Counter:
    return Counter(ln.split()[0] for ln in log_lines(log) if not ln.startswith("DUPLICATE"))


def duplicates(log: Path) -> list[str]:
    return [ln for ln in log_lines(log) if ln.startswith("DUPLICATE")]


def valid_stored(cache: Path) -> set[str]:
    """Keys whose entry in ``cache`` is valid and holds the job's right value."""
    out = set()
    for key in EXPECTED:
        job = SleepJob(key.split("/")[1])
        data, problem = checked_entry(cache / entry_name(key), job)
        if data is not None:
            assert data["value"] == EXPECTED[key], f"a wrong value stored for {key}"
            out.add(key)
    return out


def assert_store_sound(cache: Path) -> None:
    """Every file of the cache named like an entry is a valid entry with the right value
    (a killed writer leaves at most a temporary file, never a partial entry)."""
    for p in cache.glob("*.json"):
        key = next((k for k in EXPECTED if entry_name(k) == p.name), None)
        assert key is not None, f"unexpected file {p.name}"
        data, problem = checked_entry(p, SleepJob(key.split("/")[1]))
        assert problem is None and data["value"] == EXPECTED[key], (p, problem)


def test_kill_9_at_seeded_random_moments_loses_nothing_and_recomputes_nothing(tmp_path):
    rng = random.Random(74)
    cache, log = tmp_path / "cache", tmp_path / "runs.log"
    kept_before = set()
    for round_ in range(4):
        p = start(cache, log)
        time.sleep(rng.uniform(0.3, 1.6))
        workers = children_of(p.pid)
        p.kill()
        p.wait(timeout=10)
        t0 = time.monotonic()
        while alive(workers) and time.monotonic() - t0 < 5:
            time.sleep(0.1)
        assert alive(workers) == [], f"round {round_}: workers outlived the killed report"
        assert_store_sound(cache)
        kept = valid_stored(cache)
        assert kept >= kept_before, f"round {round_}: results were lost"
        kept_before = kept
    assert duplicates(log) == []
    assert len(kept_before) >= 2, "the kills all came before any job finished"
    final = finish(start(cache, log))
    assert final == EXPECTED
    assert duplicates(log) == []
    assert valid_stored(cache) == set(EXPECTED)


CORRUPTIONS = {
    "truncated": lambda text: text[: len(text) // 2],
    "garbage": lambda text: "\x00\xff not json",
    "an error record": lambda text: json.dumps({**json.loads(text), "error": "boom"}),
    "no dependency map": lambda text: json.dumps({k: v for k, v in json.loads(text).items()
                                                  if k != "deps"}),
    "outputs_match not a boolean": lambda text: json.dumps({**json.loads(text),
                                                            "outputs_match": "yes"}),
    "another job's key": lambda text: json.dumps({**json.loads(text), "key": "sleep/other"}),
}


def test_corrupt_entries_are_quarantined_recomputed_once_and_never_used(tmp_path):
    cache, log = tmp_path / "cache", tmp_path / "runs.log"
    assert finish(start(cache, log, seconds=0.05)) == EXPECTED
    keys = sorted(EXPECTED)
    broken = {}
    for key, (what, corrupt) in zip(keys, CORRUPTIONS.items()):
        p = cache / entry_name(key)
        p.write_text(corrupt(p.read_text()))
        broken[key] = what
    log2 = tmp_path / "runs2.log"
    p = start(cache, log2, seconds=0.05)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert json.loads(out) == EXPECTED                    # no corrupt value reached the report
    assert starts(log2) == Counter({k: 1 for k in broken})  # only the broken ones, once each
    assert duplicates(log2) == []
    assert err.count("invalid result entry") == len(broken), err
    assert len(list((cache / QUARANTINE).glob("*.json"))) == len(broken)
    assert_store_sound(cache)


@contextmanager
def read_only(d: Path):
    """``d`` made read-only: permission bits for a normal user; for root (whom they do
    not stop) a read-only bind mount when mounting is allowed, else the test is skipped."""
    if os.geteuid() != 0:
        d.chmod(0o555)
        try:
            yield
        finally:
            d.chmod(0o755)
        return
    r = subprocess.run(["mount", "--bind", str(d), str(d)], capture_output=True)
    if r.returncode != 0:
        pytest.skip("running as root without mount: a read-only directory cannot be made")
    try:
        r = subprocess.run(["mount", "-o", "remount,bind,ro", str(d)], capture_output=True)
        if r.returncode != 0:
            pytest.skip("cannot remount read-only")
        yield
    finally:
        subprocess.run(["umount", str(d)], capture_output=True)


def test_a_read_only_cache_is_refused_before_any_run_and_still_serves_its_results(tmp_path):
    cache, log = tmp_path / "cache", tmp_path / "runs.log"
    assert finish(start(cache, log, seconds=0.05)) == EXPECTED
    missing = sorted(EXPECTED)[:3]
    for k in missing:
        (cache / entry_name(k)).unlink()
    bad = sorted(EXPECTED)[5]
    (cache / entry_name(bad)).write_text("{broken")
    log2 = tmp_path / "runs2.log"
    with read_only(cache):
        p = start(cache, log2, seconds=0.05)
        out, err = p.communicate(timeout=60)
        assert p.returncode == 2 and "not writable" in err and "Traceback" not in err, err
        assert err.strip().splitlines()[-1].startswith("simtlab: error:")
        assert not log2.exists()                          # refused before any simulation
        # the same cache as a read-only archive beside a writable cache: its valid results
        # are used, its invalid entry is left in place and recomputed, the missing ones run
        fresh = tmp_path / "fresh"
        got = finish(start(fresh, log2, seconds=0.05, extra=["--archive", str(cache)]))
        assert (cache / entry_name(bad)).read_text() == "{broken"   # not moved: read-only
    assert got == EXPECTED
    assert starts(log2) == Counter({k: 1 for k in [*missing, bad]})
    assert duplicates(log2) == []


def test_two_concurrent_reports_with_one_killed_lose_nothing_and_recompute_nothing(tmp_path):
    rng = random.Random(7474)
    cache = tmp_path / "cache"
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    a, b = start(cache, logs[0], seconds=0.4), start(cache, logs[1], seconds=0.4)
    time.sleep(rng.uniform(0.8, 1.5))
    a.kill()
    a.wait(timeout=10)
    assert finish(b) == EXPECTED
    assert all(duplicates(lg) == [] for lg in logs)
    assert_store_sound(cache)
    assert valid_stored(cache) == set(EXPECTED)
    ran = starts(logs[0]) + starts(logs[1])
    assert set(ran) == set(EXPECTED)
    # a job runs twice only when the killed report had it running (<= 2 workers)
    assert sum(n - 1 for n in ran.values()) <= 2, ran
    assert not [c for c in (cache / "claims").glob("*.claim")]
