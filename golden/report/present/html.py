"""``build/results/index.html``: one self-contained page with every report.

The page holds every report's tables and text (converted from its Markdown by
:func:`markdown_to_html`, which knows the subset the reports write: headings, pipe tables,
bullet lists, paragraphs, ``code``, **bold**, *italic* and links), every figure embedded as
a PNG data URI with its caption (the SVG beside it is linked), the run's facts (size,
seed, commit, model fingerprint, package versions) and links to each report's JSON and
Markdown and to ``results.csv``, and, when ``simtlab report --profiles`` wrote them, each
workload's per-run views (per-PC profile, diff vs baseline) from the rows of its tables.
Nothing is fetched from the network.

A small script marks the ``<body>`` with ``data-figures="N/M"`` (images that decoded with
a non-zero size / images on the page) and lists broken ones in ``data-broken``, so a
headless browser test can check the page rendered (tests/test_report_page.py).
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

#: inline rules applied outside code spans (code spans are split out first, see inline())
_INLINE = [
    (re.compile(r"\*\*(.+?)\*\*"), lambda m: f"<strong>{m.group(1)}</strong>"),
    (re.compile(r"(?<![\w*])\*(?!\s)([^*]+?)(?<!\s)\*(?![\w*])"), lambda m: f"<em>{m.group(1)}</em>"),
    (re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)"), lambda m: f'<a href="{m.group(2)}">{m.group(1)}</a>'),
]


def inline(text: str) -> str:
    """Escape ``text`` and apply the inline Markdown the reports use. Code spans are
    protected from the other rules."""
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for p in parts:
        if p.startswith("`") and p.endswith("`") and len(p) > 1:
            out.append(f"<code>{html.escape(p[1:-1])}</code>")
            continue
        s = html.escape(p, quote=False)
        for rx, fn in _INLINE:
            s = rx.sub(fn, s)
        out.append(s)
    return "".join(out)


def _cells(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", s)]


def _is_sep(line: str) -> bool:
    return bool(re.fullmatch(r"\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?", line.strip()))


def _first_word(cell: str) -> str:
    """The first name in a table cell (``**MM**``, ``MM†``, ``MM (2D)`` -> ``MM``)."""
    m = re.match(r"[\s*_`]*([A-Za-z0-9_.\-]+)", cell)
    return m.group(1) if m else ""


def _table(lines: list[str], row_links: dict | None = None) -> str:
    head = _cells(lines[0])
    body = lines[1:]
    align = []
    if body and _is_sep(body[0]):
        for c in _cells(body[0]):
            align.append("right" if c.endswith(":") and not c.startswith(":") else "left")
        body = body[1:]
    else:  # no separator: every line is a body row
        body, head = lines, None
    out = ["<table>"]
    if head is not None:
        out.append("<thead><tr>" + "".join(f"<th>{inline(c)}</th>" for c in head) + "</tr></thead>")
    out.append("<tbody>")
    for ln in body:
        cells = _cells(ln)
        extra = (row_links or {}).get(_first_word(cells[0])) if cells else None
        out.append("<tr>" + "".join(
            f'<td class="{"num" if i < len(align) and align[i] == "right" else ""}">{inline(c)}'
            f'{extra if i == 0 and extra else ""}</td>'
            for i, c in enumerate(cells)) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def markdown_to_html(md: str, id_prefix: str = "", row_links: dict | None = None) -> str:
    """HTML of the Markdown subset the reports write (see the module docstring).
    ``row_links``: ``{name: html}`` appended to the first cell of every table row whose
    first cell starts with that name (the per-run views of a workload)."""
    lines = md.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        s = ln.strip()
        if not s:
            i += 1
            continue
        if s.startswith("|"):
            j = i
            while j < len(lines) and lines[j].strip().startswith("|"):
                j += 1
            out.append(_table(lines[i:j], row_links))
            i = j
            continue
        m = re.match(r"(#{1,6})\s+(.*)", s)
        if m:
            level = min(6, len(m.group(1)) + 1)  # the page's <h1> is the title
            text = m.group(2)
            anchor = id_prefix + re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
            out.append(f'<h{level} id="{html.escape(anchor)}">{inline(text)}</h{level}>')
            i += 1
            continue
        if s == "---":
            out.append("<hr>")
            i += 1
            continue
        if re.match(r"[*-]\s+", s) or re.match(r"\d+\.\s+", s):
            ordered = bool(re.match(r"\d+\.\s+", s))
            items: list[str] = []
            while i < len(lines):
                t = lines[i]
                ts = t.strip()
                if re.match(r"[*-]\s+", ts) or re.match(r"\d+\.\s+", ts):
                    items.append(re.sub(r"^([*-]|\d+\.)\s+", "", ts))
                elif ts and t.startswith((" ", "\t")) and items:
                    items[-1] += " " + ts
                else:
                    break
                i += 1
            tag = "ol" if ordered else "ul"
            out.append(f"<{tag}>" + "".join(f"<li>{inline(x)}</li>" for x in items) + f"</{tag}>")
            continue
        if s.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith("```"):
                j += 1
            out.append("<pre>" + html.escape("\n".join(lines[i + 1:j])) + "</pre>")
            i = j + 1
            continue
        para = []
        while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith(("|", "#", "```")) \
                and not re.match(r"[*-]\s+", lines[i].strip()) and lines[i].strip() != "---":
            para.append(lines[i].strip())
            i += 1
        out.append("<p>" + inline(" ".join(para)) + "</p>")
    return "\n".join(out)


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1200px;
padding:1em 2em;color:#222;line-height:1.45}
h1{font-size:1.7em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.85em;display:block;overflow-x:auto}
th,td{border:1px solid #ccc;padding:.2em .5em;white-space:nowrap}th{background:#f2f2f2}
td.num{text-align:right;font-variant-numeric:tabular-nums}tbody tr:nth-child(even){background:#fafafa}
code{background:#f4f4f4;padding:0 .2em;border-radius:3px}
figure{margin:1em 0 2em;border:1px solid #e4e4e4;padding:.6em;border-radius:4px}
figure img{max-width:100%;height:auto;display:block}figcaption{font-size:.85em;color:#444;margin-top:.4em}
nav ul{columns:3}.meta td{white-space:normal}
.views{font-size:.85em}.problem{color:#b00020}
"""

