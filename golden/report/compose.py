"""Composition report (issue 73): how the six papers' gains add up when two mechanisms
share one SM.

Each paper measures its mechanism alone, on its own baseline. Here every pair of the
papers' headline mechanisms (:data:`MECHANISMS`) runs on one common baseline
(:data:`CONFIGS`). A pair the claims refuse (:mod:`golden.mechanisms.claims`) is listed
with the reason. For an allowed pair A+B, on the workloads both papers stand in for (the
first :data:`MAX_WORKLOADS` of the intersection of their ``stands_for`` lists, sorted):

* speed-up = baseline cycles / cycles of A, of B and of A+B, against the product of the
  single gains S_A x S_B; **interaction** = S_AB / (S_A x S_B): above 1 the gains are
  super-additive (the pair does better than both alone would predict), below 1
  sub-additive (they compete for the same waste, or one's cost hits the other's gain);
* energy gain = baseline energy / energy, likewise (G-Scalar's runs use its own energy
  model, :func:`golden.mechanisms.gscalar.timing.energy_report`, whose register-file term
  replaces the baseline's; every other run the configuration's model);
* overlap, where the model can measure it: of the instructions a fetch-stage mechanism
  skipped, the share the issue-stage one would have made scalar / detected uniform
  (``gscalar.skipped_scalar``, ``uv.skipped_uniform``; :meth:`Mechanism.on_skip`);
* outputs: every run's outputs equal the baseline's bit for bit.

A user workload of ``--workloads`` joins a pair when its ``stands_for`` names both papers
(:func:`takes_user_workload`); it gets per-workload rows, and the matrices leave it out.

The pairwise interaction matrix gives, per pair, the geometric mean of the speed-up
interaction over its workloads; the results page draws it as a heat map
(:func:`golden.report.present.figures.compose`).

A mechanism that does nothing on the common baseline says nothing there about how its gain
interacts: WarpMan's TBs all fit on Pascal, so its pairs come out exactly 1. Its pairs are
therefore also run on the paper's own baseline, where it acts (:data:`ACTING`:
``gtx480_warpman``, the WarpMan report's configuration), on every workload both papers
stand in for; that configuration's matrix averages only the workloads on which the
mechanism acted in its single run (its activity counter non-zero), and the per-workload
table marks the others idle.
"""

from __future__ import annotations

import itertools
import math

from golden.report.runner import (ReportOptions, TimingJob, geomean, same_outputs, selects,
                                  standing_for, succeeded, user_workloads, workload_label)

#: paper -> the mechanism that stands for it (its headline design, as its report runs it)
MECHANISMS: dict[str, str] = {
    "DARSIE": "darsie",
    "UV": "uv-token",
    "WarpMan": "warpman-duel",
    "ILP": "ilp-sc",
    "G-Scalar": "gscalar",
    "CAPRI": "capri",
}
#: the common baseline(s)
CONFIGS: tuple = ("pascal",)
#: a study across the papers, not one paper's report: its workloads run on the common
#: baseline whatever they fill, so the two-wave rule of the papers' inputs
#: (:func:`golden.workloads.occupancy.report_configs` with ``papers_only``) leaves it out;
#: at ``paper`` size BFS, for one, fills fewer than two waves of Pascal's 28 SMs
CROSS_PAPER_STUDY = True
#: workloads per pair (the first ones of the sorted intersection of the papers' lists)
MAX_WORKLOADS = 3
#: paper -> (configuration where its mechanism acts, counter of its single run that is
#: non-zero when it acted): its pairs are measured there too, on every shared workload
ACTING: dict[str, tuple[str, str]] = {"WarpMan": ("gtx480_warpman", "warpman.partial_tbs")}
#: |interaction - 1| below this counts as "product" (neither super- nor sub-additive)
TOLERANCE = 0.01
#: counters of the composed run that measure the overlap: (numerator, denominator, what)
OVERLAP = (("gscalar.skipped_scalar", "gscalar.skipped", "skipped that G-Scalar would make scalar"),
           ("uv.skipped_uniform", "uv.skipped", "skipped that UV would detect uniform"))


