"""Mutation check of the RTL verification: ``python -m tb.mutate.run`` (``make mutate``).

Each mutant of ``tb/mutate/mutants.yaml`` is one realistic bug: an exact piece of RTL text
replaced by a wrong one. For every mutant, in a scratch copy of the checkout (the files git
tracks, so the working tree is never touched), the mutated file is written and the
mutant's tests run (its structure's Amaranth-simulator tests and cocotb bench under
Icarus), and so do the formal jobs of ``tb/formal`` that check the mutated file (their
``rtl_files``; SymbiYosys proofs of the structure's Assert properties). A mutant is
*caught* when the tests or the formal jobs fail; the report has a column for the
simulator tests, the cocotb benches and the formal jobs. Both
are first run once without any mutant, so a broken suite is not mistaken for a catch.

Prints one line per mutant and writes ``build/mutate/report.md``; exits 1 if a mutant not
marked ``equivalent`` survives, or if a mutant's text is not found exactly once.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from golden.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
MUTANTS = Path(__file__).with_name("mutants.yaml")
_KEYS = {"id", "file", "what", "find", "replace", "tests", "equivalent"}


@dataclass(frozen=True)
class Mutant:
    """One injected bug: ``find`` -> ``replace`` in ``file``, to be caught by ``tests``."""

    id: str
    file: str
    what: str
    find: str
    replace: str
    tests: tuple[str, ...]
    equivalent: bool = False


def load_mutants(path: Path = MUTANTS) -> list[Mutant]:
    """Read and check the mutant list (key paths in every error)."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    rows = doc.get("mutants") if isinstance(doc, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ConfigError(f"{path}: mutants: expected a non-empty list")
    out, seen = [], set()
    for i, row in enumerate(rows):
        where = f"{path}: mutants[{i}]"
        if not isinstance(row, dict):
            raise ConfigError(f"{where}: expected a mapping")
        unknown = set(row) - _KEYS
        if unknown:
            raise ConfigError(f"{where}: unknown keys {sorted(unknown)}")
        for key in ("id", "file", "what", "find", "replace", "tests"):
            if key not in row:
                raise ConfigError(f"{where}: missing key {key!r}")
        if not isinstance(row["tests"], list) or not row["tests"]:
            raise ConfigError(f"{where}.tests: expected a non-empty list of pytest paths")
        if row["id"] in seen:
            raise ConfigError(f"{where}.id: {row['id']!r} is used twice")
        seen.add(row["id"])
        m = Mutant(id=str(row["id"]), file=str(row["file"]), what=str(row["what"]),
                   find=str(row["find"]), replace=str(row["replace"]),
                   tests=tuple(str(t) for t in row["tests"]), equivalent=bool(row.get("equivalent", False)))
        text = (REPO / m.file).read_text(encoding="utf-8") if (REPO / m.file).is_file() else None
        if text is None:
            raise ConfigError(f"{where}.file: {m.file} does not exist")
        if text.count(m.find) != 1:
            raise ConfigError(f"{where}.find: the text occurs {text.count(m.find)} times in "
                              f"{m.file} (must be exactly once)")
        if m.find == m.replace:
            raise ConfigError(f"{where}.replace: same as find")
        out.append(m)
    return out


def scratch_copy(dest: Path) -> None:
    """Copy the files git tracks (plus untracked, not ignored ones) into ``dest``."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def run_tests(root: Path, tests: tuple[str, ...], timeout: float) -> tuple[int, float, str]:
    """pytest on ``tests`` inside ``root``; (exit code, seconds, output tail)."""
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    start = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                               "-p", "no:randomly", *tests], cwd=root, env=env,
                              capture_output=True, text=True, timeout=timeout)
        rc, out = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        rc, out = -1, "timeout"
    return rc, time.monotonic() - start, "\n".join(out.strip().splitlines()[-3:])


def split_tests(tests: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(simulator, cocotb)``: a mutant's test paths under ``tb/`` are its cocotb benches
    (Verilog under Icarus), the others its Amaranth-simulator tests (``tests/rtl``)."""
    cocotb = tuple(t for t in tests if t.startswith("tb/"))
    return tuple(t for t in tests if t not in cocotb), cocotb


