"""Per-PC view of DARSIE's removed instructions against its limit study (issue 67 point 6;
seed 001 §1 Fig. 1-2, §6.1).

For one workload this joins, instruction by instruction (kernel and PC, launches of a
kernel added):

* the **limit study** (:mod:`golden.mechanisms.darsie.limit_study`, a functional run):
  executed warp instructions, those TB-redundant by value and how many of them a TB
  could drop (``tb_removable``: every TB-redundant instance but one per TB), whether the
  compiler pass marks the PC DR for the launch's TB shape, and what a skip-everything
  DARSIE could drop (``skippable``: DR-marked, full-mask executions but the first of
  each lock-step group);
* a **timing run** with the mechanism (default ``darsie``) and the per-PC profiler
  (:mod:`golden.report.profile`): warp instructions skipped at the PC and DARSIE's
  refusals counted while handling it (leaders that found the freelist short, a full skip
  table or a full rename table, eligible warps that executed a DR PC privately).

Each PC's removable instructions then fall in one bucket: skipped by DARSIE, of a kind
DARSIE never skips (branches, stores, barriers, returns, atomics, warp votes:
``marking.NEVER_SKIPPED``, or no register written), not marked DR otherwise (redundant by
value only: the marking cannot prove it), or marked DR but not skipped (structures short,
synchronisation windows, warps off the majority path). The buckets
answer where a workload's "removed %" is lost. Measures only; changes no model.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

#: DARSIE's per-PC refusal counters (``darsie.<name>`` in a profile row's ``mech``)
REFUSALS = ("freelist_short", "table_full", "rename_full", "private_redundant", "follower_waits")


@dataclass
class PCRow:
    """One instruction: limit-study counts (functional run) beside the timing run's."""

    kernel: str
    pc: int
    text: str
    marked_dr: bool
    never_skipped: bool     # a kind DARSIE never skips (the marking's never-skip rules)
    executed: int           # warp instructions executed (limit study)
    tb_redundant: int       # of those, TB-redundant by value
    tb_removable: int       # TB-redundant instances minus one per TB
    skippable: int          # DR-marked, full mask, not the first of a lock-step group
    skipped: int            # skipped by the mechanism (timing run)
    refusals: dict          # darsie.<name> counters of the timing run at this PC

    @property
    def missed(self) -> int:
        """Removable by value but not skipped (negative: skipped beyond the value limit)."""
        return self.tb_removable - self.skipped


def join(limit, profile) -> list[PCRow]:
    """Rows of a :class:`~golden.mechanisms.darsie.limit_study.WorkloadRedundancy` and a
    :class:`~golden.report.profile.RunProfile` of the same workload, size and seed, by
    kernel and PC (every PC either run executed)."""
    acc: dict = {}
    for lr in limit.launches:
        pp = lr.per_pc
        for m in lr.marking.marks:
            i = m.pc >> 3
            r = acc.get((lr.kernel, m.pc))
            if r is None:
                never = m.reason.endswith("never skipped") or m.reason == "writes no register"
                r = acc[(lr.kernel, m.pc)] = PCRow(lr.kernel, m.pc, m.text, False, never,
                                                   0, 0, 0, 0, 0, {})
            r.marked_dr |= bool(pp.marked_dr[i])
            r.executed += int(pp.warp_instructions[i])
            r.tb_redundant += int(pp.tb[i])
            r.tb_removable += int(pp.tb_removable[i])
            r.skippable += int(pp.skippable[i])
    for pr in profile.rows:
        if pr.pc < 0:
            continue
        r = acc.get((pr.kernel, pr.pc))
        if r is None:
            r = acc[(pr.kernel, pr.pc)] = PCRow(pr.kernel, pr.pc, pr.text, False, False,
                                                0, 0, 0, 0, 0, {})
        r.skipped += pr.skipped
        for k in REFUSALS:
            v = pr.mech.get(f"darsie.{k}", 0)
            if v:
                r.refusals[k] = r.refusals.get(k, 0) + v
    return [r for r in acc.values() if r.executed or r.skipped]


