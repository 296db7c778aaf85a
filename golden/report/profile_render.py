"""Text and self-contained HTML views of a per-PC profile and of a two-run diff (issue 72).

Both views show the rows of :mod:`golden.report.profile`: the annotated listing (every
instruction in PC order under its CUDA source line) and the diff (instructions sorted by
the scheduler-cycles the second run gained or lost). The HTML needs no network: inline
CSS, no scripts, no external resources.
"""

from __future__ import annotations

import html

from golden.report.profile import DiffRow, InstructionRow, RunProfile
from golden.timing.stats import STALL_REASONS

#: short column names of the scheduler outcomes
SHORT = {"issue": "issue", "no_instruction": "noinst", "dependence": "dep",
         "structural": "struct", "barrier": "bar", "memory": "mem"}
_STALLS = [r for r in STALL_REASONS if r != "issue"]


def _n(v) -> str:
    return f"{v:,}" if v else "."


def _pct(f) -> str:
    return "-" if f is None else f"{100 * f:.0f}%"


def _hm(d: dict, hit: str, miss: str) -> str:
    h, m = d.get(hit, 0), d.get(miss, 0)
    return f"{h}/{m}" if h or m else "."


def _dram(d: dict) -> str:
    b = d.get("dram_bytes", 0)
    return f"{b:,}" if b else "."


def mechanism_notes(r: InstructionRow, counters: int = 0) -> str:
    """What the mechanisms did at the instruction: skipped (not issued), eliminated at
    issue, scalar, other pipeline overrides, pipeline conversions; then the ``counters``
    largest mechanism counters attributed to it."""
    parts = [f"{k} {v:,}" for k, v in (("skipped", r.skipped), ("eliminated", r.eliminated),
                                       ("scalar", r.scalar),
                                       ("override", r.overridden - r.scalar),
                                       ("converted", r.converted)) if v]
    if counters and r.mech:
        top = sorted(r.mech.items(), key=lambda kv: (-abs(kv[1]), kv[0]))[:counters]
        parts += [f"{k}={v:,.0f}" if isinstance(v, float) else f"{k}={v:,}" for k, v in top]
    return ", ".join(parts)


def _src(r: InstructionRow) -> str:
    return f"{r.source[0]}:{r.source[1]}" if r.source else ""


def _header(p: RunProfile) -> list[str]:
    t = p.totals
    return [f"{p.workload} ({p.size}, seed {p.seed}) on {p.config}, mechanisms: {p.label}: "
            f"{p.cycles:,} cycles, {p.launches} launch(es), outputs "
            f"{'MATCH' if p.outputs_match else 'MISMATCH'} the numpy reference",
            f"scheduler-cycles {t['scheduler_cycles']:,}: " + ", ".join(
                f"{r} {t['stalls'][r]:,}" for r in STALL_REASONS),
            f"warp instructions issued {t['instructions_issued']:,}, executed "
            f"{t['instructions_executed']:,}, skipped {t['instructions_skipped']:,}",
            "CUDA source lines: " + (p.source_note or "from nvcc -lineinfo")]


# ---------------------------------------------------------------------- text
_COLS = ("PC", "exec", "lanes", "issue") + tuple(SHORT[r] for r in _STALLS) + (
    "L1 h/m", "L2 h/m", "DRAM B")


def _cells(r: InstructionRow, warp_size: int) -> list[str]:
    pc = f"{r.pc:#06x}" if r.pc >= 0 else "-"
    return ([pc, _n(r.executed), _pct(r.lane_fraction(warp_size)), _n(r.cycles["issue"])]
            + [_n(r.cycles[s]) for s in _STALLS]
            + [_hm(r.mem, "l1_hits", "l1_misses"), _hm(r.mem, "l2_hits", "l2_misses"),
               _dram(r.mem)])


def text_listing(p: RunProfile) -> str:
    """The annotated listing: per kernel, every instruction in PC order, a CUDA source line
    above the instructions it produced, then the PTX text and what mechanisms did."""
    out = _header(p) + [""]
    kernels = list(dict.fromkeys(r.kernel for r in p.rows))
    for k in kernels:
        rows = [r for r in p.rows if r.kernel == k]
        cells = [_cells(r, p.warp_size) for r in rows]
        w = [max(len(c), *(len(x[i]) for x in cells)) for i, c in enumerate(_COLS)]
        out.append(f"kernel {k}")
        out.append("  ".join(c.rjust(w[i]) for i, c in enumerate(_COLS)) + "  PTX  [mechanisms]")
        last = None
        for r, c in zip(rows, cells):
            if r.source and r.source[:2] != last:
                last = r.source[:2]
                out.append(f"  -- {r.source[0]}:{r.source[1]}: {r.source[2]}")
            notes = mechanism_notes(r)
            out.append("  ".join(x.rjust(w[i]) for i, x in enumerate(c)) + "  " + r.text
                       + (f"  [{notes}]" if notes else ""))
        out.append("")
        lines = [r for r in p.line_rows() if r.kernel == k]
        if lines:
            out.append(f"kernel {k} by CUDA source line (its instructions summed)")
            head = ("line",) + _COLS[1:] + ("cycles",)
            cells = [[_src(r)] + _cells(r, p.warp_size)[1:] + [f"{r.total_cycles:,}"]
                     for r in lines]
            w = [max(len(c), *(len(x[i]) for x in cells)) for i, c in enumerate(head)]
            out.append("  ".join(c.rjust(w[i]) for i, c in enumerate(head)) + "  source  [mechanisms]")
            for r, c in zip(lines, cells):
                notes = mechanism_notes(r)
                out.append("  ".join(x.rjust(w[i]) for i, x in enumerate(c)) + "  " + r.text
                           + (f"  [{notes}]" if notes else ""))
            out.append("")
    return "\n".join(out)