def pairs() -> list[tuple[str, str]]:
    """Every pair of papers, in :data:`MECHANISMS` order."""
    return list(itertools.combinations(MECHANISMS, 2))


def refusal(pa: str, pb: str, config: str = CONFIGS[0]) -> str | None:
    """The registry's reason the two papers' mechanisms cannot run together, or None."""
    from golden.configs import load_config
    from golden.errors import ConfigError
    from golden.mechanisms.registry import make_mechanisms
    try:
        make_mechanisms([MECHANISMS[pa], MECHANISMS[pb]], load_config(config))
    except ConfigError as e:
        return str(e).split("cannot run together: ", 1)[-1]
    return None


def configs() -> list[str]:
    """Every configuration the study runs on: :data:`CONFIGS`, then those of :data:`ACTING`."""
    return list(dict.fromkeys(list(CONFIGS) + [c for c, _ in ACTING.values()]))


def measured_on(pa: str, pb: str, config: str) -> bool:
    """Whether the pair is measured on ``config``: every pair on the common baselines, a
    pair with an :data:`ACTING` paper also on that paper's configuration."""
    return config in CONFIGS or any(ACTING.get(p, ("",))[0] == config for p in (pa, pb))


def workloads(pa: str, pb: str, config: str = CONFIGS[0],
              opts: ReportOptions | None = None) -> list[str]:
    """The workloads both papers stand in for (at most :data:`MAX_WORKLOADS` on the common
    baselines; all of them on an :data:`ACTING` configuration), then the user workloads of
    ``--workloads`` with a ``stands_for`` entry for each of the two papers (all of them)."""
    shared = sorted(set(standing_for(pa)) & set(standing_for(pb)))
    both = [r for r in user_workloads(pa, opts) if r in user_workloads(pb, opts)]
    return (shared if config not in CONFIGS else shared[:MAX_WORKLOADS]) + both


def takes_user_workload(stands_for) -> bool:
    """Whether a user workload with these ``stands_for`` entries joins a measured pair:
    it names both papers of one (``"DARSIE: ..."`` and ``"UV: ..."``)."""
    return any(selects(pa, stands_for) and selects(pb, stands_for)
               for config in configs() for pa, pb in pairs() if measured_on(pa, pb, config))


def acting_counter(pa: str, pb: str, config: str) -> tuple[str, str] | None:
    """``(paper, counter)`` when ``config`` is where one of the pair acts (:data:`ACTING`)."""
    for p in (pa, pb):
        if p in ACTING and ACTING[p][0] == config and config not in CONFIGS:
            return p, ACTING[p][1]
    return None


def _job(w: str, config: str, opts: ReportOptions, mechs: tuple = ()) -> TimingJob:
    return TimingJob(w, config, size=opts.size, seed=opts.seed, mechanisms=mechs)


def _runs(pa: str, pb: str, w: str, config: str, opts: ReportOptions) -> dict:
    a, b = MECHANISMS[pa], MECHANISMS[pb]
    return {"base": _job(w, config, opts), "a": _job(w, config, opts, (a,)),
            "b": _job(w, config, opts, (b,)), "ab": _job(w, config, opts, (a, b))}


def jobs(opts: ReportOptions) -> list:
    out, seen = [], set()
    for config in configs():
        for pa, pb in pairs():
            if not measured_on(pa, pb, config) or refusal(pa, pb, config) is not None:
                continue
            for w in workloads(pa, pb, config, opts):
                for j in _runs(pa, pb, w, config, opts).values():
                    if j.key not in seen:
                        seen.add(j.key)
                        out.append(j)
    return out


def _energy(r: dict) -> float:
    """Total energy (J) of a run; G-Scalar's runs through its own energy model."""
    if any(m.split(":", 1)[0] == "gscalar" for m in r["mechanisms"]):
        from golden.configs import load_config
        from golden.mechanisms.gscalar.timing import energy_report
        from golden.timing.stats import TimingStats
        ov = dict(r["overrides"]) if r.get("overrides") else None
        return energy_report(TimingStats.from_dict(r["timing"]), load_config(r["config"], ov),
                             "gscalar").total
    return r["energy"]["total_j"]


