"""The formal run's report: ``formal.md`` (the per-structure summary of
:mod:`tb.formal.summary`, then one row per property) and ``formal.json``.

Kept apart from :mod:`tb.formal.flow` (which runs the jobs) because the summary reads the
flow's jobs and rows: the report stands above both.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from tb.formal.flow import FormalJob, Row, ok
from tb.formal.summary import summarise, summary_markdown


def write_report(rows: list[Row], out: Path, wall: float,
                 jobs: list[FormalJob] | None = None) -> Path:
    """``formal.md`` (per-structure summary, then one row per property) and ``formal.json``
    in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    lines = [
        "# Formal verification of the RTL structures",
        "",
        "SymbiYosys (yowasp-sby) with Yices 2. mode prove = k-induction of that length "
        "(proved for every reachable state); bmc = holds for that many cycles after reset; "
        "cover = reachable within that many cycles (step shown). Seconds are the wall time "
        "of the job's SymbiYosys task (all assertions of a job are checked together).",
        "",
        f"Total wall time {wall:.0f} s; {sum(ok(r) for r in rows)} of {len(rows)} rows succeed.",
        "",
        "## Per structure",
        "",
        summary_markdown(summarise(rows, jobs or [])),
        "## Per property",
        "",
        "| structure | size | property | kind | mode | depth | result | s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r.structure} | {r.size} | {r.prop} | {r.kind} | {r.mode} | "
                     f"{r.depth} | {r.result} | {r.seconds} |")
    path = out / "formal.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "formal.json").write_text(json.dumps([asdict(r) for r in rows], indent=1) + "\n",
                                     encoding="utf-8")
    return path