def _checkout() -> str:
    """The commit the scratch copy was taken from (``+ local changes`` when the tree is dirty)."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True).stdout.strip()
    rev = git("rev-parse", "--short", "HEAD") or "unknown"
    return rev + (" + local changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def formal_jobs_for(file: str) -> list[str]:
    """Names of the formal jobs that check ``file`` (their ``rtl_files``)."""
    from tb.formal.jobs import all_jobs
    return [job.name for job in all_jobs() if file in job.rtl_files]


def run_formal(root: Path, jobs: list[str], timeout: float) -> tuple[int, float, str]:
    """``python -m tb.formal.run --only jobs`` inside ``root``; (exit code, seconds, tail).
    Exit 1 = an assertion failed or a cover goal became unreachable."""
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="formal-") as out:
        try:
            proc = subprocess.run([sys.executable, "-m", "tb.formal.run", "-j", "2", "--out", out,
                                   "--only", *jobs], cwd=root, env=env,
                                  capture_output=True, text=True, timeout=timeout)
            rc, text = proc.returncode, proc.stdout + proc.stderr
        except subprocess.TimeoutExpired:
            rc, text = -1, "timeout"
    return rc, time.monotonic() - start, "\n".join(text.strip().splitlines()[-3:])


def report_markdown(rows: list[tuple], checkout: str) -> str:
    """The one table of every mutant: caught by the Amaranth-simulator tests, by cocotb, by
    formal (or by which of them), and the verdict."""
    missed = sum(r[4] == "SURVIVED" for r in rows)
    def by(r):
        names = [n for n, v in zip(("simulator", "cocotb", "formal"), r[1:4]) if v == "caught"]
        return " + ".join(names) or "none"
    lines = ["# RTL mutation check", "",
             f"`make mutate` (`python -m tb.mutate.run`) on {checkout}: {len(rows)} injected bugs, "
             f"{sum(r[4] == 'caught' for r in rows)} caught, {missed} survived. simulator = the "
             "structure's Amaranth-simulator tests (tests/rtl); cocotb = its cocotb bench on the "
             "exported Verilog under Icarus (tb/); formal = its formal jobs (tb/formal, "
             "docs/formal.md). Each mutant is injected alone into a scratch copy; every column "
             "is run to completion (a catch by one does not skip the others).", "",
             "| mutant | file | bug | simulator | cocotb | formal | caught by | verdict | seconds |",
             "|---|---|---|---|---|---|---|---|--:|"]
    lines += [f"| {r[0].id} | {r[0].file} | {r[0].what} | {r[1]} | {r[2]} | {r[3]} | {by(r)} | "
              f"{r[4]} | {r[5]:.0f} |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tb.mutate.run", description=__doc__.split("\n\n")[0])
    ap.add_argument("--mutants", default=str(MUTANTS), metavar="FILE",
                    help="mutant list (default: tb/mutate/mutants.yaml)")
    ap.add_argument("--only", nargs="+", metavar="ID", help="run only these mutants")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per test run")
    ap.add_argument("--out", default=str(REPO / "build" / "mutate"), help="report folder")
    ap.add_argument("--no-tests", action="store_true",
                    help="skip the simulator/cocotb tests (formal column only)")
    ap.add_argument("--no-formal", action="store_true", help="skip the formal jobs")
    args = ap.parse_args(argv)
    if args.no_tests and args.no_formal:
        print("error: --no-tests and --no-formal leave nothing to run", file=sys.stderr)
        return 1
    try:
        mutants = load_mutants(Path(args.mutants))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.only:
        unknown = set(args.only) - {m.id for m in mutants}
        if unknown:
            print(f"error: unknown mutant ids {sorted(unknown)}", file=sys.stderr)
            return 1
        mutants = [m for m in mutants if m.id in args.only]
    rows = []
    with tempfile.TemporaryDirectory(prefix="simtlab-mutate-") as tmp:
        root = Path(tmp)
        scratch_copy(root)
        if not args.no_tests:
            union = tuple(dict.fromkeys(t for m in mutants for t in m.tests))
            rc, secs, tail = run_tests(root, union, args.timeout)
            print(f"unmutated: {len(union)} test paths, exit {rc} ({secs:.0f} s)", flush=True)
            if rc != 0:
                print(f"error: the tests fail without any mutant:\n{tail}", file=sys.stderr)
                return 1
        jobs = {} if args.no_formal else {m.id: formal_jobs_for(m.file) for m in mutants}
        all_jobs = list(dict.fromkeys(j for js in jobs.values() for j in js))
        if all_jobs:
            rc, secs, tail = run_formal(root, all_jobs, args.timeout)
            print(f"unmutated: {len(all_jobs)} formal jobs, exit {rc} ({secs:.0f} s)", flush=True)
            if rc != 0:
                print(f"error: the formal jobs fail without any mutant:\n{tail}", file=sys.stderr)
                return 1
        for m in mutants:
            path = root / m.file
            original = path.read_text(encoding="utf-8")
            path.write_text(original.replace(m.find, m.replace), encoding="utf-8")
            secs, by_sim, by_cocotb, by_formal = 0.0, "not run", "not run", "not run"
            try:
                if not args.no_tests:
                    sim, cocotb = split_tests(m.tests)
                    verdicts = []
                    for paths in (sim, cocotb):
                        if not paths:
                            verdicts.append("no test")
                            continue
                        rc, s, tail = run_tests(root, paths, args.timeout)
                        secs += s
                        verdicts.append("caught" if rc not in (0, 5) else "missed")
                    by_sim, by_cocotb = verdicts
                if jobs.get(m.id):
                    rc, s, tail = run_formal(root, jobs[m.id], args.timeout)
                    secs += s
                    by_formal = "caught" if rc == 1 else ("missed" if rc == 0 else f"error {rc}")
                elif not args.no_formal:
                    by_formal = "no formal job"
            finally:
                path.write_text(original, encoding="utf-8")
            caught = "caught" in (by_sim, by_cocotb, by_formal)
            verdict = "caught" if caught else ("survived (equivalent)" if m.equivalent else "SURVIVED")
            rows.append((m, by_sim, by_cocotb, by_formal, verdict, secs))
            print(f"{m.id:<34} simulator {by_sim:<8} cocotb {by_cocotb:<8} formal {by_formal:<14} "
                  f"{verdict:<22} {secs:5.0f} s  {m.what}", flush=True)
    missed = [r[0] for r in rows if r[4] == "SURVIVED"]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(report_markdown(rows, _checkout()), encoding="utf-8")
    print(f"{len(rows)} mutants: {len(rows) - len(missed)} caught or equivalent, {len(missed)} survived "
          f"-> {out / 'report.md'}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
