"""Run the G-Scalar value analysis over workloads and tabulate it beside the paper (seed 003).

* :func:`analyse_workload` – one workload, functional mode, with a
  :class:`~.observer.GScalarStatsObserver` on every launch; returns a row (a dict).
* :func:`analyse_suite` – many workloads in parallel worker processes; rows in order.
* :func:`summarise` – the figure values (percentages, ratios) from raw counts.
* :func:`average_row` – the mean over workloads of every figure value (the paper's
  averages are means over its 17 benchmarks).
* :data:`TABLES` / :func:`render_tables` – the tables as data (columns with the paper's
  value) and a plain-text renderer; :data:`PAPER` holds the published numbers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from golden.errors import SimtlabError
from golden.mechanisms.gscalar.observer import GScalarCounts, GScalarStatsObserver
from golden.mechanisms.gscalar.observing import ObservingDevice
from golden.mechanisms.gscalar.rf_energy import RFEnergyParams


#: G-Scalar's GPU (Table 1; GPGPU-Sim 3.2.2's GTX480): its pipeline routing decides which
#: instructions count as ALU and which as SFU instructions (Fig. 9's classes)
CONFIG = "gtx480"


def gscalar_workloads() -> list[str]:
    """Suite workloads that stand in for a G-Scalar benchmark (Table 2 of seed 003)."""
    from golden.workloads import registry
    return [n for n, w in registry.all_workloads().items()
            if any(s.startswith("G-Scalar") for s in w.stands_for)]


def _pct(a, b) -> float | None:
    return None if not b else 100.0 * a / b


def summarise(c: GScalarCounts) -> dict:
    """Figure values from counts: percentages (0-100), compression ratios, RF energy change.

    Keys: ``div`` (Fig. 1: % of warp instructions divergent), ``div_scalar`` (% of the
    divergent ones whose source values are equal on the active lanes), ``w_scalar``,
    ``w_3b``, ``w_2b``, ``w_1b``, ``w_0b``, ``w_div`` (Fig. 8, % of register writes),
    ``r_*`` the same for register reads (by the stored state; ``r_div`` = read by a
    divergent instruction, ``r_dstored`` = stored uncompressed with D = 1), ``e_alu``,
    ``e_sfu_mem``, ``e_half``, ``e_div``, ``e_total`` (Fig. 9, % of warp instructions),
    ``sfu_of_elig`` (% of eligible that are SFU), ``half32`` / ``quarter64`` (Fig. 10),
    ``moves`` (special moves, % extra instructions), ``ratio_gscalar`` /
    ``ratio_gscalar_half`` / ``ratio_bdi`` (stored-bytes compression ratio), ``rf_*``
    (RF dynamic energy change vs baseline, %, Fig. 12).
    """
    n, w, r = c.warp_insts, c.writes, c.reads
    wn, rn = c.write_nc, c.read_nc
    elig = c.elig_alu + c.elig_sfu + c.elig_mem
    total = elig + c.elig_half + c.elig_div
    base = c.energy.get("baseline", 0.0)

    def rf(design):
        return None if not base else 100.0 * (c.energy[design] / base - 1.0)

    def ratio(stored):
        return None if not stored else c.bytes_raw / stored

    return {
        "warp_insts": n,
        "div": _pct(c.divergent, n), "div_scalar": _pct(c.div_scalar_values, c.divergent),
        "path_div": _pct(c.path_divergent, n),
        "w_scalar": _pct(wn[4], w), "w_3b": _pct(wn[3], w), "w_2b": _pct(wn[2], w),
        "w_1b": _pct(wn[1], w), "w_0b": _pct(wn[0], w), "w_div": _pct(c.write_div, w),
        "r_scalar": _pct(rn[4], r), "r_3b": _pct(rn[3], r), "r_2b": _pct(rn[2], r),
        "r_1b": _pct(rn[1], r), "r_0b": _pct(rn[0], r), "r_dstored": _pct(c.read_dstored, r),
        "r_div": _pct(c.read_div, r),
        "e_alu": _pct(c.elig_alu, n), "e_sfu_mem": _pct(c.elig_sfu + c.elig_mem, n),
        "e_half": _pct(c.elig_half, n), "e_div": _pct(c.elig_div, n), "e_total": _pct(total, n),
        "sfu_of_elig": _pct(c.elig_sfu, total),
        "half32": _pct(c.elig_half, n), "quarter64": _pct(c.w64_quarter, c.w64_insts),
        "moves": _pct(c.special_moves, n),
        "ratio_gscalar": ratio(c.bytes_gscalar), "ratio_gscalar_half": ratio(c.bytes_gscalar_half),
        "ratio_bdi": ratio(c.bytes_bdi),
        "rf_gscalar": rf("gscalar"), "rf_gscalar_half": rf("gscalar_half"),
        "rf_scalar_rf": rf("scalar_rf"), "rf_bdi": rf("bdi"),
    }


#: The paper's published averages (seed 003; paper-facts §6.7), keyed like :func:`summarise`.
PAPER = {
    "div": 28.0, "div_scalar": 45.0,                                        # §1, Fig. 1
    "w_scalar": 36.0, "w_3b": 17.0, "w_2b": 4.0, "w_1b": 7.0,               # §5.1, Fig. 8
    "r_scalar": 36.0, "r_3b": 17.0, "r_2b": 4.0, "r_1b": 7.0,               # same figure
    "e_alu": 22.0, "e_sfu_mem": 7.0, "e_half": 2.0, "e_div": 9.0, "e_total": 40.0,  # §5.2, Fig. 9
    "sfu_of_elig": 3.0, "quarter64": 5.0,                                   # §5.2, Fig. 10
    "moves": 2.0,                                                           # §3.3 (prior work [4])
    "ratio_gscalar": 2.17, "ratio_bdi": 2.13,                               # §5.3
    "rf_gscalar": -54.0, "rf_scalar_rf": -37.0,                             # §5.3, Fig. 12
}
#: Per-benchmark values the paper states in its text (§5.2).
PAPER_PER_WORKLOAD = {
    "HS": {"e_div": 17.0}, "LBM": {"e_div": 30.0}, "BP": {"half32": 12.0},
}


@dataclass(frozen=True)
class Column:
    """One table column: key into a row, header, number format."""

    key: str
    header: str
    fmt: str = "{:.1f}"


@dataclass(frozen=True)
class Table:
    title: str
    columns: tuple


TABLES = (
    Table("Divergence (Fig. 1) and register-write value similarity (Fig. 8), % ", (
        Column("div", "div"), Column("div_scalar", "divScal/div"),
        Column("w_scalar", "scalar"), Column("w_3b", "3-byte"), Column("w_2b", "2-byte"),
        Column("w_1b", "1-byte"), Column("w_0b", "0-byte"), Column("w_div", "divergent"))),
    Table("Register-read (RF access) similarity, % of reads (Fig. 8 caption: by stored state)", (
        Column("r_scalar", "scalar"), Column("r_3b", "3-byte"), Column("r_2b", "2-byte"),
        Column("r_1b", "1-byte"), Column("r_0b", "0-byte"), Column("r_dstored", "stored D=1"),
        Column("r_div", "divergent"))),
    Table("Scalar-execution eligibility, % of warp instructions (Fig. 9, Fig. 10, §3.3)", (
        Column("e_alu", "ALU"), Column("e_sfu_mem", "+SFU/mem"), Column("e_half", "+half"),
        Column("e_div", "+div"), Column("e_total", "total"), Column("sfu_of_elig", "SFU/elig"),
        Column("quarter64", "quarter@64"), Column("moves", "moves"))),
    Table("RF dynamic energy vs baseline, % (Fig. 12) and compression ratio (§5.3)", (
        Column("rf_gscalar", "G-Scalar"), Column("rf_gscalar_half", "G-S half"),
        Column("rf_scalar_rf", "scalarRF"), Column("rf_bdi", "BDI"),
        Column("ratio_gscalar", "ratio G-S", "{:.2f}"), Column("ratio_gscalar_half", "ratio half", "{:.2f}"),
        Column("ratio_bdi", "ratio BDI", "{:.2f}"))),
)


def analyse_workload(name: str, size: str = "small", seed: int = 0,
                     energy: RFEnergyParams | None = None, config: str = CONFIG) -> dict:
    """Run one workload with the G-Scalar observer; a row: name, counts, figure values.
    Instructions are classed ALU or SFU by the pipeline routing of ``config``."""
    from golden.configs import load_config
    from golden.workloads import registry
    obs = GScalarStatsObserver(energy, load_config(config).pipelines)
    t0 = time.perf_counter()
    run = registry.run_workload(name, size=size, seed=seed, device=ObservingDevice([obs]))
    bad = run.mismatches()
    return {"workload": run.workload.name, "size": size, "seed": seed,
            "outputs_match": not bad, "seconds": time.perf_counter() - t0,
            "counts": obs.counts.to_dict(), **summarise(obs.counts)}


def analyse_suite(names: list[str] | None = None, size: str = "small", seed: int = 0,
                  jobs: int = 1, energy: RFEnergyParams | None = None) -> list[dict]:
    """:func:`analyse_workload` for each name (default: the G-Scalar stand-ins), in
    ``jobs`` worker processes; rows in the order of ``names``."""
    from golden.workloads import registry
    names = [registry.get(n).name for n in names] if names else gscalar_workloads()
    if jobs < 1:
        raise SimtlabError(f"gscalar-stats: -j must be at least 1, not {jobs}")
    if jobs == 1 or len(names) == 1:
        return [analyse_workload(n, size, seed, energy) for n in names]
    from golden.workers import Interrupted, run_unordered
    rows: dict[int, dict] = {}
    try:
        run_unordered(analyse_workload, [(i, (n, size, seed, energy)) for i, n in enumerate(names)],
                      jobs, rows.__setitem__)
    except Interrupted as e:
        raise Interrupted(f"{e.finished} of {len(names)} workload(s) had finished; nothing "
                          f"written") from None
    return [rows[i] for i in range(len(names))]


def average_row(rows: list[dict]) -> dict:
    """Mean of every figure value over ``rows`` (missing values skipped); also the
    suite-wide pooled counts under ``counts``."""
    keys = [col.key for t in TABLES for col in t.columns]
    avg: dict = {"workload": "average"}
    for k in keys:
        vals = [r[k] for r in rows if r.get(k) is not None]
        avg[k] = sum(vals) / len(vals) if vals else None
    pooled = GScalarCounts()
    for r in rows:
        pooled.merge(GScalarCounts.from_dict(r["counts"]))
    avg["counts"] = pooled.to_dict()
    avg["warp_insts"] = pooled.warp_insts
    return avg


def _cell(value, fmt: str, paper=None) -> str:
    s = "-" if value is None else fmt.format(value)
    if paper is not None:
        s += f" ({fmt.format(paper)})"
    return s


def render_tables(rows: list[dict], tables=TABLES) -> str:
    """Plain-text tables: one line per workload, the average, and the paper's averages.

    A per-workload value the paper states in its text is shown in parentheses beside ours.
    """
    avg = average_row(rows) if rows else None
    out = []
    for t in tables:
        header = ["workload", "warp inst"] + [c.header for c in t.columns]
        body = []
        for r in rows:
            paper = PAPER_PER_WORKLOAD.get(r["workload"], {})
            body.append([r["workload"] + ("" if r.get("outputs_match", True) else " (MISMATCH)"),
                         f"{r['warp_insts']:,}"]
                        + [_cell(r.get(c.key), c.fmt, paper.get(c.key)) for c in t.columns])
        if avg is not None:
            body.append(["average", f"{avg['warp_insts']:,}"] + [_cell(avg.get(c.key), c.fmt) for c in t.columns])
        body.append(["paper", ""] + [_cell(PAPER.get(c.key), c.fmt) for c in t.columns])
        widths = [max(len(x[i]) for x in [header] + body) for i in range(len(header))]
        line = lambda cells: "  ".join(s.ljust(w) if i == 0 else s.rjust(w)  # noqa: E731
                                       for i, (s, w) in enumerate(zip(cells, widths)))
        out += [t.title, line(header), line(["-" * w for w in widths])] + [line(b) for b in body] + [""]
    return "\n".join(out)
