"""Write a report run's figures, ``results.csv`` and ``index.html`` into the results folder.

Called by ``simtlab report`` after the Markdown/JSON are written and by ``simtlab publish``
(which reads them back). Every file is written atomically (temporary file, then rename), so
an interrupted run never leaves a half-written page or table.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

from golden.fileio import write_output
from golden.report.present.meta import run_meta




def draw_figures(out: Path, name: str, data: dict, meta) -> tuple[list[dict], list[str]]:
    """Save the figures of report ``name``; return ``(saved figure dicts, problems)``. A
    figure function that fails is reported (stderr and the page), not hidden."""
    from golden.report.present.figures import FIGURES
    from golden.report.present.plots import save
    fn = FIGURES.get(name)
    if fn is None:
        return [], []
    if isinstance(data.get("sampling"), dict):   # --sample: error bars from <key>_low/_high
        from golden.report.present.estimates import with_intervals
        data = with_intervals(data)
    try:
        plots = fn(data, meta)
    except Exception as e:  # a broken figure must not cost the tables
        msg = f"figures of '{name}' failed: {type(e).__name__}: {e}"
        print(f"simtlab: {msg}\n{traceback.format_exc()}", file=sys.stderr)
        return [], [msg]
    return [save(p, out / "figures") for p in plots], []


def publish(out: Path, datas: dict, markdowns: dict, results: dict, jobs_of: dict,
            size: str, seed: int, figures: bool = True, fingerprint: str | None = None) -> Path:
    """Figures (``out/figures``), ``out/results.csv`` (all reports; ``out/<name>.csv`` per
    report) and ``out/index.html`` for reports
    ``datas`` (``{name: JSON document}``) with their Markdown; ``results`` / ``jobs_of`` feed
    the tidy CSV. ``validate.json`` in ``out`` (from ``make validate``) is added when present,
    and the per-run views of ``out/profiles/manifest.json`` (``simtlab report --profiles``)
    are linked from each report's tables.
    Return the page's path."""
    from golden.report.present.html import page
    from golden.report.present.tidy import tidy_rows, to_csv
    from golden.report.profile_pages import read_links
    out = Path(out)
    views = read_links(out, size, seed, fingerprint)
    meta = run_meta(size, seed, fingerprint)
    rows = tidy_rows(results, jobs_of)
    write_output(out / "results.csv", to_csv(rows))
    for name in jobs_of:  # and one tidy table per report
        write_output(out / f"{name}.csv", to_csv([r for r in rows if r["report"] == name]))
    sections = []
    extra = {}
    vj, vm = out / "validate.json", out / "validate.md"
    if "validate" not in datas and vj.is_file() and vm.is_file():
        try:
            extra["validate"] = (json.loads(vj.read_text()), vm.read_text())
        except ValueError:
            pass
    items = [(n, datas[n], markdowns[n]) for n in datas] + [(n, d, m) for n, (d, m) in extra.items()]
    for name, data, md in items:
        figs, problems = draw_figures(out, name, data, meta) if figures else ([], [])
        if problems:
            md = "\n".join(f"**{p}**" for p in problems) + "\n\n" + md
        files = [f"{name}.md", f"{name}.json"] + ([] if name in extra else [f"{name}.csv"])
        # interactive views written beside the report (validate's correlation scatter)
        files += [f for f in (f"{name}-correlation.html",) if (out / f).is_file()]
        sections.append({"name": name, "markdown": md, "figures": figs, "files": files,
                         "profiles": views.get(name, {})})
    index = out / "index.html"
    write_output(index, page(out, meta, sections))
    return index
