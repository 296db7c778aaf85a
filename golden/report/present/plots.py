"""Plot kinds the seeds use, drawn with matplotlib (Agg, no display needed).

* :func:`grouped_bars` -- per-workload bars for each variant, a geomean group at the right and
  the paper's value per variant as a dashed reference line (the seeds' speedup figures);
* :func:`stacked_bars` -- a breakdown per workload that sums to a whole (energy, stalls);
* :func:`xy_scatter` -- ours against a reference with the y = x line and a tolerance band
  (the baseline-fidelity correlation plot);
* :func:`interaction_matrix` -- a heat map of pairwise interaction ratios centred on 1
  (the composition study's super- and sub-additive pairs).

Each returns a :class:`Plot`: the matplotlib figure plus its file stem, title and caption.
:func:`save` writes it as SVG and PNG. Output is deterministic (no date or random ids in
the SVG) so a re-run on the same results produces the same files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from golden.fileio import atomic_path  # noqa: E402
from golden.report.present.estimates import Estimate, geomean_estimate  # noqa: E402
from golden.workloads.user_ref import label as workload_label  # noqa: E402

#: legible at the page's width: 10-11 pt text on a ~9-inch-wide figure
STYLE = {"font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "xtick.labelsize": 9,
         "ytick.labelsize": 9, "legend.fontsize": 9, "svg.hashsalt": "simtlab",
         "figure.dpi": 100, "savefig.dpi": 110}

#: colour-blind-safe qualitative palette (Okabe-Ito)
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
           "#000000", "#999999")


@dataclass
class Plot:
    """One figure of a report: ``name`` (file stem), ``title``, ``caption`` (what was run)."""

    name: str
    title: str
    caption: str
    figure: object


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def geomean_of(values) -> float | None:
    """Geometric mean of the finite positive values (None if there are none); an
    :class:`~golden.report.present.estimates.Estimate` when some are (its interval
    propagated in log space, docs/sampling.md)."""
    v = [x for x in values if _finite(x) and x > 0]
    if not v:
        return None
    g = math.exp(sum(math.log(x) for x in v) / len(v))
    return geomean_estimate(v, g) if any(isinstance(x, Estimate) for x in v) else g


def _interval(v) -> tuple[float, float] | None:
    """``(low, high)`` of a sampled figure with an estimable, finite 95% interval."""
    if isinstance(v, Estimate) and _finite(v) and _finite(v.low) and _finite(v.high):
        return float(v.low), float(v.high)
    return None


def _width(n_groups: int) -> float:
    return min(16.0, max(6.5, 0.45 * n_groups + 2.5))


def grouped_bars(name: str, title: str, caption: str, categories: list[str],
                 series: dict[str, list], ylabel: str, reference: dict | None = None,
                 unity: float | None = 1.0, add_geomean: bool = True,
                 percent: bool = False) -> Plot:
    """Bars per category (workload) for each series (variant); missing values (None, nan)
    leave a gap. ``reference`` maps a series label to the paper's value, drawn as a dashed
    line in that series' colour; ``unity`` draws the baseline level. A user workload's
    reference is drawn as ``NAME (user)``. A value that is a sampled
    :class:`~golden.report.present.estimates.Estimate` gets a black error bar over its 95%
    interval (``--sample`` reports; plain numbers draw exactly as before)."""
    cats = [workload_label(c) for c in categories]
    data = {k: list(v) for k, v in series.items()}
    if add_geomean and cats:
        cats.append("geomean" if not percent else "mean")
        for k, v in data.items():
            fin = [x for x in v if _finite(x)]
            v.append((sum(fin) / len(fin) if fin else None) if percent else geomean_of(v))
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(min(13.0, max(7.0, 0.13 * len(cats) * max(1, len(data))
                                                       + 3.5)), 4.0))
        n = max(1, len(data))
        w = 0.8 / n
        for i, (label, vals) in enumerate(data.items()):
            xs = [j + (i - (n - 1) / 2) * w for j in range(len(cats))]
            ys = [v if _finite(v) else 0.0 for v in vals]
            col = PALETTE[i % len(PALETTE)]
            bars = ax.bar(xs, ys, w * 0.95, label=label, color=col)
            if add_geomean and cats:
                bars[-1].set_edgecolor("black")
                bars[-1].set_linewidth(1.2)
            err = [(x, float(v), iv) for x, v in zip(xs, vals) if (iv := _interval(v))]
            if err:
                ax.errorbar([e[0] for e in err], [e[1] for e in err],
                            yerr=[[e[1] - e[2][0] for e in err], [e[2][1] - e[1] for e in err]],
                            fmt="none", ecolor="black", elinewidth=0.9, capsize=2.5, zorder=3)
            if reference and _finite(reference.get(label)):
                ax.axhline(reference[label], color=col, linestyle="--", linewidth=1.2,
                           label=f"{label}: paper {reference[label]:.4g}")
        if unity is not None:
            ax.axhline(unity, color="black", linewidth=0.8)
        if unity == 1.0:
            # ratios near 1: zoom onto the values (the axis states where it starts)
            vals = [x for v in data.values() for x in v if _finite(x)]
            vals += [x for x in (reference or {}).values() if _finite(x)] + [1.0]
            vals += [b for v in data.values() for x in v if (iv := _interval(x)) for b in iv]
            lo, hi = min(vals), max(vals)
            pad = max(0.02, 0.08 * (hi - lo))
            if lo - pad > 0.3:
                ax.set_ylim(lo - pad, hi + pad)
        ax.set_xticks(range(len(cats)))
        ax.set_xticklabels(cats, rotation=45 if len(cats) > 8 else 0,
                           ha="right" if len(cats) > 8 else "center")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        fig.tight_layout()
    return Plot(name, title, caption, fig)


def stacked_bars(name: str, title: str, caption: str, categories: list[str],
                 components: dict[str, list], ylabel: str, percent: bool = True) -> Plot:
    """One bar per category, stacked by component (values are shares when ``percent``,
    drawn as %)."""
    categories = [workload_label(c) for c in categories]
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(_width(len(categories)), 3.8))
        bottom = [0.0] * len(categories)
        scale = 100.0 if percent else 1.0
        # distinct colours for every component: the palette, or tab20 for long breakdowns
        colours = (PALETTE if len(components) <= len(PALETTE)
                   else [plt.get_cmap("tab20")(i % 20) for i in range(len(components))])
        for i, (label, vals) in enumerate(components.items()):
            ys = [scale * v if _finite(v) else 0.0 for v in vals]
            if not any(ys):
                continue
            ax.bar(range(len(categories)), ys, 0.7, bottom=bottom, label=label,
                   color=colours[i])
            bottom = [b + y for b, y in zip(bottom, ys)]
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels(categories, rotation=45 if len(categories) > 8 else 0,
                           ha="right" if len(categories) > 8 else "center")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        if percent:
            ax.set_ylim(0, 100)
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        fig.tight_layout()
    return Plot(name, title, caption, fig)


def xy_scatter(name: str, title: str, caption: str, points: list[tuple[float, float, str]],
               xlabel: str, ylabel: str, tolerance: float | None = None) -> Plot:
    """Points ``(x, y, label)`` on log axes with the y = x line (and ±tolerance band)."""
    pts = [(x, y, s) for x, y, s in points if _finite(x) and _finite(y) and x > 0 and y > 0]
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(5.5, 5.0))
        if pts:
            lo = min(min(x, y) for x, y, _ in pts) / 1.5
            hi = max(max(x, y) for x, y, _ in pts) * 1.5
            ax.plot([lo, hi], [lo, hi], color="black", linewidth=1, label="y = x")
            if tolerance:
                ax.fill_between([lo, hi], [lo * (1 - tolerance), hi * (1 - tolerance)],
                                [lo * (1 + tolerance), hi * (1 + tolerance)], color="grey",
                                alpha=0.2, label=f"±{100 * tolerance:.0f}%")
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], color=PALETTE[0], zorder=3)
            for x, y, s in pts:
                ax.annotate(s, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(lo, hi)
            ax.set_ylim(lo, hi)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(alpha=0.3, which="both")
        ax.legend(loc="upper left", frameon=False)
        fig.tight_layout()
    return Plot(name, title, caption, fig)


def save(plot: Plot, out_dir: Path) -> dict:
    """Write ``<out_dir>/<name>.svg`` and ``.png``; close the figure; return
    ``{"name", "title", "caption", "svg", "png"}`` (paths)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {}
    with plt.rc_context(STYLE):
        for ext in ("svg", "png"):
            p = out_dir / f"{plot.name}.{ext}"
            with atomic_path(p) as tmp:
                plot.figure.savefig(tmp, format=ext, bbox_inches="tight",
                                    metadata={"Date": None} if ext == "svg" else {"Software": None})
            paths[ext] = p
    plt.close(plot.figure)
    return {"name": plot.name, "title": plot.title, "caption": plot.caption,
            "svg": paths["svg"], "png": paths["png"]}


