"""On-disk cache of report-job results, each valid while the files it depends on are unchanged.

A report re-run, or a second report sharing simulations with the first, reuses results
instead of simulating again. Every stored result carries its job's dependency map
(:mod:`golden.report.deps`: path -> digest of every golden module its result can depend
on, the YAML beside them and the workload's PTX). A result is reused only when the job key
is the same and the dependency map computed from today's source is identical, so editing
the CAPRI mechanism keeps every DARSIE result, while editing the timing core, a config or
a kernel's PTX re-simulates whatever used it. The job key (:attr:`TimingJob.key`) holds
workload, config name, mechanisms with their arguments, size, seed and config overrides.

Two places are read:

* the **cache** (``build/cache/runs`` by default): one file per job key,
  ``<root>/<sha256(key)[:24]>.json``, written atomically as soon as the job finishes (an
  interrupted sweep keeps what it completed); a newer result of the same key replaces the
  older one. Results with an ``error`` field are not stored (a failing job is retried).
* the **archive** (``results/runs`` in the repository, read-only here): results committed
  so that expensive sweeps (the ``paper`` size takes days on 2 cores) survive a fresh
  clone. ``simtlab cache archive`` copies today's still-valid cache entries there. Each
  carries ``simulated_at`` (the commit it ran on, ``+dirty`` when the tree had edits).
  ``simtlab cache rekey`` (:mod:`golden.report.rekey`) carries stale ones over to today's
  source once witnesses of their group reproduce their stored results exactly.

The whole-model :func:`model_fingerprint` is kept for provenance (the results page shows
it); the cache no longer keys on it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import threading
from functools import lru_cache
from pathlib import Path

from golden.report.deps import NOT_MODEL, PACKAGE_DIR, DependencyFinder, _is_model_file, holds, \
    default_finder

#: default cache root, relative to the working directory (inside ``build/``)
DEFAULT_ROOT = Path("build/cache/runs")
#: committed results, relative to the working directory (the repository root)
DEFAULT_ARCHIVE = Path("results/runs")
#: Where ``simtlab cache rekey`` keeps its witnesses' new runs until their group is re-keyed.
DEFAULT_WITNESSES = Path("build/cache/rekey-witnesses")

_SOURCE_SUFFIXES = (".py", ".pyx", ".pxd", ".yaml", ".ptx", ".cu")

__all__ = ["DEFAULT_ARCHIVE", "DEFAULT_ROOT", "DEFAULT_WITNESSES", "NOT_MODEL", "ResultCache",
           "archive_results", "cache_info", "clear_cache", "model_fingerprint"]


def model_fingerprint(package_dir: Path | None = None) -> str:
    """SHA-256 over the relative paths and bytes of every model source file of the golden
    package (provenance of a whole results page; presentation code excluded)."""
    root = package_dir or PACKAGE_DIR
    h = hashlib.sha256()
    files = sorted(p for p in root.rglob("*")
                   if p.is_file() and p.suffix in _SOURCE_SUFFIXES and "__pycache__" not in p.parts
                   and _is_model_file(p.relative_to(root).as_posix()))
    for p in files:
        h.update(p.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


@lru_cache(maxsize=1)
def source_commit() -> str:
    """``git`` commit of the package's checkout, ``+dirty`` when the golden tree has
    uncommitted edits; ``unknown`` outside a git checkout."""
    cwd = PACKAGE_DIR.parent
    try:
        rev = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=cwd, text=True,
                             capture_output=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "golden"], cwd=cwd,
                               text=True, capture_output=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return rev + ("+dirty" if dirty else "")


def _entry_name(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:24] + ".json"


def _read(p: Path) -> dict | None:
    try:
        data = json.loads(p.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class ResultCache:
    """Results of report jobs, each stored with its dependency map.

    ``finder`` computes dependency maps (a :class:`DependencyFinder`; the installed package's
    by default). ``archive`` is a list of read-only directories searched after ``root``
    (default: ``results/runs`` when it exists)."""

    def __init__(self, root: Path | str = DEFAULT_ROOT, archive=None,
                 finder: DependencyFinder | None = None):
        self.root = Path(root).resolve()
        self.dir = self.root
        if archive is None:
            archive = [DEFAULT_ARCHIVE] if DEFAULT_ARCHIVE.is_dir() else []
        self.archive = [Path(a).resolve() for a in archive]
        self.finder = finder or default_finder()
        self._fingerprint: str | None = None

    @property
    def fingerprint(self) -> str:
        """Whole-model fingerprint of the package (provenance only)."""
        if self._fingerprint is None:
            self._fingerprint = model_fingerprint(self.finder.root)
        return self._fingerprint

    def dependencies(self, job) -> dict[str, str] | None:
        """``job``'s dependency map, or None when it cannot be computed (an unknown workload:
        the job then runs, uncached, and reports its own error)."""
        try:
            return self.finder.job_dependencies(job)
        except Exception:  # noqa: BLE001 - the job's own run reports the problem
            return None

    def get(self, job, deps: dict[str, str] | None = None) -> dict | None:
        """The stored result of ``job`` if its dependencies are unchanged, else None.
        ``deps``: the job's dependency map when the caller has it already."""
        deps = deps if deps is not None else self.dependencies(job)
        if deps is None:
            return None
        name = _entry_name(job.key)
        for d in (self.root, *self.archive):
            data = _read(d / name)
            if data is not None and data.get("key") == job.key \
                    and isinstance(data.get("deps"), dict) and holds(data["deps"], deps):
                return {k: v for k, v in data.items() if k != "deps"}
        return None

    def get_unverified(self, key: str) -> dict | None:
        """The stored result of job ``key`` whatever the source now is (presentation of a
        report's own results, ``simtlab publish``)."""
        for d in (self.root, *self.archive):
            data = _read(d / _entry_name(key))
            if data is not None and data.get("key") == key:
                return {k: v for k, v in data.items() if k != "deps"}
        return None

    def put(self, result: dict, deps: dict[str, str] | None) -> None:
        """Store one result with its dependency map (atomically). Results that carry an
        ``error``, and jobs whose dependencies are unknown, are not stored."""
        if "error" in result or "key" not in result or deps is None:
            return
        entry = {k: v for k, v in result.items() if k not in ("from_cache", "deps")}
        entry.setdefault("simulated_at", source_commit())
        entry["deps"] = deps
        _write_atomic(self.root / _entry_name(result["key"]), json.dumps(entry, default=str))


