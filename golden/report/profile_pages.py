"""Per-run views beside the results page (issue 72 item 4): ``simtlab report --profiles``.

For each report, its *headline runs* (:data:`HEADLINE`: the run of the mechanism that
stands for the report's paper, alone and without config overrides, on each workload of the
report at the report's size and seed; the baseline report's plain runs) are simulated once
more with the per-PC profiler on (:func:`golden.report.profile.profile_workload`), as is the
baseline of each (same workload, configuration, size and seed, no mechanism). Written next
to ``index.html``:

* ``profiles/<workload>-<config>-<mechanisms>-<size>-s<seed>.html`` -- the annotated
  listing of the run (:func:`golden.report.profile_render.html_listing`);
* ``...-diff.html`` -- that run against its baseline, instructions sorted by the cycles
  gained or lost (:func:`~golden.report.profile_render.html_diff`);
* ``...-timeline.html`` -- the same run over time, per SM and DRAM channel, sampled every
  :data:`TIMELINE_SAMPLES`-th of its cycles (:func:`golden.report.timeline_render.html_page`;
  a second simulation of the run, since the timeline and the profiler cannot observe one
  run together; its cycles are checked against the profiled run's);
* ``profiles/manifest.json`` -- per report and workload, the links, the model fingerprint
  they were made with and any problem; :func:`golden.report.present.publish` reads it to
  link the views from the report's tables (so ``simtlab publish`` keeps the links).

The profiler only reads counters, so a profiled run's cycles equal the run the report
used; each view is checked against the report's result when it is there, and a difference
is listed as a problem on the page. A view whose files exist and whose manifest entry was
made with the same model fingerprint is not simulated again. Off unless asked for: a
plain ``simtlab report`` runs no profile.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from golden.fileio import write_output

#: report -> the mechanisms of its headline run (() = the baseline run itself); reports
#: not listed (hetero, fidelity) have no per-run views
HEADLINE: dict[str, tuple] = {
    "baseline": (), "darsie": ("darsie",), "gscalar": ("gscalar",), "ilp": ("ilp-sc",),
    "uv": ("uv-token",), "warpman": ("warpman-duel",), "coarse": ("coarse4-duel",),
    "capri": ("capri",), "compose": ("darsie", "gscalar"),
}
#: a timeline beside each profile has about this many samples (the interval comes from the
#: report's own cycles of the run when it has them, else 1,000 cycles)
TIMELINE_SAMPLES = 400
#: folder of the views, relative to the results folder
FOLDER = "profiles"
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class RunView:
    """One profiled run: what the report ran, at its size and seed."""

    workload: str
    config: str
    size: str
    seed: int
    mechanisms: tuple = ()

    @property
    def label(self) -> str:
        return "+".join(self.mechanisms) or "baseline"

    @property
    def stem(self) -> str:
        """File stem: ``<workload>-<config>-<mechanisms>-<size>-s<seed>`` (file-name safe)."""
        return re.sub(r"[^A-Za-z0-9_.+-]", "_",
                      f"{self.workload}-{self.config}-{self.label}-{self.size}-s{self.seed}")

    def baseline(self) -> "RunView":
        return RunView(self.workload, self.config, self.size, self.seed)

    @property
    def key(self) -> str:
        """The report job's key of the same run (:attr:`golden.report.runner.TimingJob.key`)."""
        return f"{self.workload}/{self.config}/{self.label}/{self.size}/s{self.seed}"


def headline_views(name: str, module, opts) -> list[RunView]:
    """The headline runs of report ``name`` (module ``module``) at ``opts``: its timing jobs
    with exactly :data:`HEADLINE` ``[name]`` as mechanisms and no overrides, one per
    workload and configuration, in the report's order."""
    want = HEADLINE.get(name)
    if want is None:
        return []
    out = {}
    for j in module.jobs(opts):
        if (getattr(j, "mechanisms", None) == want and getattr(j, "overrides", None) == ()
                and hasattr(j, "config")):
            v = RunView(j.workload, j.config, j.size, j.seed, want)
            out.setdefault(v, None)
    return list(out)


