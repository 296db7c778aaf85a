"""On-disk cache of timing-job results, keyed by the job and by the model's source.

A report re-run, or a second report sharing simulations with the first, reuses results
instead of simulating again. A cached result is valid only for the exact model that
produced it: the cache directory is named after :func:`model_fingerprint`, a SHA-256
over every source and data file of the golden model (``golden/**/*.py``, ``*.pyx``,
``*.pxd``, ``*.yaml``, ``*.ptx``, ``*.cu``). Editing any of them starts a fresh
directory; old directories are never read again (``make clean`` removes them).

Layout: ``<root>/<fingerprint[:16]>/<sha256(job key)[:24]>.json``, each file one result
dict (as :func:`golden.report.runner.run_job` returns it), written atomically as soon as
its job finishes, so an interrupted sweep keeps what it completed. Results with an
``error`` field are not cached (a failing job is retried on the next run).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

#: default cache root, relative to the working directory (inside ``build/``)
DEFAULT_ROOT = Path("build/cache/runs")

_SOURCE_SUFFIXES = (".py", ".pyx", ".pxd", ".yaml", ".ptx", ".cu")


def model_fingerprint(package_dir: Path | None = None) -> str:
    """SHA-256 over the relative paths and bytes of the golden model's source files."""
    root = package_dir or Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    files = sorted(p for p in root.rglob("*")
                   if p.is_file() and p.suffix in _SOURCE_SUFFIXES and "__pycache__" not in p.parts)
    for p in files:
        h.update(str(p.relative_to(root)).encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


class ResultCache:
    """Results of timing jobs stored under one model fingerprint."""

    def __init__(self, root: Path | str = DEFAULT_ROOT, fingerprint: str | None = None):
        self.fingerprint = fingerprint or model_fingerprint()
        self.dir = Path(root) / self.fingerprint[:16]

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
        tmp = p.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(result, default=str))
        os.replace(tmp, p)