class CpuEstimator:
    """Rough CPU seconds a simulation will take, from what ``cache`` stores (whatever
    source the stored runs were simulated on): the same simulation's earlier run, else the
    median over stored runs of the same workload at the job's size (any configuration or
    mechanism; mechanisms cost 1-3x a baseline run, so this is rough), else None.

    Used by ``simtlab report --plan`` and to submit a campaign's cheapest simulations
    first (``--order cheap-first``)."""

    def __init__(self, cache: ResultCache):
        import statistics
        self.cache = cache
        runs: dict[tuple[str, str], list[float]] = {}
        for d in (cache.root, *cache.archive):
            for p in _entries(d):
                data = _read(p)
                key, cpu = (data or {}).get("key"), (data or {}).get("cpu_seconds")
                if isinstance(key, str) and isinstance(cpu, (int, float)) and key.count("/") >= 4:
                    # a timing job's key: workload/config/mechanisms/size/seed (TimingJob.key)
                    parts = key.split("/")
                    runs.setdefault((parts[0], parts[3]), []).append(float(cpu))
        self._median = {k: statistics.median(v) for k, v in runs.items()}

    def estimate(self, job) -> tuple[float | None, str]:
        """``(cpu seconds or None, "same" | "workload" | "none")``: where the figure came
        from."""
        old = self.cache.get_unverified(job.key)
        if old is not None and isinstance(old.get("cpu_seconds"), (int, float)):
            return float(old["cpu_seconds"]), "same"
        m = self._median.get((getattr(job, "workload", None), getattr(job, "size", None)))
        return (m, "workload") if m is not None else (None, "none")