def interaction_matrix(name: str, title: str, caption: str, names: list[str],
                       panels: dict[str, dict], tolerance: float) -> Plot:
    """Pairwise interaction of ``names`` (the composition study, issue 73), one heat map per
    panel (``{panel label: {(a, b): value | text}}``, each pair once, ``a`` before ``b`` in
    ``names``; drawn in the upper triangle). A number is an interaction ratio
    S_AB / (S_A x S_B): above ``1 + tolerance`` a super-additive cell (blue, "super"),
    below ``1 - tolerance`` a sub-additive one (orange, "sub"), between them "product"
    (white); the colour scale is centred on 1 and symmetric in log. A text (``refused``,
    ``missing``, ``not run``) is written in a grey cell; the diagonal is left empty."""
    from matplotlib.colors import LinearSegmentedColormap, TwoSlopeNorm
    cmap = LinearSegmentedColormap.from_list("interaction", [PALETTE[3], "#ffffff", PALETTE[0]])
    vals = [v for p in panels.values() for v in p.values() if _finite(v) and v > 0]
    span = max([abs(math.log(v)) for v in vals] + [math.log1p(4 * tolerance)])
    norm = TwoSlopeNorm(1.0, math.exp(-span), math.exp(span))
    rows, cols = names[:-1], names[1:]   # the upper triangle without the empty diagonal
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels) + 1.4, 4.6),
                                 squeeze=False, gridspec_kw={"wspace": 0.45})
        for ax, (label, cells) in zip(axes[0], panels.items()):
            ax.set_xlim(-0.5, len(cols) - 0.5)
            ax.set_ylim(len(rows) - 0.5, -0.5)
            for i, a in enumerate(rows):
                for j, b in enumerate(cols):
                    if names.index(b) <= names.index(a):
                        continue
                    v = cells.get((a, b))
                    if _finite(v) and v > 0:
                        kind = ("super" if v > 1 + tolerance else
                                "sub" if v < 1 - tolerance else "product")
                        face = cmap(norm(v)) if kind != "product" else (1.0, 1.0, 1.0, 1.0)
                        text = f"{v:.3f}\n{kind}"
                        weight = "normal" if kind == "product" else "bold"
                        ink = "white" if abs(math.log(v)) > 0.6 * span else "#222222"
                    else:
                        face, text, weight = "#dddddd", str(v or "not run"), "normal"
                        ink = "#222222"
                    ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=face,
                                               edgecolor="white", linewidth=1.5))
                    ax.text(j, i, text, ha="center", va="center", fontsize=7.5,
                            fontweight=weight, color=ink)
            ax.set_xticks(range(len(cols)))
            ax.set_xticklabels(cols, rotation=40, ha="right")
            ax.set_yticks(range(len(rows)))
            ax.set_yticklabels(rows)
            ax.set_title(label)
            ax.set_aspect("equal")
            for sp in ax.spines.values():
                sp.set_visible(False)
            ax.tick_params(length=0)
        sm = plt.cm.ScalarMappable(norm=norm, cmap=cmap)
        bar = fig.colorbar(sm, ax=list(axes[0]), shrink=0.8, pad=0.02)
        bar.set_label("interaction S_AB / (S_A x S_B)")
        fig.suptitle(title)
    return Plot(name, title, caption, fig)
