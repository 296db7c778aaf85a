"""Correlation of the baseline timing model with the reference simulator's cycle counts.

:func:`load_cases` reads ``golden/validate/reference.yaml`` (checked key by key; a bad
file raises :class:`~golden.errors.ConfigError` naming the key path). Each
:class:`CorrelationCase` is one workload at one size on one of our configurations plus
the overrides that give it the reference simulator's settings, and the reference's
number (cycles, or microseconds where the reference's clock differs from ours).

:func:`jobs` turns the cases into :class:`~golden.report.runner.TimingJob` s (run in
parallel by the report runner) and :func:`rows` compares the results with the
reference: ratio ours / reference, and "where the cycles go" from our statistics (stall
breakdown, warp IPC per SM, L2 hit rate, DRAM traffic), so a remaining gap can be
explained from the statistics instead of by tuning latencies.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from golden.errors import ConfigError
from golden.report.runner import TimingJob

REFERENCE = Path(__file__).resolve().parent / "reference.yaml"
METRICS = ("cycles", "microseconds")
_CASE_KEYS = {"name": str, "workload": str, "size": str, "config": str, "reference": str,
              "metric": str, "value": (int, float), "note": str, "overrides": dict}


@dataclass(frozen=True)
class CorrelationCase:
    """One reference measurement and how to reproduce its setting in our model."""

    name: str
    workload: str
    size: str
    config: str
    reference: str
    metric: str
    value: float
    note: str
    overrides: tuple

    def job(self) -> TimingJob:
        return TimingJob(workload=self.workload, config=self.config, size=self.size,
                         seed=0, overrides=self.overrides)


def load_cases(path: Path = REFERENCE) -> tuple[float, list[CorrelationCase]]:
    """``(tolerance, cases)`` from the reference file."""
    where = str(path)
    try:
        data = yaml.safe_load(Path(path).read_text())
    except OSError as e:
        raise ConfigError(f"{where}: cannot read: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{where}: malformed YAML: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise ConfigError(f"{where}: cases: expected a list of cases")
    tol = data.get("tolerance")
    if not isinstance(tol, (int, float)) or not 0 < tol < 1:
        raise ConfigError(f"{where}: tolerance: expected a fraction in (0, 1), got {tol!r}")
    cases = []
    for i, c in enumerate(data["cases"]):
        kp = f"cases[{i}]"
        if not isinstance(c, dict):
            raise ConfigError(f"{where}: {kp}: expected a mapping")
        for k in c:
            if k not in _CASE_KEYS:
                raise ConfigError(f"{where}: {kp}.{k}: unknown key (known: "
                                  f"{', '.join(_CASE_KEYS)})")
        for k, tp in _CASE_KEYS.items():
            if k not in c:
                raise ConfigError(f"{where}: {kp}.{k}: missing required key")
            v = c[k] if c[k] is not None or k != "note" else ""
            if not isinstance(v, tp) or isinstance(v, bool):
                raise ConfigError(f"{where}: {kp}.{k}: expected {tp}, got {v!r}")
        if c["metric"] not in METRICS:
            raise ConfigError(f"{where}: {kp}.metric: {c['metric']!r} is not one of "
                              f"{', '.join(METRICS)}")
        if c["value"] <= 0:
            raise ConfigError(f"{where}: {kp}.value: must be positive")
        cases.append(CorrelationCase(c["name"], c["workload"], c["size"], c["config"],
                                     c["reference"], c["metric"], float(c["value"]),
                                     c["note"] or "", tuple(sorted(c["overrides"].items()))))
    return float(tol), cases


def ours(case: CorrelationCase, result: dict) -> float:
    """Our number in the case's metric."""
    if case.metric == "cycles":
        return float(result["cycles"])
    from golden.configs import load_config
    cfg = load_config(case.config, dict(case.overrides))
    return result["cycles"] / cfg.core.clock_mhz


def where_cycles_go(result: dict, num_sms: int) -> str:
    """One line of statistics that locate the time: IPC per SM, top stall outcomes, L2
    hit rate, DRAM bytes per cycle."""
    t = result["timing"]
    ipc = result["ipc"]
    stalls = sorted(result["stall_fractions"].items(), key=lambda kv: -kv[1])[:3]
    l2 = t.get("l2_hits", 0) + t.get("l2_misses", 0)
    l2h = t.get("l2_hits", 0) / l2 if l2 else float("nan")
    dram = t.get("dram_bytes", 0) / max(1, result["cycles"])
    return (f"IPC/SM {ipc / num_sms:.2f}; scheduler cycles: "
            + ", ".join(f"{k} {100 * v:.0f}%" for k, v in stalls)
            + f"; L2 hit {100 * l2h:.0f}%; DRAM {dram:.1f} B/cycle")


def rows(tol: float, cases: list[CorrelationCase], results: dict) -> list[dict]:
    """One dict per case: reference, ours, ratio, within tolerance, statistics."""
    from golden.configs import load_config
    out = []
    for c in cases:
        r = results.get(c.job().key)
        if r is None or "error" in r:
            out.append({"case": c.name, "reference": c.value, "metric": c.metric,
                        "error": (r or {}).get("error", "not run")})
            continue
        cfg = load_config(c.config, dict(c.overrides))
        v = ours(c, r)
        ratio = v / c.value
        out.append({"case": c.name, "workload": c.workload, "size": c.size,
                    "config": c.config, "reference_sim": c.reference, "metric": c.metric,
                    "reference": c.value, "ours": v, "ratio": ratio,
                    "within": abs(ratio - 1) <= tol, "outputs_match": r["outputs_match"],
                    "ipc": r["ipc"], "note": c.note,
                    "where": where_cycles_go(r, cfg.core.num_sms)})
    return out


def format_rows(tol: float, table: list[dict]) -> str:
    """Markdown table of :func:`rows`."""
    lines = [f"| case | reference | ours | ours / ref | within ±{100 * tol:.0f}% | "
             f"where our cycles go |", "|---|--:|--:|--:|:-:|---|"]
    for r in table:
        unit = "" if r["metric"] == "cycles" else " us"
        if "error" in r:
            lines.append(f"| {r['case']} | {r['reference']:,.1f}{unit} | error: {r['error']} "
                         f"| | no | |")
            continue
        fmt = (lambda x: f"{x:,.0f}") if r["metric"] == "cycles" else (lambda x: f"{x:,.1f}")
        ref_note = f" ({r['note']})" if r["note"] else ""
        lines.append(f"| {r['case']} ({r['size']}) | {fmt(r['reference'])}{unit}{ref_note} | "
                     f"{fmt(r['ours'])}{unit} (IPC {r['ipc']:.1f}) | {r['ratio']:.2f} | "
                     f"{'yes' if r['within'] else 'NO'} | {r['where']} |")
    return "\n".join(lines)
