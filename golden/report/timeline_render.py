"""The over-time view as one self-contained interactive HTML page (issue 72 item 2).

Drawn with plotly (docs/timeline.md says why): plotly.js is inlined in the page, so it
opens offline; zoom (drag, double-click resets; the x axes are linked), hover (values of
each interval) and SM selection (the drop-down picks all SMs or one SM for the IPC,
resident-warp and stall-mix rows; legend clicks hide single traces).

Rows, all against global cycles (launches one after the other: each shaded, labelled
and its boundaries drawn as dashed lines -- the per-launch phases): IPC per SM (warp
instructions executed per cycle in the interval); mean resident warps; scheduler-cycle
outcomes as shares (stacked); DRAM bandwidth per channel (memory partition) as a fraction
of the channel's peak, with the mean over channels and the peak line; the DRAM requests
pending per channel at the interval's end (sent to the controller, last column command not
yet issued: in the scheduler queue, waiting to enter it or on their way to it) over the
scheduler queue's entries (above 100%: a backlog), with the entries line, and the share of
requests that found the queue full (right axis); row-buffer hit rate per channel and over
all channels; and, when the
mechanisms report any, their counters (per interval, all SMs) and gauges (mean over SMs).

Traces carry a ``meta`` tag (``dram-util``, ``dram-util-mean``, ``dram-peak``,
``dram-queue``, ``dram-queue-entries``, ``dram-queue-full``, ``dram-row-hits``,
``dram-row-hits-all``) and launch boundaries are shapes
named ``launch-boundary``; the post script writes counts and maxima of them into the
page's ``<body>`` attributes, read by the headless-Chromium test.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict

#: colours of the scheduler outcomes (issue first, as in the results page's stall bars)
_STALL_COLOURS = ("#2ca02c", "#7f7f7f", "#1f77b4", "#ff7f0e", "#9467bd", "#d62728")

#: runs in the page before plotly's script (console errors and uncaught exceptions are
#: recorded so a headless browser test can read them from the DOM)
_ERROR_TRAP = ("<script>window.__timelineErrors=[];window.addEventListener('error',function(e)"
               "{window.__timelineErrors.push(String(e.message))});(function(){var c=console."
               "error;console.error=function(){window.__timelineErrors.push(Array.prototype."
               "join.call(arguments,' '));c.apply(console,arguments)}})();</script>")

#: runs after the figure is drawn ({plot_id} is plotly's div id)
_POST = ("var d=document.getElementById('{plot_id}');document.body.setAttribute("
         "'data-plotted',String(d.querySelectorAll('.main-svg').length));document.body."
         "setAttribute('data-traces',String(d.data.length));document.body.setAttribute("
         "'data-errors',window.__timelineErrors.join(' | '));"
         "var tag=function(m){return d.data.filter(function(t){return t.meta===m})};"
         "var ys=function(m){var v=[];tag(m).forEach(function(t){t.y.forEach(function(y){"
         "if(y!==null&&y!==undefined)v.push(y)})});return v};"
         "var u=ys('dram-util');document.body.setAttribute('data-dram-util-traces',"
         "String(tag('dram-util').length));document.body.setAttribute('data-dram-util-points',"
         "String(u.length));document.body.setAttribute('data-dram-util-max',"
         "String(u.length?Math.max.apply(null,u):-1));document.body.setAttribute("
         "'data-dram-peak',String(ys('dram-peak').length?Math.min.apply(null,ys('dram-peak')):-1));"
         "document.body.setAttribute('data-dram-queue-traces',String(tag('dram-queue').length));"
         "document.body.setAttribute('data-launch-lines',String((d.layout.shapes||[]).filter("
         "function(s){return s.name==='launch-boundary'}).length));"
         "document.body.setAttribute('data-visible-traces',String(d.data.filter(function(t)"
         "{return t.visible!==false}).length));"
         "document.body.setAttribute('data-drawn-traces',String(d.querySelectorAll("
         "'.scatterlayer .trace').length));")


def _series(doc: dict):
    """Per-SM and aggregate series from the samples: ``(times, per_sm, agg)`` where times
    is the sorted list of ``(t0, t1)`` intervals present."""
    per_sm: dict = defaultdict(dict)          # sm -> (t0, t1) -> row
    for r in doc["sm_samples"]:
        per_sm[r["sm"]][(r["t0"], r["t1"])] = r
    times = sorted({k for rows in per_sm.values() for k in rows})
    return times, per_sm


def _mid(t):
    return (t[0] + t[1]) / 2


def figure(doc: dict):
    """The plotly figure of a timeline document (:mod:`golden.report.timeline`)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    reasons = doc["stall_reasons"]
    times, per_sm = _series(doc)
    sms = sorted(per_sm)
    mech_keys = sorted({k for r in doc["sm_samples"] for k in r["mechanism"]})
    if any(r["instructions_skipped"] for r in doc["sm_samples"]):
        mech_keys.insert(0, "instructions_skipped")     # skipped / eliminated by a mechanism
    gauge_keys = sorted({k for r in doc["sm_samples"] for k in r["gauges"]})
    n_rows = 6 + (1 if mech_keys or gauge_keys else 0)
    peak_gbs = doc.get("dram_peak_gb_per_s_per_channel")
    q_entries = doc.get("dram_queue_entries")
    titles = ["IPC per SM (warp instructions executed / cycle)", "Resident warps (mean)",
              "Scheduler-cycle outcomes (share)",
              "DRAM bandwidth per channel, fraction of peak (data-bus busy time)"
              + (f"; peak {peak_gbs:.1f} GB/s per channel" if peak_gbs else ""),
              "DRAM requests pending per channel at interval end"
              + (f" / {q_entries} queue entries" if q_entries else "")
              + "; black dashed (right axis): share of requests finding the queue full",
              "DRAM row-buffer hit rate per channel (black: all channels)"]
    if n_rows == 7:
        titles.append("Mechanism: counters per interval (all SMs), gauges (mean over SMs)")
    specs = [[{"secondary_y": r == 5}] for r in range(1, n_rows + 1)]
    fig = make_subplots(rows=n_rows, cols=1, shared_xaxes=True, vertical_spacing=0.035,
                        subplot_titles=titles, specs=specs)
    groups: dict = {"ipc": {}, "warps": {}, "stall": defaultdict(list), "always": []}

    def add(trace, row, group, key=None, secondary=False):
        if secondary:
            fig.add_trace(trace, row=row, col=1, secondary_y=True)
        else:
            fig.add_trace(trace, row=row, col=1)
        i = len(fig.data) - 1
        if group == "always":
            groups["always"].append(i)
        elif group == "stall":
            groups["stall"][key].append(i)
        else:
            groups[group][key] = i

    x_all = [_mid(t) for t in times]
    hover_iv = [f"[{t[0]:,}, {t[1]:,})" for t in times]
    for sm in sms:
        rows = per_sm[sm]
        ts = [t for t in times if t in rows]
        xs = [_mid(t) for t in ts]
        iv = [f"[{t[0]:,}, {t[1]:,})" for t in ts]
        ipc = [rows[t]["instructions_executed"] / (t[1] - t[0]) for t in ts]
        add(go.Scatter(x=xs, y=ipc, mode="lines", name=f"SM {sm}", legendgroup="ipc",
                       customdata=iv, line={"width": 1},
                       hovertemplate=f"SM {sm}<br>cycles %{{customdata}}<br>IPC %{{y:.3f}}"
                                     "<extra></extra>", showlegend=False), 1, "ipc", sm)
        warps = [rows[t]["resident_warp_cycles"] / (t[1] - t[0]) for t in ts]
        add(go.Scatter(x=xs, y=warps, mode="lines", name=f"SM {sm}", line={"width": 1},
                       customdata=iv, showlegend=False,
                       hovertemplate=f"SM {sm}<br>cycles %{{customdata}}<br>warps %{{y:.1f}}"
                                     "<extra></extra>"), 2, "warps", sm)
    # stall shares: all SMs (key None), then each SM
    for key in [None] + sms:
        src = [per_sm[s] for s in sms] if key is None else [per_sm[key]]
        tot = [0] * len(times)
        parts = [[0] * len(times) for _ in reasons]
        for rows in src:
            for j, t in enumerate(times):
                r = rows.get(t)
                if r is None:
                    continue
                tot[j] += r["scheduler_cycles"]
                for k, v in enumerate(r["stalls"]):
                    parts[k][j] += v
        for k, name in enumerate(reasons):
            y = [parts[k][j] / tot[j] if tot[j] else None for j in range(len(times))]
            add(go.Scatter(x=x_all, y=y, mode="lines", stackgroup=f"st{key}", name=name,
                           legendgroup=name, showlegend=key is None, customdata=hover_iv,
                           line={"width": 0.5, "color": _STALL_COLOURS[k % 6]},
                           visible=key is None,
                           hovertemplate=f"{name} ({'all SMs' if key is None else f'SM {key}'})"
                                         "<br>cycles %{customdata}<br>%{y:.1%}<extra></extra>"),
                3, "stall", key)
    # DRAM channels: bandwidth / peak, queue, row hits
    per_ch: dict = defaultdict(list)
    for r in doc["channel_samples"]:
        per_ch[r["channel"]].append(r)
    bpc = doc.get("dram_peak_bytes_per_cycle_per_channel")
    for ch in sorted(per_ch):
        rs = per_ch[ch]
        xs = [(r["t0"] + r["t1"]) / 2 for r in rs]
        iv = [f"[{r['t0']:,}, {r['t1']:,})" for r in rs]
        util = [min(1.0, r["busy"] / (r["t1"] - r["t0"])) for r in rs]
        gbs = [u * peak_gbs if peak_gbs else 0.0 for u in util]
        add(go.Scatter(x=xs, y=util, mode="lines", name=f"channel {ch}", legendgroup=f"ch{ch}",
                       customdata=list(zip(iv, gbs)), line={"width": 1}, showlegend=False,
                       meta="dram-util",
                       hovertemplate=f"channel {ch}<br>cycles %{{customdata[0]}}<br>"
                                     "%{y:.1%} of peak (%{customdata[1]:.1f} GB/s)"
                                     "<extra></extra>"), 4, "always")
        if "queued" in rs[0]:
            q = [r["queued"] / q_entries if q_entries else r["queued"] for r in rs]
            qd = [(i, r["queued"], r["queue_full"]) for i, r in zip(iv, rs)]
            add(go.Scatter(x=xs, y=q, mode="lines", name=f"channel {ch}", legendgroup=f"ch{ch}",
                           customdata=qd, line={"width": 1}, showlegend=False, meta="dram-queue",
                           hovertemplate=f"channel {ch}<br>cycles %{{customdata[0]}}<br>"
                                         "%{customdata[1]} requests pending at the end; "
                                         "%{customdata[2]} found the queue full"
                                         "<extra></extra>"),
                5, "always")
        hit = [r["row_hits"] / (r["row_hits"] + r["activates"])
               if r["row_hits"] + r["activates"] else None for r in rs]
        n = [r["row_hits"] + r["activates"] for r in rs]
        add(go.Scatter(x=xs, y=hit, mode="lines+markers", name=f"channel {ch}",
                       legendgroup=f"ch{ch}", customdata=list(zip(iv, n)), showlegend=False,
                       marker={"size": 3}, line={"width": 1}, meta="dram-row-hits",
                       hovertemplate=f"channel {ch}<br>cycles %{{customdata[0]}}<br>row hits "
                                     "%{y:.1%} of %{customdata[1]} requests<extra></extra>"),
            6, "always")
    by_iv: dict = defaultdict(list)
    for r in doc["channel_samples"]:
        by_iv[(r["t0"], r["t1"])].append(r)
    ivs = sorted(by_iv)
    if ivs:
        xs = [_mid(t) for t in ivs]
        ivt = [f"[{t[0]:,}, {t[1]:,})" for t in ivs]
        mean = [sum(min(1.0, r["busy"] / (t[1] - t[0])) for r in by_iv[t]) / len(by_iv[t])
                for t in ivs]
        add(go.Scatter(x=xs, y=mean, mode="lines", name="mean over channels",
                       customdata=ivt, line={"width": 2.5, "color": "#000000"},
                       meta="dram-util-mean", legendgroup="dram-mean",
                       hovertemplate="all channels<br>cycles %{customdata}<br>mean %{y:.1%} of "
                                     "peak<extra></extra>"), 4, "always")
        end_c = max(doc.get("cycles") or 0, ivs[-1][1])
        add(go.Scatter(x=[0, end_c], y=[1.0, 1.0], mode="lines", meta="dram-peak",
                       name="DRAM peak" + (f" ({peak_gbs:.1f} GB/s per channel, "
                                           f"{bpc:.2f} B/cycle)" if peak_gbs and bpc else ""),
                       line={"width": 1.5, "color": "#d62728", "dash": "dash"},
                       hoverinfo="name"), 4, "always")
        if "queue_full" in doc["channel_samples"][0]:
            full = []
            for t in ivs:
                req = sum(r["row_hits"] + r["activates"] for r in by_iv[t])
                full.append(sum(r["queue_full"] for r in by_iv[t]) / req if req else None)
            add(go.Scatter(x=xs, y=full, mode="lines", name="requests finding the DRAM queue full",
                           customdata=ivt, meta="dram-queue-full",
                           line={"width": 1.5, "color": "#000000", "dash": "dash"},
                           hovertemplate="all channels<br>cycles %{customdata}<br>%{y:.1%} of "
                                         "requests found the queue full<extra></extra>"),
                5, "always", secondary=True)
        if q_entries:
            add(go.Scatter(x=[0, end_c], y=[1.0, 1.0], mode="lines", meta="dram-queue-entries",
                           name=f"DRAM scheduler queue entries ({q_entries} per channel)",
                           line={"width": 1.5, "color": "#7f7f7f", "dash": "dot"},
                           hoverinfo="name"), 5, "always")
        hits = []
        for t in ivs:
            req = sum(r["row_hits"] + r["activates"] for r in by_iv[t])
            hits.append(sum(r["row_hits"] for r in by_iv[t]) / req if req else None)
        add(go.Scatter(x=xs, y=hits, mode="lines", name="row hits, all channels",
                       customdata=ivt, meta="dram-row-hits-all", connectgaps=False,
                       line={"width": 1.5, "color": "#000000"},
                       hovertemplate="all channels<br>cycles %{customdata}<br>row hits %{y:.1%}"
                                     "<extra></extra>"), 6, "always")
    if n_rows == 7:
        for key in mech_keys:
            if key == "instructions_skipped":
                y = [sum(per_sm[s][t][key] for s in sms if t in per_sm[s]) for t in times]
            else:
                y = [sum(per_sm[s].get(t, {}).get("mechanism", {}).get(key, 0) for s in sms)
                     for t in times]
            add(go.Scatter(x=x_all, y=y, mode="lines", name=key, customdata=hover_iv,
                           hovertemplate=f"{key}<br>cycles %{{customdata}}<br>%{{y:,}}"
                                         "<extra></extra>"), 7, "always")
        for key in gauge_keys:
            y = []
            for t in times:
                vals = [per_sm[s][t]["gauges"].get(key, 0) for s in sms if t in per_sm[s]]
                y.append(sum(vals) / len(vals) if vals else None)
            add(go.Scatter(x=x_all, y=y, mode="lines", name=f"{key} (mean)",
                           line={"dash": "dot"}, customdata=hover_iv,
                           hovertemplate=f"{key}<br>cycles %{{customdata}}<br>%{{y:.2f}}"
                                         "<extra></extra>"), 7, "always")
    # SM selection: visibility per button
    n = len(fig.data)

    def visible(sel):
        v = [False] * n
        for i in groups["always"]:
            v[i] = True
        for g in ("ipc", "warps"):
            for sm, i in groups[g].items():
                v[i] = sel is None or sm == sel
        for i in groups["stall"][sel]:
            v[i] = True
        return v

    buttons = [{"label": "all SMs", "method": "restyle", "args": [{"visible": visible(None)}]}]
    buttons += [{"label": f"SM {sm}", "method": "restyle", "args": [{"visible": visible(sm)}]}
                for sm in sms]
    # launch phases
    launches = doc["launches"]
    for k, ln in enumerate(launches):
        if ln["end"] is None:
            continue
        fig.add_vrect(x0=ln["start"], x1=ln["end"], fillcolor="#1f77b4" if k % 2 else "#ff7f0e",
                      opacity=0.06, line_width=0, layer="below")
    # launch boundaries: a dashed line where each launch starts, and after the last
    bounds = sorted({ln["start"] for ln in launches if ln["end"] is not None}
                    | {ln["end"] for ln in launches if ln["end"] is not None})
    for b in bounds:
        fig.add_shape(type="line", x0=b, x1=b, y0=0, y1=1, yref="paper", xref="x",
                      name="launch-boundary", layer="above",
                      line={"width": 1, "dash": "dash", "color": "#555555"})
    if len(launches) <= 40:
        for ln in launches:
            if ln["end"] is not None:
                fig.add_annotation(x=(ln["start"] + ln["end"]) / 2, y=1.0, yref="paper",
                                   text=f"{ln['index']}: {ln['kernel']}", showarrow=False,
                                   textangle=-90 if len(launches) > 6 else 0,
                                   yanchor="bottom", font={"size": 9})
    for r in range(1, n_rows + 1):
        fig.update_xaxes(showspikes=True, spikemode="across", row=r, col=1)
    fig.update_yaxes(rangemode="tozero", row=1, col=1)
    fig.update_yaxes(range=[0, 1], tickformat=".0%", row=3, col=1)
    fig.update_yaxes(range=[0, 1.05], tickformat=".0%", row=4, col=1)
    fig.update_yaxes(rangemode="tozero", tickformat=".0%" if q_entries else None, row=5, col=1,
                     secondary_y=False)
    fig.update_yaxes(range=[0, 1.05], tickformat=".0%", dtick=0.25, row=5, col=1, secondary_y=True,
                     showgrid=False)
    fig.update_yaxes(range=[0, 1.02], tickformat=".0%", row=6, col=1)
    fig.update_xaxes(title_text="cycle (launches back to back)", row=n_rows, col=1)
    fig.update_layout(height=260 * n_rows + 140, margin={"t": 140, "l": 70, "r": 30},
                      hovermode="closest", template="plotly_white",
                      updatemenus=[{"buttons": buttons, "direction": "down", "x": 0.0,
                                    "xanchor": "left", "y": 1.0 + 90 / (260 * n_rows),
                                    "yanchor": "bottom", "showactive": True}],
                      legend={"orientation": "h", "y": -0.04, "yanchor": "top"})
    return fig


