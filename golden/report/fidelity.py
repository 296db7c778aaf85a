"""Workload fidelity: each stand-in beside the properties the seeds publish for the
benchmark it stands for (``simtlab characterise --against-papers``; issue 66 item 1).

One **row** per stand-in per paper that uses it (the workload's ``stands_for`` entries
say which), one **cell** per property that paper publishes for that benchmark. The
published values are data (``facts/fidelity.yaml``, each with its table or section of
paper-facts.md); the measured values are code (:data:`PROPERTIES`), taken from:

* :class:`FidelityProbe` -- one functional run per workload (cheap, always run): TB shape,
  warp / thread instructions and branches, per-TB work of the main launch
  (:class:`golden.workloads.tb_work.TBWorkObserver`) and the main kernel's occupancy on
  the WarpMan (``gtx480_warpman``) and ILP (``gtx280``) baselines as the timing model
  sizes it (:func:`golden.workloads.occupancy.occupancy_of`);
* the UV redundancy limit study (:class:`golden.report.uv.LimitJob`) and the G-Scalar
  value analysis (:class:`golden.report.gscalar.ValueStatsJob`), functional, always run;
* timing runs of the reports (WarpMan's baseline with warp lifetimes, UV's baseline) and the ch. 5 locality table: read from the result cache or
  the committed archive only; a missing one is shown as "not measured (needs timing job
  KEY)" unless the caller asks to simulate (``--simulate``).

Tolerances (:data:`TOLERANCE`): shapes and classes exact; percentages of a whole within
±5 points; other ratios (IPC, instruction and register counts, thread counts) within ±25%;
published bounds ("at most 16 warps per SM") as bounds; the UV input is shown, not checked.
A row is within tolerance when every property it checks was measured and none is out of
tolerance; a row with no failure but a property not measured yet is *within where measured*,
shown and counted apart, never as within. A fact may carry a stated reason why the stand-in cannot match it
(``explained`` in the facts file: e.g. a shape another paper's use of the same stand-in
fixes, or a compiler's register allocation); a failing cell with a reason is shown as
"explained", and a row whose failures are all explained is named as such -- it is still
out of tolerance and never counted within.

:class:`FidelityMarks` lets a report mark a number computed from a stand-in that is out of
tolerance for that report's paper (a ``†`` and a footnote naming the failing properties).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, ClassVar

from golden.report.runner import (ReportOptions, TimingJob, WorkloadProbe, succeeded)
from golden.report.warpman_setup import CONFIG as WARPMAN_CONFIG
from golden.report.warpman_setup import LIFETIMES

#: the published facts; in a folder of their own, so no report job depends on them (a YAML
#: beside a model module is a dependency of every job that imports the module)
FACTS_PATH = Path(__file__).parent / "facts" / "fidelity.yaml"
#: ±5 points for percentages of a whole, ±25% for other ratios
POINTS = 5.0
RATIO = 0.25
#: WPDOM SIMD utilisation (%) below which a stand-in is classed "divergent": the midpoint
#: between Table 2's highest divergent-class utilisation (BACKP, 83%) and its lowest
#: non-divergent one (RAY and FFT, 91%) -- derived from Table 2, not stated by CAPRI
CLASS_BOUNDARY = 87.0
ILP_CONFIG = "gtx280"
OCCUPANCY_CONFIGS = (WARPMAN_CONFIG, ILP_CONFIG)

TOLERANCE = {"exact": "exact", "points": f"±{POINTS:g} points", "ratio": f"±{100 * RATIO:g}%",
             "at_least": "at least", "at_most": "at most", "info": "shown, not checked"}


# ----------------------------------------------------------------------- tolerance
def within(kind: str, published, measured) -> bool | None:
    """Whether ``measured`` is within tolerance of ``published`` for a property of
    tolerance ``kind``; None when nothing is checked (``info``, or nothing measured)."""
    if measured is None or kind == "info":
        return None
    if kind == "exact":
        return measured == published
    if kind == "points":
        return abs(float(measured) - float(published)) <= POINTS + 1e-9
    if kind == "ratio":
        p = float(published)
        return abs(float(measured) / p - 1.0) <= RATIO + 1e-9 if p else float(measured) == 0.0
    if kind == "at_least":
        return float(measured) >= float(published)
    if kind == "at_most":
        return float(measured) <= float(published)
    raise ValueError(f"unknown tolerance kind {kind!r}")


# ----------------------------------------------------------------------- measurement jobs
@dataclass(frozen=True)
class FidelityProbe(WorkloadProbe):
    """One functional run of a workload measuring what its published properties need
    (see the module docstring): per launch the block and grid, warp and thread
    instructions, branches and TB 0's / the largest TB's share of the warp instructions;
    the main kernel's occupancy on each of :data:`OCCUPANCY_CONFIGS`."""

    KIND: ClassVar[str] = "fidelity-probe"

    def compute(self) -> dict:
        from golden.configs import load_config
        from golden.workloads.observed import run_observed
        from golden.workloads.occupancy import LaunchProbe, Probe, occupancy_of
        from golden.workloads.tb_work import TBWorkObserver, summarise
        obs = TBWorkObserver()
        run = run_observed(self.workload, [obs], size=self.size, seed=self.seed)
        launches = []
        for l in obs.launches:
            s = summarise(l)
            geo = l["launch"].geo
            s.update(block=list(geo.block), grid=list(geo.grid),
                     branches=int(l["branch"].sum()))
            launches.append(s)
        probe = Probe(self.workload, self.size, dict(run.params),
                      [LaunchProbe(l["kernel"], l["launch"], l["counted"]) for l in obs.launches],
                      run.mismatches(), 0.0)
        occupancy = {}
        for name in OCCUPANCY_CONFIGS:
            cfg = load_config(name)
            core = cfg.core
            k = max(occupancy_of(probe, cfg).kernels, key=lambda r: r.warp_instructions)
            wpt = -(-k.threads_per_tb // core.warp_size)
            regs_tb = k.regs_per_thread * wpt * core.warp_size
            occupancy[name] = {"kernel": k.kernel, "warps_per_tb": wpt, "regs_per_tb": regs_tb,
                               "tbs_per_sm": k.tbs_per_sm, "limiters": list(k.limiters),
                               "registers_per_sm": core.registers_per_sm,
                               "unused_regs": core.registers_per_sm - k.tbs_per_sm * regs_tb}
        return {"outputs_match": not run.mismatches(), "params": dict(run.params),
                "launches": launches, "occupancy": occupancy,
                "warp_instructions": sum(l["warp_instructions"] for l in launches),
                "thread_instructions": sum(l["thread_instructions"] for l in launches)}


def _probe(w, size, seed):
    return FidelityProbe(w, size, seed)


def _uv_limit(w, size, seed):
    from golden.report.uv import LimitJob
    return LimitJob(w, size, seed)


def _gscalar(w, size, seed):
    from golden.report.gscalar import ValueStatsJob
    return ValueStatsJob(w, size, seed)


def _warpman_timing(w, size, seed):
    return TimingJob(w, WARPMAN_CONFIG, size=size, seed=seed, mechanisms=(LIFETIMES,))


def _uv_timing(w, size, seed):
    from golden.report.uv import CONFIG
    return TimingJob(w, CONFIG, size=size, seed=seed)


def _locality(w, size, seed):
    from golden.report.coarse import LocalityJob
    return LocalityJob(w, size=size, seed=seed)


@dataclass(frozen=True)
class Source:
    """Where a property's measurement comes from: the jobs that can answer it (the first
    one with a result is used; the first is the one simulated) and whether they are
    timing runs (read from the cache only unless simulating)."""

    jobs: tuple
    timing: bool = False

    def candidates(self, workload: str, size: str, seed: int) -> list:
        return [make(workload, size, seed) for make in self.jobs]


SOURCES = {
    "probe": Source((_probe,)),
    "uv-limit": Source((_uv_limit,)),
    "gscalar": Source((_gscalar,)),
    "warpman-timing": Source((_warpman_timing,), timing=True),
    "uv-timing": Source((_uv_timing,), timing=True),
    "locality": Source((_locality,), timing=True),
}


# ----------------------------------------------------------------------- properties
def _main_launch(p: dict) -> dict:
    return max(p["launches"], key=lambda l: l["warp_instructions"])


def _shape(block) -> str:
    b = list(block)
    while len(b) > 2 and b[-1] == 1:
        b.pop()
    return "x".join(str(x) for x in b)


def _limiter(limiters) -> str:
    """WarpMan Table 5's limiter class of our occupancy limiters: register, thread
    (threads or warps, the warp scheduler), both, else what limits it."""
    regs = "registers" in limiters
    thr = "threads" in limiters or "warps" in limiters
    if regs and thr:
        return "both"
    if regs:
        return "register"
    if thr:
        return "thread"
    return ",".join(limiters)


def _simd_util(p: dict) -> float:
    return 100.0 * p["thread_instructions"] / (32 * p["warp_instructions"]) \
        if p["warp_instructions"] else 0.0


def _thread_ipc(r: dict) -> float:
    return r["timing"]["thread_instructions"] / max(1, r["cycles"])


#: the core clock (MHz) whose cycles WarpMan's Table 5 IPC counts: WarpMan ran GPGPU-Sim
#: 3.2.0 (Table 4), whose GTX480 configuration clocks the core at 700 MHz
#: (``-gpgpu_clock_domains 700.0:...``) and reports IPC per core cycle, where our
#: ``gtx480_warpman`` counts Table 4's 1.4 GHz shader cycles
WARPMAN_IPC_CLOCK_MHZ = 700.0


@functools.lru_cache(maxsize=None)
def _clock_mhz(config: str) -> float:
    """The core clock of ``config`` (read once per config)."""
    from golden.configs import load_config
    return load_config(config).core.clock_mhz


def _ipc_per_clock(config: str, clock_mhz: float) -> Callable[[dict], float]:
    """Thread instructions per ``clock_mhz`` cycle of a run on ``config`` (the clock a
    paper's IPC counts, when it is not the config's own)."""
    return lambda r: _thread_ipc(r) * _clock_mhz(config) / clock_mhz


def _mech(r: dict) -> dict:
    return r["timing"]["mechanism"]


def _rtru_mean(r: dict):
    m = _mech(r)
    return 100.0 * m["lifetimes.rtru_sum"] / m["lifetimes.tbs"] if m.get("lifetimes.tbs") else None


def _rtru_tb0(r: dict):
    v = _mech(r).get("lifetimes.tb0_rtru")
    return None if v is None else 100.0 * v


def _occ(config: str, key: str):
    return lambda p: p["occupancy"][config][key]


def _locality_at(n: int, w: int):
    def get(r):
        t = r["table"]
        return 100.0 * t["prob"][t["windows"].index(w)][t["neighbourhoods"].index(n)]
    return get


def _gs(key: str):
    return lambda r: r["row"][key]


def _gs_counts(fn):
    return lambda r: fn(r["row"]["counts"])


@dataclass(frozen=True)
class Property:
    """One published workload property: its label, tolerance kind, unit (``%`` for
    percentages, shown with the values), measurement source and how the value is read
    from that source's result (``measure(result) -> value``, None = not measurable)."""

    label: str
    kind: str
    source: str
    measure: Callable[[dict], Any]
    unit: str = ""


PROPERTIES: dict[str, Property] = {
    # CAPRI Table 2
    # Table 2's "average threads issued when any warp is ready, divided by 32" counts the
    # WPDOM run's issued warp instructions and their active threads; WPDOM reconverges as
    # the functional model does and issues every warp instruction once, so the probe's
    # counts are the same (MUM small: 297,111 / 2,272,403 in both; BFS, racy, differs
    # by < 0.1%), and the row needs no timing run
    "simd_utilisation": Property("WPDOM SIMD util.", "points", "probe", _simd_util, "%"),
    "divergence_class": Property(
        "class", "exact", "probe",
        lambda p: "divergent" if _simd_util(p) < CLASS_BOUNDARY else "non-divergent"),
    # WarpMan Table 5 and §3.3 (main kernel on gtx480_warpman)
    "warps_per_tb": Property("warps/TB", "exact", "probe", _occ(WARPMAN_CONFIG, "warps_per_tb")),
    "tbs_per_sm": Property("TBs/SM", "exact", "probe", _occ(WARPMAN_CONFIG, "tbs_per_sm")),
    "limiter": Property("limited by", "exact", "probe",
                        lambda p: _limiter(p["occupancy"][WARPMAN_CONFIG]["limiters"])),
    "regs_per_tb": Property("regs/TB", "ratio", "probe", _occ(WARPMAN_CONFIG, "regs_per_tb")),
    "unused_rf": Property(
        "unused RF", "points", "probe",
        lambda p: 100.0 * p["occupancy"][WARPMAN_CONFIG]["unused_regs"]
        / p["occupancy"][WARPMAN_CONFIG]["registers_per_sm"], "%"),
    "baseline_ipc_warpman": Property("baseline IPC per 700 MHz cycle", "ratio", "warpman-timing",
                                     _ipc_per_clock(WARPMAN_CONFIG, WARPMAN_IPC_CLOCK_MHZ)),
    "rtru_tb0": Property("TB0 RTRU", "points", "warpman-timing", _rtru_tb0, "%"),
    "rtru_mean": Property("mean RTRU", "points", "warpman-timing", _rtru_mean, "%"),
    # UV Table 3 and Fig. 2
    "input": Property("input", "info", "probe",
                      lambda p: ", ".join(f"{k}={v}" for k, v in p["params"].items())),
    "scalar_instructions": Property("scalar inst.", "ratio", "probe",
                                    lambda p: p["thread_instructions"]),
    "baseline_ipc_uv": Property("baseline IPC", "ratio", "uv-timing", _thread_ipc),
    "uniform_intra": Property("intra-warp uniform", "points", "uv-limit",
                              lambda r: 100.0 * r["intra"], "%"),
    "uniform_inter": Property("inter-warp uniform", "points", "uv-limit",
                              lambda r: 100.0 * r["inter"], "%"),
    "uniform_combined": Property("combined uniform", "points", "uv-limit",
                                 lambda r: 100.0 * r["combined"], "%"),
    # Ch. 4 (main kernel on gtx280_ilp)
    "tbs_per_sm_ilp": Property("TBs/SM", "exact", "probe", _occ(ILP_CONFIG, "tbs_per_sm")),
    "warps_per_sm_ilp": Property(
        "warps/SM", "exact", "probe",
        lambda p: p["occupancy"][ILP_CONFIG]["tbs_per_sm"] * p["occupancy"][ILP_CONFIG]["warps_per_tb"]),
    "max_warps_per_sm_ilp": Property(
        "warps/SM", "at_most", "probe",
        lambda p: p["occupancy"][ILP_CONFIG]["tbs_per_sm"] * p["occupancy"][ILP_CONFIG]["warps_per_tb"]),
    "min_regs_per_tb_ilp": Property("regs/TB", "at_least", "probe", _occ(ILP_CONFIG, "regs_per_tb")),
    "threads": Property("threads (main launch)", "ratio", "probe",
                        lambda p: _main_launch(p)["num_tbs"] * math.prod(_main_launch(p)["block"])),
    "tb0_dominates": Property("TB0 largest", "exact", "probe",
                              lambda p: _main_launch(p)["largest_tb"] == 0),
    "tb0_branch_fraction": Property("TB0 branches", "points", "probe",
                                    lambda p: 100.0 * _main_launch(p)["tb0_branch_share"], "%"),
    # DARSIE Table 1 (and ch. 4's FFT)
    "tb_shape": Property("TB shape", "exact", "probe", lambda p: _shape(_main_launch(p)["block"])),
    # G-Scalar §1, §5.2-5.3
    "divergent_scalar": Property("divergent scalar", "points", "gscalar", _gs("e_div"), "%"),
    "min_scalar_eligible": Property("scalar-eligible", "at_least", "gscalar", _gs("e_total"), "%"),
    "divergent_fraction": Property("divergent inst.", "points", "gscalar", _gs("div"), "%"),
    "half_warp_scalar": Property("half-warp scalar", "points", "gscalar", _gs("e_half"), "%"),
    # SFU = the unit G-Scalar's config (gtx480) routes an instruction to, by the timing
    # model's own rule (golden.timing.pipelines.pipe_of, applied by the G-Scalar observer)
    "sfu_fraction": Property(
        "SFU inst.", "points", "gscalar",
        _gs_counts(lambda c: 100.0 * c["by_class"]["sfu"] / c["warp_insts"] if c["warp_insts"] else 0.0), "%"),
    "sfu_scalar_share": Property(
        "scalar SFU", "points", "gscalar",
        _gs_counts(lambda c: 100.0 * c["elig_sfu"] / c["by_class"]["sfu"] if c["by_class"]["sfu"] else None),
        "%"),
    # Ch. 5
    "locality_128_w32": Property("locality N=128 W=32", "points", "locality", _locality_at(128, 32), "%"),
    "locality_2048_w2": Property("locality N=2048 W=2", "points", "locality", _locality_at(2048, 2), "%"),
}


# ----------------------------------------------------------------------- facts
@lru_cache(maxsize=4)
def _load(path: str) -> dict:
    import yaml
    with open(path) as f:
        return yaml.safe_load(f)


def load_facts(path: Path | str = FACTS_PATH) -> dict:
    """The published facts (``facts/fidelity.yaml``), checked: every property is one of
    :data:`PROPERTIES`."""
    from golden.errors import SimtlabError
    data = _load(str(path))
    for paper, spec in data["papers"].items():
        for bench, b in spec["benchmarks"].items():
            for prop in b.get("facts", {}):
                if prop not in PROPERTIES:
                    raise SimtlabError(f"{path}: papers.{paper}.benchmarks.{bench}: "
                                       f"unknown property {prop!r}")
            for prop, why in (b.get("explained") or {}).items():
                if prop not in b.get("facts", {}) or not str(why).strip():
                    raise SimtlabError(f"{path}: papers.{paper}.benchmarks.{bench}: explained "
                                       f"{prop!r} needs a published fact and a reason")
    return data


_TOKEN = re.compile(r"[A-Za-z0-9+]+")


def match_benchmark(entry: str, benchmarks) -> str | None:
    """The benchmark of ``benchmarks`` (names, with optional ``match`` spellings) that a
    ``stands_for`` entry names: the one whose name is the earliest word of the entry's text
    after the colon (case-insensitive); None when none is named."""
    text = entry.split(":", 1)[1] if ":" in entry else entry
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    best = None
    for name, spec in benchmarks.items():
        spellings = [name, *((spec or {}).get("match") or ())]
        for s in spellings:
            if s.lower() in tokens:
                i = tokens.index(s.lower())
                if best is None or i < best[0]:
                    best = (i, name)
    return best[1] if best else None


@dataclass(frozen=True)
class RowSpec:
    """A stand-in for one paper's benchmark and the facts that paper publishes for it."""

    workload: str
    paper: str
    benchmark: str
    facts: dict
    cites: dict
    note: str = ""
    #: property -> why the stand-in cannot match it (shown when that property fails)
    explained: dict = field(default_factory=dict)


def row_specs(facts: dict, workloads: dict) -> tuple[list[RowSpec], list[tuple[str, str, str]]]:
    """Rows for ``workloads`` (``{name: stands_for entries}``): one per stand-in per paper
    whose benchmark has published facts; and ``(workload, paper, entry)`` for stand-in
    entries whose benchmark publishes none of the properties."""
    rows, bare = [], []
    for paper, spec in facts["papers"].items():
        for w, entries in workloads.items():
            for e in entries:
                if not e.startswith(spec["prefix"]):
                    continue
                b = match_benchmark(e, spec["benchmarks"])
                bspec = spec["benchmarks"].get(b) if b else None
                if not bspec or not bspec.get("facts"):
                    bare.append((w, paper, e.split(":", 1)[-1].strip()))
                    break
                cites = {p: (bspec.get("cite") or {}).get(p, spec["cite"]) for p in bspec["facts"]}
                rows.append(RowSpec(w, paper, b, dict(bspec["facts"]), cites,
                                    bspec.get("note", ""), dict(bspec.get("explained") or {})))
                break
    return rows, bare


# ----------------------------------------------------------------------- rows
@dataclass
class Cell:
    """A property of a row: published and measured value (None with ``missing`` saying
    why), tolerance kind and verdict (None = not checked)."""

    prop: str
    published: Any
    measured: Any
    kind: str
    ok: bool | None
    cite: str
    missing: str = ""
    #: why the stand-in cannot match (set only when the cell is out of tolerance)
    explained: str = ""

    def to_dict(self) -> dict:
        return {"property": self.prop, "label": PROPERTIES[self.prop].label,
                "published": self.published, "measured": self.measured, "tolerance": self.kind,
                "within": self.ok, "cite": self.cite, "missing": self.missing,
                "explained": self.explained}


@dataclass
class Row:
    """One stand-in for one paper's benchmark, with its cells."""

    workload: str
    paper: str
    benchmark: str
    cells: list[Cell] = field(default_factory=list)
    note: str = ""

    @property
    def failing(self) -> list[Cell]:
        return [c for c in self.cells if c.ok is False]

    @property
    def unmeasured(self) -> list[Cell]:
        return [c for c in self.cells if c.measured is None and c.kind != "info"]

    @property
    def within(self) -> bool:
        """Every checked property measured and none out of tolerance."""
        return not self.failing and not self.unmeasured and any(c.ok for c in self.cells)

    @property
    def partial(self) -> bool:
        """No property out of tolerance so far, but some not measured (not within)."""
        return not self.failing and bool(self.unmeasured) and any(c.ok for c in self.cells)

    @property
    def explained(self) -> bool:
        """Out of tolerance, and every failing property has a stated reason (still not
        within tolerance)."""
        return bool(self.failing) and all(c.explained for c in self.failing)

    def to_dict(self) -> dict:
        return {"workload": self.workload, "paper": self.paper, "benchmark": self.benchmark,
                "within_tolerance": self.within, "within_where_measured": self.partial,
                "explained": self.explained, "note": self.note,
                "failing": [c.prop for c in self.failing],
                "cells": [c.to_dict() for c in self.cells]}


def build_row(spec: RowSpec, lookup: Callable[[str, str], tuple[dict | None, str]]) -> Row:
    """Measure ``spec``'s properties. ``lookup(source, workload)`` returns ``(result,
    job key)`` of the first job of that source with a successful result, or ``(None, key
    of the job that would answer it)``."""
    row = Row(spec.workload, spec.paper, spec.benchmark, note=spec.note)
    for prop, published in spec.facts.items():
        p = PROPERTIES[prop]
        result, key = lookup(p.source, spec.workload)
        measured, missing = None, ""
        if result is None:
            what = "timing job" if SOURCES[p.source].timing else "job"
            missing = f"not measured (needs {what} {key})"
        else:
            try:
                measured = p.measure(result)
            except (KeyError, ValueError, ZeroDivisionError, IndexError) as e:
                missing = f"not measurable from {key} ({type(e).__name__}: {e})"
            if measured is None and not missing:
                missing = f"not measurable from {key}"
        ok = within(p.kind, published, measured)
        row.cells.append(Cell(prop, published, measured, p.kind, ok, spec.cites[prop], missing,
                              spec.explained.get(prop, "") if ok is False else ""))
    return row


def results_lookup(results: dict, size: str, seed: int):
    """A :func:`build_row` lookup over a ``{job key: result}`` dict."""
    def lookup(source: str, workload: str):
        cands = SOURCES[source].candidates(workload, size, seed)
        for j in cands:
            r = results.get(j.key)
            if succeeded(r) and r.get("outputs_match", True):
                return r, j.key
        return None, cands[0].key
    return lookup


def _workload_entries(only=None) -> dict:
    from golden.workloads import registry
    ws = registry.all_workloads()
    names = [registry.get(n).name for n in only] if only else list(ws)
    return {n: ws[n].stands_for for n in names}


def needed_jobs(size: str, seed: int, only=None,
                facts: dict | None = None) -> tuple[list, list, list]:
    """``(functional jobs, timing jobs to simulate, every timing job that can answer)`` of
    the rows of ``only`` (default: every workload). A source with alternative jobs (CAPRI's
    WPDOM run with or without the passive oracle) simulates its first one."""
    specs, _ = row_specs(facts or load_facts(), _workload_entries(only))
    func, primary, timing = {}, {}, {}
    for s in specs:
        for prop in s.facts:
            src = SOURCES[PROPERTIES[prop].source]
            cands = src.candidates(s.workload, size, seed)
            if not src.timing:
                func.setdefault(cands[0].key, cands[0])
                continue
            primary.setdefault(cands[0].key, cands[0])
            for j in cands:
                timing.setdefault(j.key, j)
    return list(func.values()), list(primary.values()), list(timing.values())


def build_rows(results: dict, size: str, seed: int, only=None,
               facts: dict | None = None) -> tuple[list[Row], list]:
    """Every row measured from ``results`` and the stand-ins without published facts."""
    specs, bare = row_specs(facts or load_facts(), _workload_entries(only))
    lookup = results_lookup(results, size, seed)
    return [build_row(s, lookup) for s in specs], bare


# ----------------------------------------------------------------------- rendering
def _fmt(v, unit: str = "") -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if unit == "%":
            return f"{v:.1f}%"
        if abs(v) >= 1e5:
            return f"{v / 1e6:.3g}M"
        return f"{v:,.1f}" if v != int(v) else f"{int(v):,}"
    if isinstance(v, int):
        if unit == "%":
            return f"{v}%"
        return f"{v / 1e6:.3g}M" if abs(v) >= 1e5 else f"{v:,}"
    return str(v)


def _cell_text(c: Cell) -> str:
    unit = PROPERTIES[c.prop].unit
    bound = {"at_least": "≥ ", "at_most": "≤ "}.get(c.kind, "")
    pub = bound + _fmt(c.published, unit)
    if c.measured is None:
        return f"{c.missing} · paper {pub}" if c.kind != "info" else f"paper {pub}"
    mark = {True: " ✓", False: " ✗ (explained)" if c.explained else " ✗", None: ""}[c.ok]
    return f"{_fmt(c.measured, unit)} · paper {pub}{mark}"


def summary_line(rows: list[Row]) -> str:
    """``K of N rows within tolerance``."""
    return f"{sum(r.within for r in rows)} of {len(rows)} rows within tolerance"


def explained_line(rows: list[Row]) -> str:
    """How many rows are out of tolerance, and how many of those with a stated reason."""
    out = [r for r in rows if r.failing]
    partial = sum(r.partial for r in rows)
    return (f"{len(out)} rows out of tolerance: {sum(r.explained for r in out)} with a stated "
            f"reason (explained, not counted within), {sum(not r.explained for r in out)} without"
            + (f"; {partial} within where measured but not fully measured (not counted within)"
               if partial else ""))


def render_rows(rows: list[Row], bare, size: str, seed: int) -> str:
    """Markdown: one table per paper, citations and notes, the rows out of tolerance, the
    properties not measured; the last line is :func:`summary_line`."""
    md = ["# Workload fidelity: stand-ins beside the papers' published properties", "",
          f"Size `{size}`, seed {seed}. Each cell: ours · paper, ✓ within tolerance, ✗ out. "
          f"Tolerances: shapes and classes exact; percentages of a whole ±{POINTS:g} points; "
          f"other ratios ±{100 * RATIO:g}%; bounds as printed. Published values from "
          "paper-facts.md (golden/report/facts/fidelity.yaml); measured values from functional "
          "probes, and timing runs from the result cache / committed archive.", ""]
    for paper in dict.fromkeys(r.paper for r in rows):
        prs = [r for r in rows if r.paper == paper]
        props = list(dict.fromkeys(c.prop for r in prs for c in r.cells))
        md += [f"## {paper}", "",
               "| stand-in | benchmark | " + " | ".join(PROPERTIES[p].label for p in props)
               + " | tolerance | verdict |",
               "|---|---|" + "---|" * len(props) + "---|---|"]
        cites = {}
        for r in prs:
            by = {c.prop: c for c in r.cells}
            kinds = ", ".join(f"{PROPERTIES[c.prop].label} {TOLERANCE[c.kind]}" for c in r.cells)
            verdict = ("within" if r.within else
                       ("OUT (explained): " if r.explained else "OUT: ")
                       + ", ".join(PROPERTIES[c.prop].label for c in r.failing)
                       if r.failing else
                       "within where measured; not measured: "
                       + ", ".join(PROPERTIES[c.prop].label for c in r.unmeasured)
                       if r.partial else "not measured")
            md.append(f"| {r.workload} | {r.benchmark} | "
                      + " | ".join(_cell_text(by[p]) if p in by else "" for p in props)
                      + f" | {kinds} | {verdict} |")
            for c in r.cells:
                cites.setdefault(c.cite, []).append(f"{r.benchmark} {PROPERTIES[c.prop].label}")
        md += [""] + [f"* {cite}: {', '.join(dict.fromkeys(what))}" for cite, what in cites.items()]
        md += [f"* {r.benchmark}: {r.note}" for r in prs if r.note] + [""]
    if bare:
        md += ["Stand-ins whose benchmark has no per-benchmark property in the papers' text "
               "(figure only): " + "; ".join(f"{w} ({p}: {e})" for w, p, e in bare) + ".", ""]
    fails = [r for r in rows if r.failing]
    md += ["## Out of tolerance", ""]
    md += [f"* {r.workload} for {r.paper} {r.benchmark}"
           + (" (explained)" if r.explained else "") + ": " + "; ".join(
               f"{PROPERTIES[c.prop].label} {_fmt(c.measured, PROPERTIES[c.prop].unit)} vs "
               f"{_fmt(c.published, PROPERTIES[c.prop].unit)}"
               + (f" -- {c.explained}" if c.explained else "") for c in r.failing)
           for r in fails] or ["* none"]
    missing = sorted({c.missing for r in rows for c in r.unmeasured})
    md += ["", f"Not measured: {sum(len(r.unmeasured) for r in rows)} properties of "
           f"{sum(bool(r.unmeasured) for r in rows)} rows "
           "(timing jobs are read from the cache only; `--simulate` runs them)."]
    md += [f"* {m}" for m in missing[:40]]
    if len(missing) > 40:
        md.append(f"* ... and {len(missing) - 40} more")
    md += ["", explained_line(rows), summary_line(rows)]
    return "\n".join(md) + "\n"


def to_json(rows: list[Row], bare, size: str, seed: int) -> dict:
    return {"size": size, "seed": seed, "points": POINTS, "ratio": RATIO,
            "class_boundary_percent": CLASS_BOUNDARY, "rows": [r.to_dict() for r in rows],
            "no_published_property": [list(b) for b in bare],
            "within": sum(r.within for r in rows), "total": len(rows),
            "within_where_measured": sum(r.partial for r in rows),
            "explained": sum(r.explained for r in rows),
            "summary": summary_line(rows)}


# ----------------------------------------------------------------------- marks for reports
class FidelityMarks:
    """Marks numbers a report computed from a stand-in that is out of tolerance for the
    report's paper: ``mark(workload, text)`` appends ``†``; ``footnote()`` names each marked
    stand-in's failing properties (empty string when nothing was marked)."""

    def __init__(self, rows: list[Row], paper: str):
        self.paper = paper
        self._failing = {r.workload: r for r in rows if r.paper == paper and r.failing}
        self._used: dict[str, Row] = {}

    def mark(self, workload: str, text: str) -> str:
        r = self._failing.get(workload)
        if r is None:
            return text
        self._used[workload] = r
        return f"{text}†"

    def footnote(self) -> str:
        if not self._used:
            return ""
        return ("† computed from a stand-in out of tolerance for " + self.paper + " "
                "(`simtlab characterise --against-papers`): " + "; ".join(
                    f"{w} ({', '.join(PROPERTIES[c.prop].label for c in r.failing)})"
                    for w, r in sorted(self._used.items())) + ".")


def marks_for(results: dict, opts: ReportOptions, paper: str) -> FidelityMarks:
    """:class:`FidelityMarks` of ``paper`` from a report's results (rows of the workloads
    standing for that paper)."""
    facts = load_facts()
    prefix = facts["papers"][paper]["prefix"]
    from golden.report.runner import standing_for
    rows, _ = build_rows(results, opts.size, opts.seed, only=standing_for(prefix), facts=facts)
    return FidelityMarks(rows, paper)


# ----------------------------------------------------------------------- report interface
def jobs(opts: ReportOptions) -> list:
    """The functional probes and the timing runs the table reads (the timing runs are
    other reports' jobs, so the main job runs them once)."""
    func, primary, _ = needed_jobs(opts.size, opts.seed)
    return func + primary


def render(results: dict, opts: ReportOptions) -> tuple[str, dict]:
    rows, bare = build_rows(results, opts.size, opts.seed)
    return render_rows(rows, bare, opts.size, opts.seed), to_json(rows, bare, opts.size, opts.seed)