def text_diff(a: RunProfile, b: RunProfile, diffs: list[DiffRow], top: int | None = 40) -> str:
    """The two runs side by side, instructions sorted by cycles gained or lost."""
    out = [f"A: " + _header(a)[0], f"B: " + _header(b)[0],
           f"cycles: A {a.cycles:,}, B {b.cycles:,} (B/A speed-up {a.cycles / max(b.cycles, 1):.3f}); "
           f"scheduler-cycles: A {a.totals['scheduler_cycles']:,}, B {b.totals['scheduler_cycles']:,}",
           "CUDA source lines: " + (b.source_note or a.source_note or "from nvcc -lineinfo"),
           "gained = A's scheduler-cycles at the instruction minus B's (positive: B spent fewer)",
           ""]
    shown = diffs if not top else diffs[:top]
    head = ("gained", "A cyc", "B cyc", "A exec", "B exec", "B skip", "kernel", "PC", "line")
    rows = []
    for d in shown:
        why = ", ".join(f"{SHORT[r]} {v:+,}" for r, v in d.gained_by_reason().items() if v)
        rows.append(([f"{d.gained:+,}", f"{d.a.total_cycles:,}", f"{d.b.total_cycles:,}",
                      _n(d.a.executed), _n(d.b.executed), _n(d.b.skipped), d.kernel,
                      f"{d.pc:#06x}" if d.pc >= 0 else "-", _src(d.b) or _src(d.a)],
                     d.b.text or d.a.text, why, mechanism_notes(d.b)))
    w = [max(len(h), *(len(x[0][i]) for x in rows)) if rows else len(h)
         for i, h in enumerate(head)]
    out.append("  ".join(h.rjust(w[i]) for i, h in enumerate(head)) + "  PTX  (gained by reason) [B's mechanisms]")
    for cells, text, why, notes in rows:
        out.append("  ".join(x.rjust(w[i]) for i, x in enumerate(cells)) + f"  {text}"
                   + (f"  ({why})" if why else "") + (f"  [{notes}]" if notes else ""))
    if top and len(diffs) > top:
        out.append(f"... {len(diffs) - top} more instruction(s) (--top 0 shows all)")
    skipped = [d for d in diffs if d.b.skipped]
    if skipped:
        out += ["", f"instructions B skipped (not issued): {len(skipped)}, "
                    f"{sum(d.b.skipped for d in skipped):,} warp instructions, "
                    f"{sum(d.gained for d in skipped):+,} scheduler-cycles gained at them"]
    return "\n".join(out)


# ---------------------------------------------------------------------- HTML
_CSS = """
body{font-family:system-ui,sans-serif;margin:1.2em;color:#222}
table{border-collapse:collapse;font-size:12px}
th,td{padding:1px 6px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
th{background:#f4f4f4;position:sticky;top:0}
td.l,th.l{text-align:left}
td.m{text-align:left;white-space:normal;min-width:16em;max-width:48em}
td.ptx{font-family:monospace;text-align:left}
tr.src td{background:#eef4fb;text-align:left;font-family:monospace;color:#234}
.bar{display:inline-block;height:8px;background:#c55;vertical-align:middle}
.gain{color:#176d2a}.loss{color:#b3261e}
small{color:#666}
"""