_SCRIPT = """
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0 && i.naturalHeight > 0
                                             && i.getBoundingClientRect().width > 0; });
  var bad = imgs.filter(function (i) { return ok.indexOf(i) < 0; })
                .map(function (i) { return i.getAttribute('data-name'); });
  document.body.setAttribute('data-figures', ok.length + '/' + imgs.length);
  document.body.setAttribute('data-broken', bad.join(','));
});
"""


def figure_html(fig: dict, base: Path) -> str:
    """A ``<figure>`` with the PNG embedded and the SVG linked (relative to ``base``)."""
    png = base64.b64encode(Path(fig["png"]).read_bytes()).decode()
    svg_rel = Path(fig["svg"]).relative_to(base).as_posix()
    return (f'<figure id="fig-{html.escape(fig["name"])}">'
            f'<img data-name="{html.escape(fig["name"])}" alt="{html.escape(fig["title"])}" '
            f'src="data:image/png;base64,{png}">'
            f'<figcaption><strong>{html.escape(fig["title"])}.</strong> '
            f'{html.escape(fig["caption"])} (<a href="{html.escape(svg_rel)}">SVG</a>)'
            f'</figcaption></figure>')


def _view_links(links: list[dict]) -> str:
    """`` [profile · diff vs baseline]``: a workload's per-run views (a problem in red)."""
    parts = [f'<a class="view" href="{html.escape(x["href"])}">{html.escape(x["label"])}</a>'
             if x.get("href") else f'<span class="problem">{html.escape(x["label"])}</span>'
             for x in links]
    return f' <span class="views">[{" · ".join(parts)}]</span>' if parts else ""


def views_html(profiles: dict) -> tuple[str, dict]:
    """``(list of every workload's views, {workload: links html for its table rows})`` of
    one report's per-run views (``{workload: [{"label", "href"}]}``, see
    :mod:`golden.report.profile_pages`)."""
    if not profiles:
        return "", {}
    rows = {w: _view_links(links) for w, links in profiles.items() if links}
    items = "".join(f"<li><strong>{html.escape(w)}</strong>{h}</li>" for w, h in rows.items())
    return (f'<details class="views"><summary>Per-run views: the per-PC profile of each '
            f'headline run and its diff against the baseline ({len(rows)} workloads)'
            f'</summary><ul>{items}</ul></details>', rows)


def page(out: Path, meta, sections: list[dict]) -> str:
    """The whole page. ``sections``: ``{"name", "markdown", "figures": [saved figure dicts],
    "files": [relative paths to link], "profiles": {workload: [links]} (optional)}`` in
    report order."""
    nav = "".join(f'<li><a href="#report-{html.escape(s["name"])}">{html.escape(s["name"])}</a>'
                  f' ({len(s["figures"])} figures)</li>' for s in sections)
    vers = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(str(v))}</td></tr>"
                   for k, v in meta.versions.items())
    body = [f"<h1>simtlab results</h1>",
            "<p>Every report of the main job (<code>simtlab report</code>): our measurements "
            "beside the source papers' published numbers. Each report states how our setup "
            "differs from its paper. Figures are also written as SVG and PNG under "
            "<code>figures/</code>; every number is in <a href=\"results.csv\">results.csv</a> "
            "(one row per report x simulation x metric) and in each report's JSON.</p>",
            '<table class="meta"><tbody>'
            f"<tr><td>input size</td><td>{html.escape(meta.size)}</td></tr>"
            f"<tr><td>seed</td><td>{meta.seed}</td></tr>"
            f"<tr><td>commit</td><td>{html.escape(meta.commit)}</td></tr>"
            f"<tr><td>model source fingerprint</td><td>{html.escape(meta.fingerprint)}</td></tr>"
            f"{vers}</tbody></table>",
            f"<nav><h2>Reports</h2><ul>{nav}</ul></nav>"]
    for s in sections:
        links = " · ".join(f'<a href="{html.escape(f)}">{html.escape(f)}</a>' for f in s["files"])
        body.append(f'<section id="report-{html.escape(s["name"])}">'
                    f'<h2>Report: {html.escape(s["name"])}</h2><p>Data: {links}</p>')
        listing, row_links = views_html(s.get("profiles") or {})
        if listing:
            body.append(listing)
        body += [figure_html(f, out) for f in s["figures"]]
        body.append(markdown_to_html(s["markdown"], id_prefix=f'{s["name"]}-',
                                     row_links=row_links))
        body.append("</section>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>simtlab results ({html.escape(meta.size)}, {html.escape(meta.commit)})</title>"
            f"<style>{_CSS}</style></head>\n<body>\n" + "\n".join(body)
            + f"\n<script>{_SCRIPT}</script>\n</body></html>\n")
