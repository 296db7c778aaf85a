"""The correlation view of ``simtlab validate`` (issue 72 item 3): our cycles against the
reference simulator's, one point per case, with the ±tolerance band.

Written from validate's JSON only (no simulation), so ``simtlab publish`` and tests can
redraw it:

* ``<out>/figures/validate-correlation.svg|png`` -- the static scatter
  (:func:`golden.report.present.figures.validate`), also shown on ``index.html``;
* ``<out>/validate-correlation.html`` -- the same points as a self-contained interactive
  page (plotly.js inlined; hover names the case, both values and the error; zoom), linked
  from the validate section of ``index.html``.

A case that failed to run, or whose values are not positive finite numbers, is left out
(and named on the page) rather than drawn at a made-up place.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

from golden.fileio import write_output

PAGE = "validate-correlation.html"


def _ok(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0


def points(data: dict) -> tuple[list[dict], list[str]]:
    """``(drawn cases, names of the cases left out)`` of validate's JSON ``data``."""
    good, left = [], []
    for c in data.get("correlation", []):
        if _ok(c.get("reference")) and _ok(c.get("ours")):
            good.append(c)
        else:
            left.append(str(c.get("case", "?")))
    return good, left


def interactive_page(data: dict, commit: str = "unknown") -> str:
    """The interactive scatter page of validate's JSON ``data``."""
    import plotly.graph_objects as go

    tol = data.get("tolerance", 0.2)
    good, left = points(data)
    fig = go.Figure()
    if good:
        lo = min(min(c["reference"], c["ours"]) for c in good) / 1.5
        hi = max(max(c["reference"], c["ours"]) for c in good) * 1.5
        xs = [lo * (hi / lo) ** (k / 50) for k in range(51)]
        fig.add_trace(go.Scatter(x=xs, y=[x * (1 - tol) for x in xs], mode="lines",
                                 line={"width": 0}, hoverinfo="skip", showlegend=False))
        fig.add_trace(go.Scatter(x=xs, y=[x * (1 + tol) for x in xs], mode="lines",
                                 line={"width": 0}, fill="tonexty",
                                 fillcolor="rgba(128,128,128,0.2)", hoverinfo="skip",
                                 name=f"±{100 * tol:.0f}% tolerance"))
        fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="y = x",
                                 line={"color": "black", "width": 1}, hoverinfo="skip"))
        for within, colour, label in ((True, "#1f77b4", "within tolerance"),
                                      (False, "#d62728", "outside tolerance")):
            sel = [c for c in good if (abs(c["ours"] / c["reference"] - 1) <= tol) == within]
            if not sel:
                continue
            fig.add_trace(go.Scatter(
                x=[c["reference"] for c in sel], y=[c["ours"] for c in sel],
                mode="markers+text", name=label, text=[c["case"] for c in sel],
                textposition="top right", marker={"size": 9, "color": colour},
                customdata=[[c.get("metric", "cycles"), 100 * (c["ours"] / c["reference"] - 1),
                             c.get("config", ""), c.get("reference_sim", "reference")]
                            for c in sel],
                hovertemplate="%{text} (%{customdata[2]})<br>%{customdata[3]}: %{x:,.1f} "
                              "%{customdata[0]}<br>simtlab: %{y:,.1f}<br>error "
                              "%{customdata[1]:+.1f}%<extra></extra>"))
    fig.update_xaxes(type="log", title_text="reference (cycles, or the named metric)")
    fig.update_yaxes(type="log", title_text="simtlab (same metric)", scaleanchor="x")
    fig.update_layout(template="plotly_white", height=650, width=760,
                      title=f"Baseline vs reference simulator, same PTX (commit {commit})")
    body = fig.to_html(full_html=False, include_plotlyjs=True,
                       config={"displaylogo": False})
    note = (f"<p>Left out (failed or no positive value): {html.escape(', '.join(left))}.</p>"
            if left else "")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>simtlab "
            "validate: correlation</title><style>body{font-family:sans-serif;margin:1em 2em}"
            "</style></head><body><h1>Correlation with the reference simulator</h1><p>One "
            f"point per case of golden/validate/reference.yaml; band: ±{100 * tol:.0f}% "
            "tolerance. Hover for the values and the error; drag to zoom.</p>" + note + body
            + "</body></html>\n")


def write_scatter(out: Path, data: dict) -> list[Path]:
    """Write the static figure and the interactive page for validate's JSON ``data`` into
    the results folder ``out``; return the paths written (none without drawable cases)."""
    from golden.report.present.figures import validate as validate_figures
    from golden.report.present.meta import RunMeta, git_commit
    from golden.report.present.plots import save

    out = Path(out)
    good, _ = points(data)
    if not good:
        return []
    commit = git_commit()
    written = []
    for plot in validate_figures(data, RunMeta(size="as in reference.yaml", seed=0,
                                               commit=commit)):
        saved = save(plot, out / "figures")
        written += [saved["svg"], saved["png"]]
    write_output(out / PAGE, interactive_page(data, commit))
    written.append(out / PAGE)
    return written