def dram_summary(doc: dict) -> dict | None:
    """The DRAM channels' busiest interval (bandwidth as a fraction of a channel's peak:
    ``max_channel`` with its ``channel``, ``t0``, ``t1``), the busiest mean over channels of
    one interval (``max_mean``), the whole run's mean (``run_mean``) and the requests that
    found a scheduler queue full (``queue_full``); None without channel samples."""
    cs = doc["channel_samples"]
    if not cs:
        return None

    def util(r):
        return min(1.0, r["busy"] / (r["t1"] - r["t0"]))
    best = max(cs, key=util)
    by_iv: dict = defaultdict(list)
    for r in cs:
        by_iv[(r["t0"], r["t1"])].append(util(r))
    span = max(r["t1"] for r in cs) - min(r["t0"] for r in cs)
    n_ch = len({r["channel"] for r in cs})
    return {"max_channel": util(best), "channel": best["channel"], "t0": best["t0"],
            "t1": best["t1"], "max_mean": max(sum(v) / len(v) for v in by_iv.values()),
            "run_mean": sum(r["busy"] for r in cs) / (n_ch * span) if span else 0.0,
            "queue_full": sum(r.get("queue_full", 0) for r in cs)}


def html_page(doc: dict) -> str:
    """A self-contained page (plotly.js inlined, no network access) for ``doc``."""
    fig = figure(doc)
    body = fig.to_html(full_html=False, include_plotlyjs=True, post_script=_POST,
                       config={"displaylogo": False, "responsive": True})
    mechs = ", ".join(doc["mechanisms"]) or "baseline"
    head = (f"{doc['workload']} ({doc['size']}, seed {doc['seed']}) on {doc['config']}, "
            f"{mechs}: {doc['cycles']:,} cycles, {len(doc['launches'])} launch(es), "
            f"{doc['instructions_executed']:,} warp instructions executed, sampled every "
            f"{doc['every']:,} cycles; outputs "
            f"{'equal numpy' if doc['outputs_match'] else 'DIFFER from numpy'}")
    dram = dram_summary(doc)
    if dram:
        head += (f". DRAM: highest bandwidth in one interval {dram['max_channel']:.0%} of a "
                 f"channel's peak (channel {dram['channel']}, cycles [{dram['t0']:,}, "
                 f"{dram['t1']:,})), highest mean over channels {dram['max_mean']:.0%}, whole "
                 f"run {dram['run_mean']:.1%}; {dram['queue_full']:,} requests found a "
                 "scheduler queue full")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>simtlab timeline: {html.escape(doc['workload'])}</title>{_ERROR_TRAP}"
            "<style>body{font-family:sans-serif;margin:1em 2em}p{max-width:70em}</style>"
            f"</head><body><h1>Timeline: {html.escape(doc['workload'])}</h1>"
            f"<p>{html.escape(head)}.</p><p>Drag to zoom (axes linked), double-click to "
            "reset, hover for values; the drop-down selects the SM of the IPC, warp and "
            "outcome rows. Shaded bands and dashed lines: kernel launches (phases) and their "
            "boundaries. DRAM rows: one line per channel (memory partition); bandwidth as a "
            "fraction of the channel's peak, with the peak line.</p>\n" + body
            + "\n<script type=\"application/json\" id=\"timeline-meta\">" + html.escape(json.dumps(
                {k: doc[k] for k in ("workload", "size", "config", "cycles", "every")}),
                quote=False) + "</script></body></html>\n")
