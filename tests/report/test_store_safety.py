"""Issue 74: the result cache and archive never lose a result and never use a bad one.

``cache clear`` touches only entries it wrote (recognised by name, schema and key
checksum) and never the committed archive unless asked; an unwritable store is refused
before any simulation; two writers of one output path never collide; an invalid entry is
quarantined, never used, archived or counted valid. Everything runs in temporary
directories: the committed archive results/runs is only ever read here."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import types

import pytest

from golden.cli import main
from golden.errors import SimtlabError
from golden.fileio import write_atomic, write_output
from golden.jobs.cache import QUARANTINE, ResultCache, archive_results, cache_info, \
    clear_cache, entry_name
from golden.jobs.deps import DependencyFinder
from golden.report.runner import TimingJob

JOB = TimingJob("VA", "gtx285", size="paper")


def _fake_package(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("X = 1\n")
    return pkg


def _entry(key: str, deps: dict, cycles: int = 100) -> dict:
    """A stored result of a timing job with every field run_job writes."""
    return {"key": key, "size": "paper", "deps": deps, "outputs_match": True,
            "cycles": cycles, "ipc": 1.5, "launches": 1, "output_digest": "ab" * 32,
            "timing": {"cycles": cycles, "instructions_issued": 150},
            "energy": {"total_j": 1e-6}, "stall_fractions": {"memory": 0.5}}


def _tree(d):
    return sorted(str(p.relative_to(d)) for p in d.rglob("*"))


def test_clear_stale_removes_only_the_stale_entries_it_wrote(tmp_path):
    """Before: every subdirectory (an archive copy, a notes folder) was removed as the old
    layout, and a symlinked directory was 'removed' but stayed."""
    pkg = _fake_package(tmp_path)
    finder = DependencyFinder(pkg)
    good = {"a.py": finder.digest(pkg / "a.py")}
    root = tmp_path / "cache"
    cache = ResultCache(root, archive=[], finder=finder)
    valid, stale = TimingJob("A", "x"), TimingJob("B", "x")
    cache.put(_entry(valid.key, good), good)
    cache.put(_entry(stale.key, {"a.py": "0" * 20}), {"a.py": "0" * 20})
    # what the cache never wrote: an archive-like folder of entries, notes, a stray JSON,
    # a file named like an entry whose key does not match its name, symbolic links
    runs = root / "runs"
    runs.mkdir()
    (runs / entry_name(stale.key)).write_text(json.dumps(_entry(stale.key, {"a.py": "0"})))
    (root / "notes").mkdir()
    (root / "notes" / "todo.txt").write_text("keep me")
    (root / "stray.json").write_text("{}")
    (root / entry_name("other")).write_text(json.dumps(_entry(valid.key, good)))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / entry_name(stale.key)).write_text(json.dumps(_entry(stale.key, {"a.py": "0"})))
    (root / "0123456789abcdef").symlink_to(elsewhere, target_is_directory=True)
    (root / entry_name("linked")).symlink_to(elsewhere / entry_name(stale.key))
    # an old-layout directory: its entries go, a foreign file in it stays (and so does it)
    old = root / "fedcba9876543210"
    old.mkdir()
    (old / entry_name(stale.key)).write_text(json.dumps(_entry(stale.key, {"a.py": "0"})))
    (old / "readme.txt").write_text("mine")
    before = _tree(root)
    assert clear_cache(root, stale_only=True, finder=finder) == 2
    gone = {entry_name(stale.key), f"fedcba9876543210/{entry_name(stale.key)}"}
    assert _tree(root) == sorted(set(before) - gone)
    assert _tree(elsewhere) == [entry_name(stale.key)]
    # a full clear removes the valid entry too, and still nothing else
    assert clear_cache(root, finder=finder) == 1
    assert _tree(root) == sorted(set(before) - gone - {entry_name(valid.key)})
    # an emptied old-layout directory is removed
    (old / "readme.txt").unlink()
    (old / entry_name(valid.key)).write_text(json.dumps(_entry(valid.key, good)))
    assert clear_cache(root, finder=finder) == 1 and not old.exists()


def test_clear_refuses_the_committed_archive_unless_asked_by_name(tmp_path, capsys):
    """Before: `cache clear --stale --cache-dir results` removed all 1,227 archived results."""
    repo = tmp_path / "repo"
    runs = repo / "results" / "runs"
    runs.mkdir(parents=True)
    (repo / "results" / "README.md").write_text("archive")
    e = _entry(JOB.key, {"timing/sm.py": "0" * 20})     # stale on any source
    (runs / entry_name(JOB.key)).write_text(json.dumps(e))
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "archive"], check=True)
    before = _tree(repo / "results")
    # its parent: only entries at its top level would be candidates; runs/ is untouched
    assert main(["cache", "clear", "--stale", "--cache-dir", str(repo / "results")]) == 0
    assert "removed 0 cached result(s)" in capsys.readouterr().out
    # the archive itself: refused with one line, nothing touched
    assert main(["cache", "clear", "--stale", "--cache-dir", str(runs)]) == 2
    err = capsys.readouterr().err
    assert "committed archive" in err and "--archive-too" in err and "Traceback" not in err
    assert _tree(repo / "results") == before
    # asked by name with the confirmation flag: the stale entry goes
    assert main(["cache", "clear", "--stale", "--archive-too", "--cache-dir", str(runs)]) == 0
    assert not (runs / entry_name(JOB.key)).exists()


def test_unwritable_store_is_refused_before_any_simulation(tmp_path, monkeypatch, capsys):
    """Before: the pool ran every job, then the first store raised a traceback."""
    import golden.jobs.cache as cache_mod
    import golden.jobs.executors as ex

    def no_simulation(job):
        raise AssertionError(f"simulated {job.key} with an unwritable store")
    monkeypatch.setattr(ex, "run_job_safe", no_simulation)
    afile = tmp_path / "afile"
    afile.write_text("x")
    argv = ["report", "baseline", "--size", "small", "-j", "1", "--out", str(tmp_path / "o"),
            "--archive", str(tmp_path)]
    assert main([*argv, "--cache-dir", str(afile)]) == 2
    err = capsys.readouterr().err
    assert f"result cache {afile} is a file, not a directory" in err and "Traceback" not in err
    assert main([*argv, "--plan", "--cache-dir", str(afile)]) == 2
    assert "is a file" in capsys.readouterr().err
    # a read-only directory (simulated: the probe file cannot be created, even as root)
    ro = tmp_path / "ro"
    ro.mkdir()

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(cache_mod, "tempfile", types.SimpleNamespace(mkstemp=refuse))
    assert main([*argv, "--cache-dir", str(ro)]) == 2
    err = capsys.readouterr().err
    assert f"result cache {ro} is not writable (Permission denied)" in err
    assert len(err.strip().splitlines()) <= 2 and "Traceback" not in err


def test_missing_archive_and_cache_directories_are_errors(tmp_path, capsys):
    """Before: --archive /nonexistent and cache archive --cache-dir /nonexistent passed."""
    none = tmp_path / "none"
    assert main(["report", "baseline", "--size", "small", "--plan", "--cache-dir",
                 str(tmp_path), "--archive", str(none)]) == 2
    assert f"--archive {none}: no such directory" in capsys.readouterr().err
    assert main(["cache", "archive", "--cache-dir", str(none), "--to", str(tmp_path / "a")]) == 2
    assert f"no cache directory {none}" in capsys.readouterr().err
    (tmp_path / "afile").write_text("x")
    assert main(["cache", "archive", "--cache-dir", str(tmp_path), "--to",
                 str(tmp_path / "afile")]) == 2
    assert "archive directory" in (err := capsys.readouterr().err) and "is a file" in err
    assert not (tmp_path / "a").exists()


def test_two_writers_of_one_path_never_share_a_temporary_name(tmp_path):
    """Before: both wrote <path>.tmp, so one writer's rename failed (15-35% of writes)."""
    path = tmp_path / "out.json"
    errors, texts = [], [json.dumps({"writer": i, "pad": "x" * 20000}) for i in range(4)]
    start = threading.Barrier(len(texts))

    def writer(text):
        start.wait()
        for _ in range(150):
            try:
                write_output(path, text)
            except Exception as e:  # noqa: BLE001 - what the test counts
                errors.append(e)
    threads = [threading.Thread(target=writer, args=(t,)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert path.read_text() in texts                       # one whole version, never mixed
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]   # no temporary left


def test_write_output_is_a_one_line_error_and_leaves_nothing(tmp_path, monkeypatch):
    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(SimtlabError, match="cannot write .*out.json: Permission denied"):
        write_output(tmp_path / "out.json", "{}")
    with pytest.raises(PermissionError):
        write_atomic(tmp_path / "b.json", b"{}")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("corrupt, problem", [
    (lambda e: e.update(cycles=2 * e["cycles"]), "differs from its timing record"),
    (lambda e: e.pop("energy"), "'energy' is missing"),
    (lambda e: e.update(cycles="abc"), "'cycles' is str"),
    (lambda e: e.pop("timing"), "'timing' is missing"),
    (lambda e: e.update(outputs_match="yes"), "outputs_match"),
    (lambda e: e.update(error="boom"), "an error record"),
    (None, "not valid JSON"),
], ids=["doubled-cycles", "no-energy", "cycles-abc", "no-timing", "outputs-match-text",
        "error-record", "truncated"])
def test_an_invalid_entry_is_quarantined_never_used_archived_or_valid(tmp_path, corrupt,
                                                                      problem, capsys):
    """Before: a doubled `cycles` was trusted and archived; a missing `energy` silently
    dropped rows; `"cycles": "abc"` or no `timing` crashed the report yet counted valid."""
    root, arch = tmp_path / "cache", tmp_path / "arch"
    cache = ResultCache(root, archive=[], finder=None)
    deps = cache.dependencies(JOB)
    cache.put(_entry(JOB.key, deps), deps)
    assert cache.get(JOB, deps)["cycles"] == 100           # the intact entry is used
    p = root / entry_name(JOB.key)
    if corrupt is None:
        p.write_text(p.read_text()[:40])
    else:
        e = json.loads(p.read_text())
        corrupt(e)
        p.write_text(json.dumps(e))
    info = cache_info(root)
    assert (info["entries"], info["valid"], info["invalid"]) == (0, 0, 1)
    assert archive_results(root, arch, "paper") == 0 and not list(arch.glob("*.json"))
    assert clear_cache(root) == 0 and p.exists()           # not provably the cache's own
    assert cache.get(JOB, deps) is None and cache.get_unverified(JOB.key) is None
    assert not p.exists() and (root / QUARANTINE / p.name).is_file()   # moved aside
    err = capsys.readouterr().err
    assert problem in err and "not used, moved to" in err
    # a quarantined entry stays out of every count; a new result is stored normally
    cache.put(_entry(JOB.key, deps), deps)
    assert cache_info(root)["valid"] == 1


def test_an_invalid_archived_entry_is_skipped_and_left_in_place(tmp_path, capsys):
    arch = tmp_path / "arch"
    cache = ResultCache(tmp_path / "cache", archive=[arch])
    deps = cache.dependencies(JOB)
    arch.mkdir()
    e = _entry(JOB.key, deps)
    e["cycles"] = 200
    (arch / entry_name(JOB.key)).write_text(json.dumps(e))
    assert cache.get(JOB, deps) is None
    assert (arch / entry_name(JOB.key)).is_file()
    assert "left in place" in capsys.readouterr().err


def test_archived_entries_of_every_kind_validate(tmp_path):
    """The schema accepts what the committed archive holds (read, never written here)."""
    from golden.jobs.cache import DEFAULT_ARCHIVE, checked_entry
    from golden.jobs.deps import PACKAGE_DIR
    runs = PACKAGE_DIR.parent / DEFAULT_ARCHIVE
    files = sorted(runs.glob("*.json"))
    if not files:
        pytest.skip("no committed archive in this checkout")
    bad = [(p.name, problem) for p in files if (problem := checked_entry(p)[1])]
    assert bad == []


def test_atomic_writes_get_the_permissions_of_an_ordinary_write(tmp_path):
    """mkstemp's temporary files are owner-only (0600); a written result or report must
    be readable as any file the user writes (0666 less the umask), e.g. on a shared cache."""
    old = os.umask(0o022)
    try:
        p = write_atomic(tmp_path / "r.json", "{}")
        assert p.stat().st_mode & 0o777 == 0o644
        os.umask(0o077)
        assert write_atomic(tmp_path / "s.json", "{}").stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)