def summary(rows: list[PCRow]) -> dict:
    """Totals over ``rows`` and the split of the TB-removable instructions into skipped,
    not marked DR, and marked DR but not skipped (each clipped at 0 per PC)."""
    tot = {k: sum(getattr(r, k) for r in rows)
           for k in ("executed", "tb_redundant", "tb_removable", "skippable", "skipped")}
    tot["removable_skipped"] = sum(min(r.skipped, r.tb_removable) for r in rows)
    tot["removable_never_skipped"] = sum(max(r.missed, 0) for r in rows if r.never_skipped)
    tot["removable_not_dr"] = sum(max(r.missed, 0) for r in rows
                                  if not r.marked_dr and not r.never_skipped)
    tot["removable_dr_not_skipped"] = sum(max(r.missed, 0) for r in rows if r.marked_dr)
    tot["skipped_beyond_value_limit"] = sum(max(-r.missed, 0) for r in rows)
    tot["refusals"] = {k: sum(r.refusals.get(k, 0) for r in rows) for k in REFUSALS}
    return tot


def breakdown(workload: str, size: str = "small", seed: int = 0, config: str = "pascal",
              mechanism: str = "darsie") -> tuple[list[PCRow], dict]:
    """Run the limit study and the profiled timing run of ``workload``; return the joined
    rows and their :func:`summary`."""
    from golden.errors import SimtlabError
    from golden.mechanisms.darsie.limit_study import study_workload
    from golden.report.profile import profile_workload
    limit = study_workload(workload, size=size, seed=seed)
    prof = profile_workload(workload, size=size, seed=seed, config=config,
                            mechanisms=(mechanism,), source_lines=False)
    if not limit.outputs_match or not prof.outputs_match:
        raise SimtlabError(f"{workload}: outputs differ from the numpy reference")
    rows = join(limit, prof)
    return rows, summary(rows)


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f}" if d else "–"


def render(workload: str, rows: list[PCRow], tot: dict, top: int = 25) -> str:
    """Markdown: the summary split, then the ``top`` PCs by removable-but-not-skipped."""
    ex = tot["executed"]
    out = [f"### {workload}: TB-redundant instructions per PC, limit study vs DARSIE", "",
           f"Executed warp instructions {ex:,}; TB-redundant by value {tot['tb_redundant']:,} "
           f"({_pct(tot['tb_redundant'], ex)}%), removable (one kept per TB) "
           f"{tot['tb_removable']:,} ({_pct(tot['tb_removable'], ex)}%); skippable by the "
           f"marking {tot['skippable']:,} ({_pct(tot['skippable'], ex)}%); skipped by DARSIE "
           f"{tot['skipped']:,} ({_pct(tot['skipped'], ex)}%).", "",
           "| removable instructions went | warp instructions | % of executed |", "|---|--:|--:|",
           f"| skipped by DARSIE | {tot['removable_skipped']:,} | {_pct(tot['removable_skipped'], ex)} |",
           f"| a kind DARSIE never skips (branch, store, barrier, ret, ...) | "
           f"{tot['removable_never_skipped']:,} | {_pct(tot['removable_never_skipped'], ex)} |",
           f"| not marked DR (redundant by value only) | {tot['removable_not_dr']:,} | "
           f"{_pct(tot['removable_not_dr'], ex)} |",
           f"| marked DR, not skipped | {tot['removable_dr_not_skipped']:,} | "
           f"{_pct(tot['removable_dr_not_skipped'], ex)} |",
           f"| (skipped beyond the value limit) | {tot['skipped_beyond_value_limit']:,} | "
           f"{_pct(tot['skipped_beyond_value_limit'], ex)} |", "",
           "Refusals at DR PCs (timing run): " + ", ".join(
               f"{k} {v:,}" for k, v in tot["refusals"].items()) + ".", "",
           "| kernel | PC | DR | instruction | executed | TB-removable | skippable | skipped | "
           "missed | refusals |", "|---|---|---|---|--:|--:|--:|--:|--:|---|"]
    for r in sorted(rows, key=lambda r: (-r.missed, r.kernel, r.pc))[:top]:
        ref = ", ".join(f"{k} {v:,}" for k, v in r.refusals.items()) or "–"
        text = r.text.replace("|", "\\|")
        out.append(f"| {r.kernel} | 0x{r.pc:04x} | {'DR' if r.marked_dr else 'never' if r.never_skipped else 'V'} | `{text}` | "
                   f"{r.executed:,} | {r.tb_removable:,} | {r.skippable:,} | {r.skipped:,} | "
                   f"{r.missed:,} | {ref} |")
    return "\n".join(out) + "\n"


def to_dict(rows: list[PCRow], tot: dict) -> dict:
    return {"summary": tot, "rows": [asdict(r) for r in rows]}