def _write_atomic(p: Path, text: str) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    # unique temporary name per process and thread, then an atomic rename: a reader (or a
    # worker on another host sharing the directory) sees the old file or the whole new one
    tmp = p.with_name(f"{p.stem}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, p)
    finally:
        tmp.unlink(missing_ok=True)


def _entries(root: Path):
    return sorted(root.glob("*.json")) if root.is_dir() else []


def _old_layout_dirs(root: Path) -> list[Path]:
    """Directories of the earlier per-fingerprint layout (never read any more)."""
    return [d for d in root.iterdir() if d.is_dir()] if root.is_dir() else []


def entry_valid(data, finder: DependencyFinder) -> bool:
    """True when a stored entry is still valid on today's source: the dependencies its job
    (rebuilt from the entry, any report job kind) has today all hold their recorded digests
    (:func:`holds`); for an entry no job kind names, every recorded file is unchanged."""
    if data is None or not isinstance(data.get("deps"), dict):
        return False
    from golden.report.rekey import job_of
    job = job_of(data)     # None, or the job whose key the entry carries
    if job is not None:
        try:
            today = finder.job_dependencies(job)
        except Exception:  # noqa: BLE001 - an unknown workload: not valid today
            return False
        return holds(data["deps"], today)
    return not finder.changed(data["deps"])


def cache_info(root: Path | str = DEFAULT_ROOT, finder: DependencyFinder | None = None) -> dict:
    """Entries of a cache (or archive) directory: ``entries``, ``valid`` (dependencies
    unchanged today), ``stale``, ``bytes``, and ``old_layout`` (files in directories of the
    earlier per-fingerprint layout)."""
    root, finder = Path(root), finder or default_finder()
    valid = stale = size = 0
    for p in _entries(root):
        size += p.stat().st_size
        data = _read(p)
        if entry_valid(data, finder):
            valid += 1
        else:
            stale += 1
    old = sum(1 for d in _old_layout_dirs(root) for _ in d.glob("*.json"))
    return {"dir": str(root), "entries": valid + stale, "valid": valid, "stale": stale,
            "bytes": size, "old_layout": old}


def clear_cache(root: Path | str = DEFAULT_ROOT, stale_only: bool = False,
                finder: DependencyFinder | None = None) -> int:
    """Remove cached results under ``root`` (with ``stale_only``: only those whose
    dependencies changed, and the earlier layout's directories); return how many."""
    root, finder = Path(root), finder or default_finder()
    n = 0
    for p in _entries(root):
        data = _read(p)
        if stale_only and entry_valid(data, finder):
            continue
        p.unlink(missing_ok=True)
        n += 1
    for d in _old_layout_dirs(root):
        n += sum(1 for _ in d.glob("*.json"))
        shutil.rmtree(d, ignore_errors=True)
    return n


def archive_results(root: Path | str = DEFAULT_ROOT, to: Path | str = DEFAULT_ARCHIVE,
                    size: str | None = "paper", finder: DependencyFinder | None = None) -> int:
    """Copy the cache entries of ``root`` that are valid today (and of input ``size``, all
    sizes when None) into the archive directory ``to`` as sorted, compact JSON; return
    how many were written. An archived entry is replaced only by a newer valid one."""
    root, to, finder = Path(root), Path(to), finder or default_finder()
    n = 0
    for p in _entries(root):
        data = _read(p)
        if not entry_valid(data, finder):
            continue
        if size is not None and data.get("size") != size:
            continue
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str) + "\n"
        dest = to / p.name
        if dest.is_file() and dest.read_text() == text:
            continue
        _write_atomic(dest, text)
        n += 1
    return n