def _kind(x: float | None) -> str:
    if x is None or math.isnan(x):
        return "–"
    return "super" if x > 1 + TOLERANCE else "sub" if x < 1 - TOLERANCE else "product"


def _overlap(r: dict) -> tuple | None:
    m = r["timing"]["mechanism"]
    for num, den, what in OVERLAP:
        if m.get(den):
            return m.get(num, 0), m[den], what
    return None


def _pair_rows(results, pa, pb, config, opts):
    rows, md = [], []
    acting = acting_counter(pa, pb, config)
    for w in workloads(pa, pb, config, opts):
        jobs_ = _runs(pa, pb, w, config, opts)
        rs = {k: results.get(j.key) for k, j in jobs_.items()}
        missing = [k for k, r in rs.items() if not succeeded(r)]
        if missing:
            what = ", ".join(f"{k}: {'missing' if rs[k] is None else 'error'}" for k in missing)
            md.append(f"| {pa}+{pb} | {workload_label(w)} | {what} |" + " |" * (8 if acting is None else 9))
            rows.append({"pair": [pa, pb], "workload": w, "missing": missing})
            continue
        base = rs["base"]
        same = all(same_outputs(rs[k], base) for k in ("a", "b", "ab"))
        s = {k: base["cycles"] / rs[k]["cycles"] for k in ("a", "b", "ab")}
        eb = _energy(base)
        e = {k: eb / _energy(rs[k]) for k in ("a", "b", "ab")}
        si, ei = s["ab"] / (s["a"] * s["b"]), e["ab"] / (e["a"] * e["b"])
        ov = _overlap(rs["ab"])
        acted = None
        if acting is not None:
            single = rs["a"] if acting[0] == pa else rs["b"]
            acted = single["timing"]["mechanism"].get(acting[1], 0) > 0
        rows.append({"acted": acted, "pair": [pa, pb], "workload": w, "speedup": s, "speedup_product":
                     s["a"] * s["b"], "speedup_interaction": si, "energy_gain": e,
                     "energy_product": e["a"] * e["b"], "energy_interaction": ei,
                     "overlap": None if ov is None else {"part": ov[0], "of": ov[1],
                                                         "what": ov[2]},
                     "base_cycles": base["cycles"], "outputs_identical": same})
        ovt = "–" if ov is None else f"{ov[0]:,} / {ov[1]:,} {ov[2]}"
        md.append(f"| {pa}+{pb} | {workload_label(w)} | {s['a']:.3f} | {s['b']:.3f} | {s['ab']:.3f} | "
                  f"{s['a'] * s['b']:.3f} | {si:.3f} ({_kind(si)}) | {e['ab']:.3f} | "
                  f"{e['a'] * e['b']:.3f} | {ei:.3f} ({_kind(ei)}) | {ovt} | "
                  f"{'identical' if same else 'DIFFER'} |"
                  + ("" if acted is None else f" {'yes' if acted else 'idle'} |"))
    return rows, md


