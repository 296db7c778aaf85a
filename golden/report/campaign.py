"""A long ``paper``-size campaign in the background: ``python -m golden.report.campaign
start|status|stop|archive`` (``make campaign``, ``make campaign-status``, ``make
campaign-stop``, ``make campaign-archive``).

A paper-size report is CPU-days on a laptop, and a sweep must not see the tree change
under it (its workers import the model as they start). So the campaign runs from a
``git worktree`` of the commit it measures (``<dir>/src``), with its own result cache
(``<dir>/cache``), reading the committed archive ``results/runs`` of the main tree, at
the lowest *autogroup* priority on Linux (a job in its own session is its own scheduling
group, so ``nice`` alone would not keep it from slowing the foreground). What it has
finished is copied into ``results/runs`` by ``archive`` (only results still valid for
the main tree's source: :func:`golden.jobs.cache.archive_results`); commit that
directory to keep them. State (pid, commit, reports) is in ``<dir>/campaign.json``; the
progress log in ``<dir>/log``. Simulations are submitted cheapest first (``--order
cheap-first``: by the CPU time stored runs of the same simulation or workload took), so a
campaign stopped part-way has finished as many as it could.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from golden.errors import SimtlabError
from golden.jobs.cache import DEFAULT_ARCHIVE, archive_results

#: default campaign directory, relative to the repository root
DEFAULT_DIR = Path("build/campaign")
REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Campaign:
    """What ``start`` launched: the process group leader, the commit its worktree holds,
    the reports, and when."""

    pid: int
    commit: str
    reports: tuple
    jobs: int
    started: str


def command(reports, jobs: int, root: Path, archive: Path) -> list[str]:
    """The report command the campaign runs inside its worktree."""
    return [sys.executable, "-m", "golden.cli", "report", *reports, "--size", "paper",
            "-j", str(jobs), "--order", "cheap-first",
            "--cache-dir", str(root / "cache"), "--archive", str(archive),
            "--out", str(root / "results"), "--no-figures"]


def _git(*args, cwd: Path = REPO) -> str:
    r = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if r.returncode:
        raise SimtlabError(f"git {' '.join(args)}: {r.stderr.strip() or r.stdout.strip()}")
    return r.stdout.strip()


def _alive(pid: int) -> bool:
    """True while process ``pid`` runs (a zombie, finished but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True                       # no /proc (not Linux): trust the signal
    return stat.rpartition(")")[2].split()[0] != "Z"


def load(root: Path) -> Campaign | None:
    """The campaign recorded in ``root``, or None."""
    try:
        data = json.loads((root / "campaign.json").read_text())
        return Campaign(**{**data, "reports": tuple(data["reports"])})
    except (OSError, ValueError, TypeError, KeyError):
        return None


def running(root: Path) -> Campaign | None:
    """The campaign of ``root`` if its process is still alive."""
    c = load(root)
    return c if c is not None and _alive(c.pid) else None


def _root(root) -> Path:
    """A campaign directory as an absolute path (relative ones are under the repository)."""
    root = Path(root)
    return root if root.is_absolute() else (REPO / root).resolve()


def _worktree(root: Path, commit: str) -> Path:
    """``root/src``: a detached worktree at ``commit`` (created, or moved to it)."""
    src = root / "src"
    if (src / ".git").exists():
        _git("checkout", "-q", "--detach", commit, cwd=src)
    else:
        _git("worktree", "prune")
        _git("worktree", "add", "-q", "--detach", str(src), commit)
    return src


def start(reports, jobs: int, root: Path = DEFAULT_DIR, archive: Path | None = None,
          dry_run: bool = False) -> Campaign | list[str]:
    """Launch the campaign (see the module docstring); with ``dry_run`` only return the
    command it would run."""
    root = _root(root)
    archive = archive or REPO / DEFAULT_ARCHIVE
    cmd = command(reports, jobs, root, archive)
    if dry_run:
        return cmd
    if (c := running(root)) is not None:
        raise SimtlabError(f"a campaign is already running in {root} (pid {c.pid}, reports "
                           f"{' '.join(c.reports)}, commit {c.commit[:12]}): "
                           "`make campaign-stop` first")
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    commit = _git("rev-parse", "HEAD")
    if dirty:
        print(f"note: uncommitted changes are not measured; the campaign runs commit "
              f"{commit[:12]}", file=sys.stderr)
    root.mkdir(parents=True, exist_ok=True)
    src = _worktree(root, commit)
    from golden import native
    env = dict(os.environ)
    if native.DIR_ENV not in env:
        # share this checkout's compiled core when the campaign's commit compiles to the same
        # one; otherwise the campaign keeps its own (a build removes every other build in its
        # directory, so a shared one would delete the developer's core, or theirs the
        # campaign's under its running workers)
        theirs = subprocess.run([sys.executable, "-c", "from golden import native; "
                                 "print(native.group_hash())"], cwd=src, capture_output=True,
                                text=True, env=dict(env, PYTHONPATH=str(src))).stdout.strip()
        same = theirs == native.group_hash()
        env[native.DIR_ENV] = str(native.native_dir() if same else root / "native")
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    log = open(root / "log", "a")
    log.write(f"=== {started} commit {commit[:12]}: "
              f"{' '.join(cmd[3:])}\n")
    log.flush()
    subprocess.run([sys.executable, "-m", "golden.native", "build"], cwd=src, env=env,
                   stdout=log, stderr=subprocess.STDOUT, check=False)
    proc = subprocess.Popen(cmd, cwd=src, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    log.close()
    try:   # Linux: lowest priority for the whole session (its workers inherit it)
        Path(f"/proc/{proc.pid}/autogroup").write_text("19")
    except OSError:
        pass
    c = Campaign(proc.pid, commit, tuple(reports), jobs, started)
    (root / "campaign.json").write_text(json.dumps(asdict(c)))
    return c


def status(root: Path = DEFAULT_DIR, lines: int = 3) -> str:
    """Whether the campaign runs, what it has finished, and the last lines of its log."""
    root = _root(root)
    c = load(root)
    if c is None:
        return f"no campaign in {root}"
    done = len(list((root / "cache").glob("*.json"))) if (root / "cache").is_dir() else 0
    state = "running" if _alive(c.pid) else "not running"
    tail = []
    if (root / "log").is_file():
        tail = (root / "log").read_text(errors="replace").splitlines()[-lines:]
    return "\n".join([f"campaign {state} (pid {c.pid}): {' '.join(c.reports)} at commit "
                      f"{c.commit[:12]}, started {c.started}, {c.jobs} worker(s); "
                      f"{done} result(s) in {root / 'cache'}", *tail])


def stop(root: Path = DEFAULT_DIR) -> bool:
    """Stop a running campaign (its whole process group); True if one was running."""
    root = _root(root)
    c = running(root)
    if c is None:
        return False
    try:
        os.killpg(c.pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    return True


def archive(root: Path = DEFAULT_DIR, to: Path | None = None) -> int:
    """Copy the campaign's finished ``paper`` results that are valid for this tree's source
    into the archive; return how many were written."""
    return archive_results(_root(root) / "cache", to or REPO / DEFAULT_ARCHIVE, size="paper")


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m golden.report.campaign",
                                 description="run a paper-size report campaign in the "
                                             "background from a git worktree")
    ap.add_argument("action", choices=("start", "status", "stop", "archive"))
    ap.add_argument("reports", nargs="*", default=["all"],
                    help="start: reports to run (default: all)")
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR,
                    help="campaign directory (default: %(default)s)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--dry-run", action="store_true", help="start: print the command only")
    args = ap.parse_intermixed_args(argv)
    try:
        if args.action == "start":
            out = start(args.reports or ["all"], args.jobs, args.dir, dry_run=args.dry_run)
            if args.dry_run:
                print(" ".join(out))
            else:
                print(f"campaign started (pid {out.pid}) at commit {out.commit[:12]}: "
                      f"{' '.join(out.reports)}; `make campaign-status` to follow it")
        elif args.action == "status":
            print(status(args.dir))
        elif args.action == "stop":
            print("stopped" if stop(args.dir) else "no campaign running")
        else:
            n = archive(args.dir)
            print(f"archived {n} result(s) into results/runs (commit that directory to keep "
                  f"them)")
    except SimtlabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
