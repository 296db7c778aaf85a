"""The committed report results (results/runs/, `simtlab cache archive`): every entry is a
well-formed cache entry that `simtlab report` can look up and verify."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from golden.jobs.deps import default_finder

ARCHIVE = Path(__file__).resolve().parents[1] / "results" / "runs"
ENTRIES = sorted(ARCHIVE.glob("*.json")) if ARCHIVE.is_dir() else []


@pytest.mark.parametrize("path", ENTRIES, ids=lambda p: p.stem)
def test_archived_entry_is_well_formed(path):
    data = json.loads(path.read_text())
    key = data["key"]
    # the file name is the cache's name for the key, so the report finds it
    assert path.name == hashlib.sha256(key.encode()).hexdigest()[:24] + ".json"
    assert "error" not in data and data["outputs_match"] is True
    assert data["simulated_at"] and isinstance(data["deps"], dict) and data["deps"]
    assert all(isinstance(v, str) and len(v) == 20 for v in data["deps"].values())
    # every dependency is a file of the golden package (stale digests are allowed: the
    # report then simulates the job again; `simtlab cache clear --stale --cache-dir
    # results/runs` prunes them)
    root = default_finder().root
    assert all((root / rel).resolve().is_relative_to(root) for rel in data["deps"])


def test_the_archive_is_the_reports_default():
    from golden.jobs.cache import DEFAULT_ARCHIVE
    assert DEFAULT_ARCHIVE == Path("results/runs")
