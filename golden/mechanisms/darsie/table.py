"""The limit-study table: per workload and averaged over 1D / 2D / 3D TB workloads, beside
the DARSIE paper's published values (Fig. 1 text: 33% of instructions TB-redundant on
average; Figs. 1-2 are otherwise figure-only)."""

from __future__ import annotations

from golden.mechanisms.darsie.limit_study import WorkloadRedundancy

#: (column header, RedundancyCounts field) shown as a percentage of warp instructions
PERCENT_COLUMNS = (
    ("grid", "grid"), ("TB", "tb"), ("warp", "warp"),
    ("TB uni", "tb_uniform"), ("TB aff", "tb_affine"), ("TB unstr", "tb_unstructured"),
    ("DR exec", "marked_dr"), ("DARSIE skip", "skippable"), ("TB removable", "tb_removable"),
)

PAPER_NOTE = ("Paper (DARSIE §1, Fig. 1): on average 33% of instructions need to execute only "
              "once per TB; grid- and warp-level bars and the Fig. 2 breakdown are figure-only "
              "(affine and unstructured redundancy pervasive in 2D TBs, largely absent in 1D).")


def _row(name: str, tb: str, dims: str, inst: str, fracs: list[float], viol: str) -> str:
    cells = [name, tb, dims, inst] + [f"{100 * f:.1f}%" for f in fracs] + [viol]
    return "| " + " | ".join(cells) + " |"


def format_limit_table(results: list[WorkloadRedundancy]) -> str:
    """Markdown table: one row per workload, then unweighted means per TB dimensionality."""
    head = ["workload", "TB dims", "D", "warp inst"] + [h for h, _ in PERCENT_COLUMNS] + ["unsound groups"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        c = r.counts
        lines.append(_row(r.workload, str(tuple(r.tb_dims)), str(r.dims), f"{c.warp_instructions:,}",
                          [c.fraction(f) for _, f in PERCENT_COLUMNS],
                          f"{c.violations}/{c.lockstep_groups}"))
    groups = [("mean 1D", [r for r in results if r.dims == 1]),
              ("mean 2D", [r for r in results if r.dims == 2]),
              ("mean 3D", [r for r in results if r.dims == 3]),
              ("mean 2D+3D", [r for r in results if r.dims >= 2]),
              ("mean all", results)]
    for label, rs in groups:
        if not rs:
            continue
        means = [sum(r.counts.fraction(f) for r in rs) / len(rs) for _, f in PERCENT_COLUMNS]
        lines.append(_row(f"**{label}** ({len(rs)})", "", "", "", means, ""))
    return "\n".join(lines)


def format_legend() -> str:
    return "\n".join([
        "Columns are percentages of executed warp instructions. grid / TB / warp: redundant at that",
        "level by value (independent, Fig. 1). TB uni/aff/unstr: TB-redundant ones by taxonomy (Fig. 2).",
        "DR exec: executions of PCs the compiler pass marks DR for the launch's TB shape. DARSIE skip:",
        "DR executions a follower warp could skip (full mask, same control-flow history as the leader).",
        "TB removable: TB-redundant executions minus one per instance (the value-based upper bound).",
        "unsound groups: lock-step groups of DR-marked instances whose warps disagreed / groups checked.",
        PAPER_NOTE,
    ])