def test_an_edited_entry_that_still_fits_the_schema_is_refused_by_its_checksum(tmp_path, capsys):
    """Both cycle counts doubled (consistent with each other, so the schema passes): the
    checksum the cache sealed the entry with no longer matches, so it is quarantined."""
    root = tmp_path / "cache"
    cache = ResultCache(root, archive=[], finder=None)
    deps = cache.dependencies(JOB)
    cache.put(_entry(JOB.key, deps), deps)
    p = root / entry_name(JOB.key)
    e = json.loads(p.read_text())
    assert e["checksum"] and "checksum" not in cache.get(JOB, deps)
    e["cycles"] *= 2
    e["timing"]["cycles"] *= 2
    p.write_text(json.dumps(e))
    assert cache.get(JOB, deps) is None
    assert "checksum does not match" in capsys.readouterr().err


def test_an_entry_without_a_checksum_is_checked_by_the_schema_and_sealed_when_archived(tmp_path):
    """Entries written before checksums existed (the committed archive) stay valid; the
    archive copy gets a checksum that validates."""
    from golden.jobs.entries import entry_checksum
    root, arch = tmp_path / "cache", tmp_path / "arch"
    cache = ResultCache(root, archive=[], finder=None)
    deps = cache.dependencies(JOB)
    root.mkdir()
    (root / entry_name(JOB.key)).write_text(json.dumps(_entry(JOB.key, deps)))
    assert cache.get(JOB, deps)["cycles"] == 100
    assert archive_results(root, arch, "paper") == 1
    copied = json.loads((arch / entry_name(JOB.key)).read_text())
    assert copied["checksum"] == entry_checksum(copied)
