"""Table cells shared by the report modules."""

from __future__ import annotations


def outputs_verdict(differ: bool, missing: int) -> tuple[str, bool | None]:
    """The ``outputs`` cell of a workload's row and its ``outputs_identical`` value.

    ``differ``: a variant gave outputs different from the baseline's, or failed (a failed
    run counts as a difference); ``missing``: variants not run yet. A missing variant is not
    a difference: the row then says how many are missing, and ``outputs_identical`` is None
    (unknown) unless a variant already differs.
    """
    if differ:
        return "DIFFER", False
    if missing:
        return f"identical ({missing} missing)", None
    return "identical", True


def markdown_table(rows: list[dict], columns: list[str] | tuple[str, ...], digits: int = 1) -> str:
    """A markdown table of ``rows`` (dicts) over ``columns``: floats printed with ``digits``
    decimals, everything else with ``str``; the header is the column names."""
    def cell(v):
        return f"{v:.{digits}f}" if isinstance(v, float) else str(v)
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(cell(r[k]) for k in columns) + " |" for r in rows]
    return "\n".join(out)
