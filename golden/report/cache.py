"""On-disk cache of timing-job results, keyed by the job and by the model's source.

A report re-run, or a second report sharing simulations with the first, reuses results
instead of simulating again. A cached result is valid only for the exact model that
produced it: the cache directory is named after :func:`model_fingerprint`, a SHA-256
over every source and data file of the golden model (``golden/**/*.py``, ``*.pyx``,
``*.pxd``, ``*.yaml``, ``*.ptx``, ``*.cu``), so the workloads' PTX, every config YAML
(hence each config after inheritance), the mechanisms and their parameters' code are all
part of it; the job key (:attr:`TimingJob.key`) adds workload, config name, mechanisms
with their arguments, size, seed and config overrides. Editing any of these files starts a
fresh directory; old directories are never read again (``simtlab cache clear`` or ``make
clean`` removes them). Modules that only present or dispatch results (:data:`NOT_MODEL`:
figures, HTML, CSV, the report command, executors, this cache) are not part of the
fingerprint, so editing a figure does not throw away hours of simulations.

Layout: ``<root>/<fingerprint[:16]>/<sha256(job key)[:24]>.json``, each file one result
dict (as :func:`golden.report.runner.run_job` returns it), written atomically as soon as
its job finishes, so an interrupted sweep keeps what it completed. Results with an
``error`` field are not cached (a failing job is retried on the next run).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

#: default cache root, relative to the working directory (inside ``build/``)
DEFAULT_ROOT = Path("build/cache/runs")

_SOURCE_SUFFIXES = (".py", ".pyx", ".pxd", ".yaml", ".ptx", ".cu")

#: paths (relative to the ``golden`` package) that cannot change a simulation's result:
#: presentation and dispatch code. A directory entry ends in ``/``.
NOT_MODEL = ("report/present/", "report/cli.py", "report/cache.py", "report/executors.py")


def _is_model_file(rel: str) -> bool:
    return not any(rel.startswith(n) if n.endswith("/") else rel == n for n in NOT_MODEL)


def model_fingerprint(package_dir: Path | None = None) -> str:
    """SHA-256 over the relative paths and bytes of the golden model's source files."""
    root = package_dir or Path(__file__).resolve().parents[1]
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


class ResultCache:
    """Results of timing jobs stored under one model fingerprint."""

    def __init__(self, root: Path | str = DEFAULT_ROOT, fingerprint: str | None = None):
        self.fingerprint = fingerprint or model_fingerprint()
        self.root = Path(root).resolve()
        self.dir = self.root / self.fingerprint[:16]

    def _path(self, key: str) -> Path:
        return self.dir / (hashlib.sha256(key.encode()).hexdigest()[:24] + ".json")

    def get(self, key: str) -> dict | None:
        """The cached result of job ``key``, or None (missing, unreadable or another key)."""
        p = self._path(key)
        try:
            data = json.loads(p.read_text())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and data.get("key") == key else None

    def put(self, result: dict) -> None:
        """Store one result (atomically); results that carry an ``error`` are skipped."""
        if "error" in result or "key" not in result:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        p = self._path(result["key"])
        # unique temporary name per process and thread, then an atomic rename: a reader (or a
        # worker on another host sharing the directory) sees the old file or the whole new one
        tmp = p.with_name(f"{p.stem}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            tmp.write_text(json.dumps({k: v for k, v in result.items() if k != "from_cache"},
                                      default=str))
            os.replace(tmp, p)
        finally:
            tmp.unlink(missing_ok=True)


def cache_info(root: Path | str = DEFAULT_ROOT, fingerprint: str | None = None) -> list[dict]:
    """One dict per fingerprint directory under ``root``: ``dir``, ``entries``, ``bytes``,
    ``current`` (True for the running model's source), newest first by modification time."""
    root = Path(root)
    cur = (fingerprint or model_fingerprint())[:16]
    out = []
    if root.is_dir():
        for d in root.iterdir():
            if not d.is_dir():
                continue
            files = [f for f in d.glob("*.json")]
            out.append({"dir": str(d), "entries": len(files),
                        "bytes": sum(f.stat().st_size for f in files),
                        "current": d.name == cur, "mtime": d.stat().st_mtime})
    return sorted(out, key=lambda e: (not e["current"], -e["mtime"]))


def clear_cache(root: Path | str = DEFAULT_ROOT, stale_only: bool = False,
                fingerprint: str | None = None) -> int:
    """Remove cached results under ``root`` (only other fingerprints' with ``stale_only``);
    return the number of result files removed."""
    import shutil
    n = 0
    for e in cache_info(root, fingerprint):
        if stale_only and e["current"]:
            continue
        n += e["entries"]
        shutil.rmtree(e["dir"], ignore_errors=True)
    return n