def timeline_every(cycles: int | None) -> int:
    """The timeline's sampling interval for a run of ``cycles`` (unknown: 1,000 cycles)."""
    return max(100, -(-cycles // TIMELINE_SAMPLES)) if cycles else 1000


def _profile(v: RunView, source_lines: bool = True, every: int = 1000):
    """Worker: the :class:`~golden.report.profile.RunProfile` of ``v`` and its timeline
    document, or the error text (a failed view is listed on the page; it must not cost the
    report its tables)."""
    from golden.report.profile import profile_workload
    from golden.report.timeline import timeline_workload
    try:
        p = profile_workload(v.workload, size=v.size, seed=v.seed, config=v.config,
                             mechanisms=v.mechanisms, source_lines=source_lines)
        t = timeline_workload(v.workload, size=v.size, seed=v.seed, config=v.config,
                              mechanisms=v.mechanisms, every=every)
        return p, t
    except Exception as e:  # noqa: BLE001 -- reported with the view, see above
        return f"{type(e).__name__}: {e}"


def _load_manifest(folder: Path) -> dict:
    try:
        doc = json.loads((folder / MANIFEST).read_text())
        return doc if isinstance(doc, dict) and isinstance(doc.get("views"), dict) else {}
    except (OSError, ValueError):
        return {}


def write_profiles(out: Path, views_of: dict, results: dict, workers: int = 1,
                   fingerprint: str | None = None, log=None, source_lines: bool = True) -> dict:
    """Profile the runs ``views_of`` (``{report: [RunView]}``) and their baselines, write
    their pages into ``out/profiles`` and the manifest; return the manifest
    (``{"fingerprint", "views": {stem: {...}}, "reports": {report: {workload: [links]}}}``).
    ``results``: the report results by job key, for the cycle check. ``fingerprint``: the
    model's; a view made with the same one whose files exist is kept (None: always redo).
    ``workers``: processes (1: in this process); ``source_lines``: map to CUDA lines."""
    from golden.report.profile import diff_profiles
    from golden.report.profile_render import html_diff, html_listing
    from golden.report.timeline_render import html_page
    from golden.workers import run_unordered
    folder = Path(out) / FOLDER
    old = _load_manifest(folder)
    views = dict(old.get("views", {})) if fingerprint and old.get("fingerprint") == fingerprint \
        else {}
    wanted: dict = {}
    for vs in views_of.values():
        for v in vs:
            wanted[v] = None
            if v.mechanisms:
                wanted[v.baseline()] = None

    def files_of(v: RunView) -> list[str]:
        return ([f"{v.stem}.html", f"{v.stem}-timeline.html"]
                + ([f"{v.stem}-diff.html"] if v.mechanisms else []))

    def every_of(v: RunView) -> int:
        return timeline_every((results.get(v.key) or {}).get("cycles"))

    todo = [v for v in wanted
            if v.stem not in views or not all((folder / f).is_file() for f in files_of(v))]
    # a diff needs its baseline's profile in this process: redo the baseline too
    todo = list(dict.fromkeys(todo + [v.baseline() for v in todo if v.mechanisms]))
    profiles: dict = {}
    if todo and log:
        log(f"profiling {len(todo)} run(s) for the results page's per-run views")
    if workers <= 1 or len(todo) <= 1:
        profiles = {v: _profile(v, source_lines, every_of(v)) for v in todo}
    else:
        run_unordered(_profile, [(v, (v, source_lines, every_of(v))) for v in todo], workers,
                      lambda v, p: profiles.__setitem__(v, p))
    for v in sorted(todo, key=lambda v: len(v.mechanisms)):   # baselines first
        p = profiles[v]
        entry = {"workload": v.workload, "config": v.config, "label": v.label,
                 "files": files_of(v), "problems": []}
        if not isinstance(p, str):
            p, timeline = p
        if isinstance(p, str):
            entry["problems"].append(f"profile of {v.key} failed: {p}")
            entry["files"] = []
            views[v.stem] = entry
            continue
        r = results.get(v.key)
        if r is not None and "cycles" in r and r["cycles"] != p.cycles:
            entry["problems"].append(f"{v.key}: the profiled run took {p.cycles:,} cycles, "
                                     f"the report's run {r['cycles']:,}")
        if not p.outputs_match:
            entry["problems"].append(f"{v.key}: outputs differ from numpy")
        entry["cycles"] = p.cycles
        write_output(folder / f"{v.stem}.html", html_listing(p))
        write_output(folder / f"{v.stem}-timeline.html", html_page(timeline))
        if timeline["cycles"] != p.cycles:
            entry["problems"].append(f"{v.key}: the timeline's run took {timeline['cycles']:,} "
                                     f"cycles, the profiled run {p.cycles:,}")
        if v.mechanisms:
            a = profiles.get(v.baseline())
            a = a[0] if isinstance(a, tuple) else a
            if isinstance(a, str) or a is None:
                entry["problems"].append(f"{v.key}: no baseline profile to diff against")
                entry["files"] = entry["files"][:2]
            else:
                write_output(folder / f"{v.stem}-diff.html", html_diff(a, p, diff_profiles(a, p)))
        views[v.stem] = entry
    reports: dict = {}
    for name, vs in views_of.items():
        per = reports.setdefault(name, {})
        for v in vs:
            links = per.setdefault(v.workload, [])
            many = len({x.config for x in vs if x.workload == v.workload}) > 1
            for b in ([v.baseline()] if v.mechanisms else []) + [v]:
                e = views.get(b.stem, {})
                for f in e.get("files", []):
                    kind = ("diff vs baseline" if f.endswith("-diff.html") else
                            "timeline" if f.endswith("-timeline.html") else "profile")
                    links.append({"label": f"{b.label} {kind}" + (f" ({b.config})" if many else ""),
                                  "href": f"{FOLDER}/{f}"})
            for msg in views.get(v.stem, {}).get("problems", []):
                links.append({"label": f"problem: {msg}", "href": None})
    sizes = {(v.size, v.seed) for vs in views_of.values() for v in vs}
    size, seed = next(iter(sizes)) if len(sizes) == 1 else (None, None)
    doc = {"fingerprint": fingerprint, "size": size, "seed": seed, "views": views,
           "reports": reports}
    write_output(folder / MANIFEST, json.dumps(doc, indent=1))
    return doc


def read_links(out: Path, size: str, seed: int, fingerprint: str | None = None) -> dict:
    """``{report: {workload: [{"label", "href"}]}}`` from ``out/profiles/manifest.json``:
    empty when there is none, or when it was written for another size or seed, or (both
    known) another model fingerprint than the page's; hrefs whose file is gone are dropped."""
    doc = _load_manifest(Path(out) / FOLDER)
    if (doc.get("size"), doc.get("seed")) != (size, seed) or (
            fingerprint and doc.get("fingerprint") and doc["fingerprint"] != fingerprint):
        return {}
    reports = doc.get("reports", {}) if isinstance(doc.get("reports"), dict) else {}
    return {name: {w: [x for x in links if x.get("href") is None
                       or (Path(out) / x["href"]).is_file()]
                   for w, links in per.items()}
            for name, per in reports.items() if isinstance(per, dict)}
