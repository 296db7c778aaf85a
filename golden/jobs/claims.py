"""Per-job claims in a result cache, so that reports sharing one cache never run a
simulation twice (issue 74: concurrent reports on one cache coordinate).

Before a worker simulates a job it *claims* it: it creates
``<cache root>/claims/<sha256(key)[:24]>.claim`` atomically (the claim is written under a
temporary name and hard-linked into place, which fails when the name exists, so exactly
one process wins and a reader never sees a half-written claim). The claim records the
worker's host, pid and process start time. Then the worker looks in the cache again (the
result may have arrived since the report looked), simulates only if it is still missing,
stores the result, and removes its claim.

A process that finds a job claimed by another live process does not simulate it: the
report waits for the result to appear in the cache (:func:`golden.jobs.executors.run_jobs`).
A claim whose owner is gone -- its pid no longer runs on this host, or runs a process
started at another time (the pid was reused) -- is *stale*: it is removed and claimed
afresh under a take-over lock (an ``flock`` the kernel releases when its holder dies), so
of several processes that notice, one takes it over and the others see its new claim. A claim
made on another host is taken as live while its file is younger than
:data:`FOREIGN_CLAIM_TTL_S` (no pid there can be checked from here).
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from golden.jobs.entries import entry_name

#: sub-directory of a cache root holding the claims
CLAIMS = "claims"
#: a claim from another host counts as abandoned once its file is this old (seconds)
FOREIGN_CLAIM_TTL_S = 24 * 3600.0

__all__ = ["CLAIMS", "Claim", "claim_path", "holder", "release", "try_claim"]


@dataclass(frozen=True)
class Claim:
    """A claim this process holds on one job."""

    path: Path
    pid: int
    host: str
    started: str


def claim_path(root: Path | str, key: str) -> Path:
    """Where the claim of job ``key`` lives under cache ``root``."""
    return Path(root) / CLAIMS / (entry_name(key)[:-len(".json")] + ".claim")


def _proc_stat(pid: int) -> list[str] | None:
    """Fields of ``/proc/<pid>/stat`` after the command name (state first), or None."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _start_time(pid: int) -> str | None:
    """Start time of process ``pid`` (clock ticks since boot, /proc), None when unknown."""
    st = _proc_stat(pid)
    return st[19] if st else None


def _me() -> dict:
    pid = os.getpid()
    return {"pid": pid, "host": socket.gethostname(), "started": _start_time(pid) or ""}


def _alive(owner: dict) -> bool:
    """True while the process that made claim ``owner`` still runs (or cannot be checked)."""
    pid = owner.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:     # runs, as another user
        return True
    st = _proc_stat(pid)
    if st is None:
        return True             # no /proc: the pid runs, which is all that can be told
    if st[0] in ("Z", "X"):     # exited, not yet reaped by its parent
        return False
    return not (owner.get("started") and st[19] != owner["started"])


def _owner_of(p: Path) -> dict | None:
    """The record of the claim file ``p`` when it stands for a live claim, else None (no
    file, unreadable or garbage, or stale)."""
    try:
        owner = json.loads(p.read_text())
        age = time.time() - p.stat().st_mtime
    except (OSError, ValueError):
        return None             # gone, or garbage no live owner stands behind
    if not isinstance(owner, dict):
        return None
    if owner.get("host") != socket.gethostname():
        return owner if age < FOREIGN_CLAIM_TTL_S else None
    return owner if _alive(owner) else None


def holder(root: Path | str, key: str) -> dict | None:
    """The owner record of the live claim on job ``key`` (None: unclaimed, or the claim
    is stale)."""
    return _owner_of(claim_path(root, key))


@contextmanager
def _takeover_lock(d: Path):
    """Serialise stale-claim take-overs in claims directory ``d`` (an ``flock``, which the
    kernel drops when its holder dies, so this lock itself can never go stale)."""
    with open(d / ".takeover.lock", "a") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def try_claim(root: Path | str, key: str) -> Claim | dict:
    """Claim job ``key`` for this process: the :class:`Claim`, or the owner record of the
    live claim another process holds. A stale claim is taken over: under the take-over
    lock it is checked again and removed (only a take-over replaces an existing claim
    file, and its dead owner cannot release it), then claimed as usual."""
    p = claim_path(root, key)
    p.parent.mkdir(parents=True, exist_ok=True)
    me = _me()
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump({**me, "key": key, "at": time.time()}, f)
        for _ in range(10):
            try:
                os.link(tmp, p)         # atomic; fails when a claim exists
                return Claim(p, me["pid"], me["host"], me["started"])
            except FileExistsError:
                pass
            owner = _owner_of(p)
            if owner is not None:
                return owner
            with _takeover_lock(p.parent):
                if p.exists():
                    owner = _owner_of(p)
                    if owner is not None:
                        return owner
                    p.unlink(missing_ok=True)
                try:
                    os.link(tmp, p)
                    return Claim(p, me["pid"], me["host"], me["started"])
                except FileExistsError:
                    continue
        return _owner_of(p) or {"pid": None, "host": "?", "key": key}
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass


def release(claim: Claim) -> None:
    """Remove ``claim`` if it is still this process's own."""
    try:
        owner = json.loads(claim.path.read_text())
    except (OSError, ValueError):
        return
    if isinstance(owner, dict) and owner.get("pid") == claim.pid \
            and owner.get("host") == claim.host:
        try:
            claim.path.unlink()
        except FileNotFoundError:
            pass
