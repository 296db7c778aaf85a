"""On-disk cache of report-job results, each valid while the files it depends on are unchanged.

A report re-run, or a second report sharing simulations with the first, reuses results
instead of simulating again. Every stored result carries its job's dependency map
(:mod:`golden.jobs.deps`: path -> digest of every golden module its result can depend
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
  ``simtlab cache rekey`` (:mod:`golden.jobs.rekey`) carries stale ones over to today's
  source once witnesses of their group reproduce their stored results exactly.

The whole-model :func:`model_fingerprint` is kept for provenance (the results page shows
it); the cache no longer keys on it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from golden.errors import SimtlabError
from golden.fileio import write_atomic
from golden.jobs.deps import NOT_MODEL, PACKAGE_DIR, DependencyFinder, default_finder, holds, \
    is_model_file
from golden.jobs.entries import CHECKSUM, entry_name, entry_problem, is_entry_name, load_entry, seal
from golden.jobs.job import TimingJob
from golden.jobs.sampled import SampledTimingJob
from golden.jobs.kinds import job_of

#: default cache root, relative to the working directory (inside ``build/``)
DEFAULT_ROOT = Path("build/cache/runs")
#: committed results, relative to the working directory (the repository root)
DEFAULT_ARCHIVE = Path("results/runs")
#: Where ``simtlab cache rekey`` keeps its witnesses' new runs until their group is re-keyed.
DEFAULT_WITNESSES = Path("build/cache/rekey-witnesses")

_SOURCE_SUFFIXES = (".py", ".pyx", ".pxd", ".yaml", ".ptx", ".cu")

#: sub-directory of a cache root that invalid entries are moved to (never read again)
QUARANTINE = "quarantine"

__all__ = ["DEFAULT_ARCHIVE", "DEFAULT_ROOT", "DEFAULT_WITNESSES", "NOT_MODEL", "QUARANTINE",
           "CpuEstimator", "ResultCache", "archive_results", "cache_info", "checked_entry",
           "clear_cache", "entries_of", "entry_name", "entry_valid", "is_committed_archive",
           "model_fingerprint", "read_entry", "require_writable", "source_commit"]


def model_fingerprint(package_dir: Path | None = None) -> str:
    """SHA-256 over the relative paths and bytes of every model source file of the golden
    package (provenance of a whole results page; presentation code excluded)."""
    root = package_dir or PACKAGE_DIR
    h = hashlib.sha256()
    files = sorted(p for p in root.rglob("*")
                   if p.is_file() and p.suffix in _SOURCE_SUFFIXES and "__pycache__" not in p.parts
                   and is_model_file(p.relative_to(root).as_posix()))
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


def read_entry(p: Path) -> dict | None:
    """The JSON object stored at ``p``, or None (no file, unreadable, not an object);
    not checked against the schema (:func:`checked_entry` does that)."""
    return load_entry(p)[0]


def _is_timing_job(job) -> bool:
    return isinstance(job, (TimingJob, SampledTimingJob))


def checked_entry(p: Path, job=None) -> tuple[dict | None, str | None]:
    """``(entry, None)`` for a valid entry at ``p`` (:func:`entry_problem`), ``(None,
    None)`` when there is none, ``(None, problem)`` for an invalid one. ``job``: the job
    the entry should belong to (else rebuilt from the entry, :func:`golden.jobs.kinds.job_of`)."""
    data, problem = load_entry(p)
    if data is None:
        return None, problem
    if job is None:
        job = job_of(data)
    problem = entry_problem(data, p.name, timing_job=_is_timing_job(job))
    return (None, problem) if problem else (data, None)


def require_writable(d: Path | str, what: str = "result cache") -> Path:
    """Create directory ``d`` if needed and prove a file can be created in it; a
    :class:`SimtlabError` (one line) when ``d`` is a file or cannot be written."""
    d = Path(d)
    if d.exists() and not d.is_dir():
        raise SimtlabError(f"{what} {d} is a file, not a directory")
    try:
        d.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".simtlab-write-probe.", dir=d)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise SimtlabError(f"{what} {d} is not writable ({e.strerror or e})") from None
    return d


@lru_cache(maxsize=64)
def _tracked_by_git(d: str) -> bool:
    try:
        out = subprocess.run(["git", "ls-files", "--", "."], cwd=d, text=True,
                             capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and any("/" not in line and is_entry_name(line)
                                       for line in out.stdout.splitlines())


def is_committed_archive(d: Path | str) -> bool:
    """True when ``d`` is the committed archive: the repository's ``results/runs``, the
    default archive of the working directory, or any directory whose entries git tracks."""
    d = Path(d)
    if not d.is_dir():
        return False
    r = d.resolve()
    if r in {(PACKAGE_DIR.parent / DEFAULT_ARCHIVE).resolve(), DEFAULT_ARCHIVE.resolve()}:
        return True
    return _tracked_by_git(str(r))


class ResultCache:
    """Results of report jobs, each stored with its dependency map.

    ``finder`` computes dependency maps (a :class:`DependencyFinder`; the installed package's
    by default). ``archive`` is a list of read-only directories searched after ``root``
    (default: ``results/runs`` when it exists)."""

    def __init__(self, root: Path | str = DEFAULT_ROOT, archive=None,
                 finder: DependencyFinder | None = None):
        if Path(root).exists() and not Path(root).is_dir():
            raise SimtlabError(f"result cache {root} is a file, not a directory")
        self.root = Path(root).resolve()
        self.dir = self.root
        if archive is None:
            archive = [DEFAULT_ARCHIVE] if DEFAULT_ARCHIVE.is_dir() else []
        self.archive = [Path(a).resolve() for a in archive]
        self.finder = finder or default_finder()
        self._fingerprint: str | None = None
        #: ``(path, problem)`` of every invalid entry met (moved to ``<root>/quarantine``
        #: when it was in this cache's own root, only skipped in an archive)
        self.quarantined: list[tuple[Path, str]] = []

    def require_writable(self) -> None:
        """Fail with one line, before any simulation starts, when results could not be
        stored (the root is a file or cannot be written)."""
        require_writable(self.root)

    def _valid_entries(self, key: str, job=None):
        """The valid entries of job ``key``, the cache's own first, then each archive's;
        invalid entries met on the way are quarantined."""
        name = entry_name(key)
        for d in (self.root, *self.archive):
            p = d / name
            data, problem = checked_entry(p, job)
            if problem is not None:
                self._quarantine(p, problem)
                continue
            if data is not None and data.get("key") == key:
                yield data

    def _lookup(self, key: str, job=None):
        """The valid entry of job ``key`` in the cache or, failing that, an archive (None
        when there is none)."""
        return next(self._valid_entries(key, job), None)

    def _quarantine(self, p: Path, problem: str) -> None:
        """Move invalid entry ``p`` out of the way (only from this cache's own root, never
        from an archive or the committed archive) and say so on stderr, once per file."""
        if any(q == p for q, _ in self.quarantined):
            return
        self.quarantined.append((p, problem))
        where = "left in place (an archive is read-only here)"
        if p.parent == self.root and not is_committed_archive(self.root):
            dest = self.root / QUARANTINE / p.name
            try:
                dest.parent.mkdir(exist_ok=True)
                os.replace(p, dest)
                where = f"moved to {dest}"
            except OSError as e:
                where = f"could not be moved aside ({e.strerror or e})"
        print(f"simtlab: invalid result entry {p} ({problem}): not used, {where}",
              file=sys.stderr)

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
        for data in self._valid_entries(job.key, job):
            if holds(data["deps"], deps):
                return {k: v for k, v in data.items() if k not in ("deps", CHECKSUM)}
        return None

    def get_unverified(self, key: str) -> dict | None:
        """The stored result of job ``key`` whatever the source now is (presentation of a
        report's own results, ``simtlab publish``)."""
        data = self._lookup(key)
        return None if data is None else {k: v for k, v in data.items()
                                          if k not in ("deps", CHECKSUM)}

    def put(self, result: dict, deps: dict[str, str] | None) -> None:
        """Store one result with its dependency map (atomically). Results that carry an
        ``error``, and jobs whose dependencies are unknown, are not stored."""
        if "error" in result or "key" not in result or deps is None:
            return
        entry = {k: v for k, v in result.items() if k not in ("from_cache", "deps")}
        entry.setdefault("simulated_at", source_commit())
        entry["deps"] = deps
        write_atomic(self.root / entry_name(result["key"]), json.dumps(seal(entry), default=str))


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
            for p in entries_of(d):
                data = read_entry(p)
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


def entries_of(root: Path) -> list[Path]:
    """Files of ``root`` named like entries (``<24 hex digits>.json``; symbolic links are
    not the cache's own files and are left out), sorted."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.glob("*.json")
                  if is_entry_name(p.name) and not p.is_symlink() and p.is_file())


#: an old per-fingerprint directory was named after fingerprint[:16] (16 hex digits)
_OLD_LAYOUT = re.compile(r"[0-9a-f]{16}")


def _old_layout_dirs(root: Path) -> list[Path]:
    """Directories of the earlier per-fingerprint layout (never read any more): named by
    16 hex digits, real directories (not symbolic links)."""
    if not root.is_dir():
        return []
    return sorted(d for d in root.iterdir()
                  if _OLD_LAYOUT.fullmatch(d.name) and d.is_dir() and not d.is_symlink())


def _own_entry(p: Path) -> dict | None:
    """The entry at ``p`` when it is one the cache wrote: its name is the checksum of the
    key it holds and it meets the schema (:func:`checked_entry`); else None."""
    data, problem = checked_entry(p)
    return data if problem is None else None


def entry_valid(data, finder: DependencyFinder) -> bool:
    """True when a stored entry is still valid on today's source: the dependencies its job
    (rebuilt from the entry, any report job kind) has today all hold their recorded digests
    (:func:`holds`); for an entry no job kind names, every recorded file is unchanged."""
    if data is None or not isinstance(data.get("deps"), dict):
        return False
    job = job_of(data)     # None, or the job whose key the entry carries
    if entry_problem(data, timing_job=_is_timing_job(job)) is not None:
        return False
    if job is not None:
        try:
            today = finder.job_dependencies(job)
        except Exception:  # noqa: BLE001 - an unknown workload: not valid today
            return False
        return holds(data["deps"], today)
    return not finder.changed(data["deps"])


def cache_info(root: Path | str = DEFAULT_ROOT, finder: DependencyFinder | None = None) -> dict:
    """Entries of a cache (or archive) directory: ``entries``, ``valid`` (dependencies
    unchanged today), ``stale``, ``invalid`` (named like an entry but failing the schema,
    :mod:`golden.jobs.entries`), ``other`` (other JSON files, never counted as results),
    ``bytes``, and ``old_layout`` (entries in directories of the earlier per-fingerprint
    layout)."""
    root, finder = Path(root), finder or default_finder()
    valid = stale = invalid = size = 0
    for p in entries_of(root):
        data = _own_entry(p)
        if data is None:
            invalid += 1
            continue
        size += p.stat().st_size
        if entry_valid(data, finder):
            valid += 1
        else:
            stale += 1
    other = sum(1 for p in root.glob("*.json") if not is_entry_name(p.name) or p.is_symlink()) \
        if root.is_dir() else 0
    old = sum(1 for d in _old_layout_dirs(root) for p in entries_of(d) if _own_entry(p))
    return {"dir": str(root), "entries": valid + stale, "valid": valid, "stale": stale,
            "invalid": invalid, "other": other, "bytes": size, "old_layout": old}


def clear_cache(root: Path | str = DEFAULT_ROOT, stale_only: bool = False,
                finder: DependencyFinder | None = None, archive_ok: bool = False) -> int:
    """Remove cached results under ``root`` (with ``stale_only``: only those whose
    dependencies changed, and the entries of the earlier layout's directories); return how
    many. Only files the cache wrote are touched: named ``<sha256(key)[:24]>.json`` after
    the key they hold and meeting the schema (:mod:`golden.jobs.entries`); in an old
    layout's directory (16 hex digits) the same, the directory itself removed only once
    empty. Every other file or directory, and symbolic links, are left alone. The
    committed archive (:func:`is_committed_archive`) is refused unless ``archive_ok``."""
    root, finder = Path(root), finder or default_finder()
    if root.exists() and not root.is_dir():
        raise SimtlabError(f"{root} is a file, not a cache directory")
    if is_committed_archive(root) and not archive_ok:
        raise SimtlabError(f"{root} is the committed archive of results; `cache clear` leaves "
                           f"it alone unless asked with --cache-dir naming it and --archive-too")
    n = 0
    for p in entries_of(root):
        data = _own_entry(p)
        if data is None or (stale_only and entry_valid(data, finder)):
            continue
        p.unlink(missing_ok=True)
        n += 1
    for d in _old_layout_dirs(root):
        for p in entries_of(d):
            if _own_entry(p) is not None:
                p.unlink(missing_ok=True)
                n += 1
        try:
            d.rmdir()          # only when nothing else is in it
        except OSError:
            pass
    return n


def archive_results(root: Path | str = DEFAULT_ROOT, to: Path | str = DEFAULT_ARCHIVE,
                    size: str | None = "paper", finder: DependencyFinder | None = None) -> int:
    """Copy the cache entries of ``root`` that are valid today (and of input ``size``, all
    sizes when None) into the archive directory ``to`` as sorted, compact JSON; return
    how many were written. An archived entry is replaced only by a newer valid one. An
    entry failing the schema is never copied."""
    root, to, finder = Path(root), Path(to), finder or default_finder()
    if not root.is_dir():
        raise SimtlabError(f"cache archive: no cache directory {root}")
    require_writable(to, "archive directory")
    n = 0
    for p in entries_of(root):
        data = _own_entry(p)
        if data is None or not entry_valid(data, finder):
            continue
        if size is not None and data.get("size") != size:
            continue
        text = json.dumps(seal(data), sort_keys=True, separators=(",", ":"), default=str) + "\n"
        dest = to / p.name
        if dest.is_file() and dest.read_text() == text:
            continue
        write_atomic(dest, text)
        n += 1
    return n
