"""The background paper-size campaign (``make campaign``): a worktree of HEAD, its own
cache, state in ``campaign.json``, archive of what is valid."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from golden.errors import SimtlabError
from golden.report import campaign
from golden.jobs.cache import ResultCache
from golden.report.runner import TimingJob


def test_command_runs_the_reports_at_paper_size_with_its_own_cache(tmp_path):
    cmd = campaign.command(["darsie", "capri"], 2, tmp_path, tmp_path / "arch")
    assert cmd[1:5] == ["-m", "golden.cli", "report", "darsie"]
    text = " ".join(cmd)
    assert "--size paper" in text and "-j 2" in text and "--no-figures" in text
    assert "--order cheap-first" in text
    assert f"--cache-dir {tmp_path / 'cache'}" in text and f"--archive {tmp_path / 'arch'}" in text


def test_dry_run_starts_nothing(tmp_path):
    cmd = campaign.start(["baseline"], 1, tmp_path / "c", dry_run=True)
    assert "baseline" in cmd and not (tmp_path / "c").exists()
    assert campaign.status(tmp_path / "c") == f"no campaign in {tmp_path / 'c'}"
    assert campaign.stop(tmp_path / "c") is False


def test_the_make_target_argument_order_parses(tmp_path, capsys):
    """``make campaign`` passes the options before the reports: ``start -j 1 darsie``."""
    assert campaign.main(["start", "-j", "1", "darsie", "capri", "--dir", str(tmp_path / "c"),
                          "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "report darsie capri --size paper -j 1 --order cheap-first" in out and not (tmp_path / "c").exists()


def test_a_second_campaign_in_the_same_directory_is_refused(tmp_path):
    c = campaign.Campaign(os.getpid(), "0" * 40, ("darsie",), 2, "now")   # alive: this process
    (tmp_path / "campaign.json").write_text(json.dumps(c.__dict__ | {"reports": ["darsie"]}))
    assert campaign.running(tmp_path) == c
    with pytest.raises(SimtlabError, match="already running"):
        campaign.start(["capri"], 1, tmp_path)
    assert "campaign running" in campaign.status(tmp_path)


def _stored(job) -> dict:
    """A result of ``job`` with every field the store's schema asks for."""
    return {"key": job.key, "workload": job.workload, "size": job.size, "cycles": 1,
            "outputs_match": True, "ipc": 1.0, "launches": 1, "output_digest": "0" * 64,
            "timing": {"cycles": 1}, "energy": {}, "stall_fractions": {}}


def test_archive_copies_the_valid_paper_results_only(tmp_path):
    cache = ResultCache(tmp_path / "cache", archive=[])
    for seed, edit in ((0, {}), (1, {"timing/sm.py": "0" * 20})):
        job = TimingJob("VA", "gtx285", "paper", seed)
        deps = cache.dependencies(job)
        cache.put(_stored(job), {**deps, **edit})
    small = TimingJob("VA", "gtx285", "small")
    cache.put(_stored(small), cache.dependencies(small))
    assert campaign.archive(tmp_path, to=tmp_path / "arch") == 1      # valid, paper
    (entry,) = (tmp_path / "arch").glob("*.json")
    assert json.loads(entry.read_text())["key"] == TimingJob("VA", "gtx285", "paper").key


def test_start_runs_from_a_worktree_and_stop_ends_it(tmp_path):
    root = tmp_path / "camp"
    c = campaign.start(["baseline"], 1, root)
    try:
        assert campaign.running(root) == c
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root / "src",
                              capture_output=True, text=True, check=True).stdout.strip()
        assert head == c.commit and (root / "src" / "golden" / "cli.py").is_file()
        assert "campaign running" in campaign.status(root)
    finally:
        assert campaign.stop(root)
        for _ in range(100):
            if campaign.running(root) is None:
                break
            time.sleep(0.1)
        subprocess.run(["git", "worktree", "remove", "--force", str(root / "src")],
                       cwd=campaign.REPO, check=False, capture_output=True)
    assert campaign.running(root) is None
    assert "commit" in (root / "log").read_text()