def _page(title: str, body: list[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _e(s) -> str:
    return html.escape(str(s))


def _counters(d: dict) -> str:
    return ", ".join(f"{_e(k)}={v:,.0f}" if isinstance(v, float) else f"{_e(k)}={v:,}"
                     for k, v in sorted(d.items()))


def html_listing(p: RunProfile) -> str:
    """The annotated listing as one self-contained HTML page."""
    body = [f"<h1>Per-PC profile: {_e(p.workload)} ({_e(p.label)})</h1>"]
    body += [f"<p>{_e(line)}</p>" for line in _header(p)]
    body.append("<p><small>cycles are scheduler-cycles: each issue scheduler records one "
                "outcome per cycle; the bar is the instruction's share of its kernel's "
                "scheduler-cycles.</small></p>")
    cols = (["PC", "exec", "lanes", "issue"] + [SHORT[r] for r in _STALLS]
            + ["L1 h/m", "L2 h/m", "DRAM B", "cycles"])
    for k in dict.fromkeys(r.kernel for r in p.rows):
        rows = [r for r in p.rows if r.kernel == k]
        total = max(1, sum(r.total_cycles for r in rows))
        body.append(f"<h2>kernel {_e(k)}</h2><table><tr>"
                    + "".join(f"<th>{_e(c)}</th>" for c in cols)
                    + "<th class=l>PTX</th><th class=l>mechanisms</th></tr>")
        last = None
        for r in rows:
            if r.source and r.source[:2] != last:
                last = r.source[:2]
                body.append(f"<tr class=src><td colspan={len(cols) + 2}>{_e(r.source[0])}:"
                            f"{r.source[1]}: {_e(r.source[2])}</td></tr>")
            cells = _cells(r, p.warp_size)
            bar = f"<span class=bar style=\"width:{120 * r.total_cycles / total:.1f}px\"></span>"
            notes = mechanism_notes(r)
            extra = _counters(r.mech)
            body.append("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in cells)
                        + f"<td>{r.total_cycles:,} {bar}</td><td class=ptx>{_e(r.text)}</td>"
                        + f"<td class=m>{_e(notes)}"
                        + (f"<br><small>{extra}</small>" if extra else "") + "</td></tr>")
        body.append("</table>")
        lines = [r for r in p.line_rows() if r.kernel == k]
        if lines:
            body.append(f"<h3>kernel {_e(k)} by CUDA source line</h3><table><tr><th class=l>"
                        "line</th>" + "".join(f"<th>{_e(c)}</th>" for c in cols[1:])
                        + "<th class=l>source</th><th class=l>mechanisms</th></tr>")
            for r in lines:
                cells = _cells(r, p.warp_size)[1:]
                bar = (f"<span class=bar style=\"width:{120 * r.total_cycles / total:.1f}px\">"
                       "</span>")
                body.append(f"<tr><td class=l>{_e(_src(r))}</td>"
                            + "".join(f"<td>{_e(c)}</td>" for c in cells)
                            + f"<td>{r.total_cycles:,} {bar}</td><td class=ptx>{_e(r.text)}</td>"
                            + f"<td class=l>{_e(mechanism_notes(r))}</td></tr>")
            body.append("</table>")
    return _page(f"profile {p.workload} {p.label}", body)


def html_diff(a: RunProfile, b: RunProfile, diffs: list[DiffRow]) -> str:
    """The two runs side by side as one self-contained HTML page, sorted by cycles gained
    or lost."""
    body = [f"<h1>Per-PC diff: {_e(a.workload)}, {_e(a.label)} (A) vs {_e(b.label)} (B)</h1>"]
    body += [f"<p>A: {_e(_header(a)[0])}<br>B: {_e(_header(b)[0])}</p>",
             f"<p>cycles A {a.cycles:,}, B {b.cycles:,} (B/A speed-up "
             f"{a.cycles / max(b.cycles, 1):.3f}). CUDA source lines: "
             f"{_e(b.source_note or a.source_note or 'from nvcc -lineinfo')}</p>",
             "<p><small>gained = A's scheduler-cycles at the instruction minus B's; rows "
             "sorted by |gained|, largest first.</small></p>"]
    cols = ["gained", "A cycles", "B cycles"] + [f"&Delta;{SHORT[r]}" for r in STALL_REASONS] + [
        "A exec", "B exec", "B skipped", "B elim", "B scalar"]
    body.append("<table><tr>" + "".join(f"<th>{c}</th>" for c in cols)
                + "<th class=l>kernel</th><th>PC</th><th class=l>CUDA line</th>"
                  "<th class=l>PTX</th><th class=l>B's mechanism counters</th></tr>")
    for d in diffs:
        g = d.gained
        cls = "gain" if g > 0 else "loss" if g < 0 else ""
        by = d.gained_by_reason()
        src = d.b.source or d.a.source
        cells = ([f"<td class={cls}>{g:+,}</td>", f"<td>{d.a.total_cycles:,}</td>",
                  f"<td>{d.b.total_cycles:,}</td>"]
                 + [f"<td>{by[r]:+,}</td>" if by[r] else "<td>.</td>" for r in STALL_REASONS]
                 + [f"<td>{_n(x)}</td>" for x in (d.a.executed, d.b.executed, d.b.skipped,
                                                 d.b.eliminated, d.b.scalar)])
        pc_cell = f"<td>{d.pc:#06x}</td>" if d.pc >= 0 else "<td>-</td>"
        line = _e(f"{src[0]}:{src[1]}: {src[2]}") if src else ""
        body.append("<tr>" + "".join(cells) + f"<td class=l>{_e(d.kernel)}</td>" + pc_cell
                    + f"<td class=l>{line}</td><td class=ptx>{_e(d.b.text or d.a.text)}</td>"
                    f"<td class=m><small>{_counters(d.b.mech)}</small></td></tr>")
    body.append("</table>")
    return _page(f"profile diff {a.workload} {a.label} vs {b.label}", body)
