"""What was run, for captions and the HTML page: commit, model fingerprint, versions."""

from __future__ import annotations

import platform
import subprocess
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class RunMeta:
    """The facts every figure caption and the report page state about a run."""

    size: str
    seed: int
    commit: str = "unknown"
    fingerprint: str = ""
    versions: dict = field(default_factory=dict)

    def caption(self, config: str | None) -> str:
        """``config X, size S, seed N, commit C`` (config omitted when None)."""
        parts = ([f"config {config}"] if config else []) + \
            [f"size {self.size}", f"seed {self.seed}", f"commit {self.commit}"]
        return ", ".join(parts)


def git_commit(repo: Path | None = None) -> str:
    """Short commit of the checkout holding simtlab (``+dirty`` when tracked files changed),
    or ``unknown`` outside a git checkout."""
    where = repo or Path(__file__).resolve().parents[3]
    try:
        rev = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=where,
                             capture_output=True, text=True, timeout=10)
        if rev.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=where, capture_output=True, text=True, timeout=10)
        return rev.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def versions() -> dict:
    """Python and the packages the results depend on or are drawn with."""
    from importlib import metadata
    out = {"python": platform.python_version(), "platform": platform.platform()}
    for pkg in ("simtlab", "numpy", "amaranth", "cocotb", "pyyaml", "matplotlib", "dask",
                "distributed"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def run_meta(size: str, seed: int, fingerprint: str | None = None) -> RunMeta:
    """The :class:`RunMeta` of a report run on this checkout."""
    if fingerprint is None:
        from golden.jobs.cache import model_fingerprint
        fingerprint = model_fingerprint()
    return RunMeta(size=size, seed=seed, commit=git_commit(), fingerprint=fingerprint[:16],
                   versions=versions())