def _matrix(cells: dict, refused: dict, config: str = CONFIGS[0]) -> list[str]:
    names = list(MECHANISMS)
    md = ["| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for i, pa in enumerate(names):
        row = []
        for j, pb in enumerate(names):
            key = (pa, pb) if i < j else (pb, pa)
            if i == j:
                row.append("–")
            elif not measured_on(*key, config):
                row.append("not run")
            elif key in refused:
                row.append("refused")
            elif cells.get(key) == "idle":
                row.append("idle")
            elif cells.get(key) is None:
                row.append("missing")
            else:
                x = cells[key]
                row.append(f"{x:.3f} {_kind(x)}")
        md.append(f"| **{pa}** | " + " | ".join(row) + " |")
    return md


def render(results: dict, opts: ReportOptions) -> tuple[str, dict]:
    md = ["# Composition: pairs of mechanisms on one SM (issue 73)", "",
          "Every pair of the six papers' mechanisms (" +
          ", ".join(f"{p} = `{m}`" for p, m in MECHANISMS.items()) +
          f") on a common baseline, size `{opts.size}`, seed {opts.seed}, on the workloads "
          f"both papers stand in for (at most {MAX_WORKLOADS}). S = baseline cycles / cycles; "
          "E = baseline energy / energy; interaction = S_AB / (S_A x S_B) "
          f"(super-additive above 1 + {TOLERANCE}, sub-additive below 1 - {TOLERANCE}). "
          "The composition order and the claims that refuse a pair are "
          "`golden/mechanisms/claims.py`." + (
              " User workloads (`--workloads`) with a `stands_for` entry for both papers of a "
              "pair have their rows in the per-workload tables, marked `(user)`; the "
              "matrices average the papers' stand-ins only." if opts.workloads else ""), ""]
    data = {"size": opts.size, "seed": opts.seed, "mechanisms": MECHANISMS,
            "tolerance": TOLERANCE, "configs": {}}
    for config in configs():
        refused = {}
        measured = [(pa, pb) for pa, pb in pairs() if measured_on(pa, pb, config)]
        for pa, pb in measured:
            why = refusal(pa, pb, config)
            if why is not None:
                refused[(pa, pb)] = why
        rows, lines, cells, ecells = [], [], {}, {}
        acting = [p for p, (c, _) in ACTING.items() if c == config and config not in CONFIGS]
        for pa, pb in measured:
            if (pa, pb) in refused:
                continue
            r, m = _pair_rows(results, pa, pb, config, opts)
            rows += r
            lines += m
            # the matrix averages the papers' stand-ins; user workloads have their rows only
            ok = [x for x in r if "speedup" in x and workload_label(x["workload"]) == x["workload"]]
            if acting:  # only where the mechanism acted (module docstring)
                act = [x for x in ok if x["acted"]]
                idle = bool(ok) and not act
                ok = act
            else:
                idle = False
            cells[(pa, pb)] = ("idle" if idle else geomean([x["speedup_interaction"] for x in ok])
                               if ok else None)
            ecells[(pa, pb)] = ("idle" if idle else geomean([x["energy_interaction"] for x in ok])
                                if ok else None)
        note = (f"Only the pairs with {', '.join(acting)} run here, on every workload both "
                f"papers stand in for; a cell averages the workloads on which "
                f"{', '.join(acting)} acted in its single run "
                f"({', '.join(f'`{ACTING[p][1]}` > 0' for p in acting)}); `idle`: on none."
                if acting else "")
        md += [f"## `{config}`", ""] + ([note, ""] if note else []) + [
               "### Speed-up interaction (geomean over the pair's workloads)", ""] + \
            _matrix(cells, refused, config) + [
            "", "### Energy interaction", ""] + _matrix(ecells, refused, config) + [
            "", "### Refused pairs", ""]
        md += [f"* **{pa} + {pb}** (`{MECHANISMS[pa]}` + `{MECHANISMS[pb]}`): {why}"
               for (pa, pb), why in refused.items()] or ["none"]
        md += ["", "### Per workload", "",
               "| pair | workload | S_A | S_B | S_AB | S_A x S_B | interaction | E_AB | "
               "E_A x E_B | energy interaction | overlap (composed run) | outputs |"
               + (f" {', '.join(acting)} acted |" if acting else ""),
               "|---|---|--:|--:|--:|--:|---|--:|--:|---|---|---|" + ("---|" if acting else "")
               ] + lines + [""]
        data["configs"][config] = {
            "note": note + (" " if note else ""), "acting": acting, "rows": rows,
            "refused": [{"pair": list(k), "reason": v} for k, v in refused.items()],
            "speedup_interaction": [{"pair": list(k), "geomean": v} for k, v in cells.items()],
            "energy_interaction": [{"pair": list(k), "geomean": v} for k, v in ecells.items()]}
    return "\n".join(md) + "\n", data
