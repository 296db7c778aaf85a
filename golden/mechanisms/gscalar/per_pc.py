"""Per-PC breakdown of G-Scalar's divergence counters (seed 003 §1 Fig. 1, §4.2, §5.2 Fig. 9).

:class:`PerPCGScalarObserver` is a :class:`~.observer.GScalarStatsObserver` that also
attributes, to the PC of every executed warp instruction, the increments of

* ``insts`` – warp instructions;
* ``div`` – divergent ones (execution mask = SIMT path mask AND guard, not all threads);
* ``path_div`` – divergent by the SIMT path mask alone (guard ignored);
* ``oracle`` – divergent with every source equal on the active lanes (§1's definition,
  a value oracle);
* ``e_div`` – divergent-scalar eligible by §4.2's mechanism (every source scalar with
  D = 0, or D = 1 with the stored mask equal to the current mask; Fig. 9's class).

It answers "which instructions are divergent, and which of those are divergent scalar"
for one workload; :func:`pc_table` joins the counts with the PTX text of each PC.
"""

from __future__ import annotations

from collections import defaultdict

from golden.mechanisms.gscalar.observer import GScalarStatsObserver

#: counters tracked per PC, each the name of a :class:`~.observer.GScalarCounts` field
_FIELDS = {"insts": "warp_insts", "div": "divergent", "path_div": "path_divergent",
           "oracle": "div_scalar_values", "e_div": "elig_div"}


class PerPCGScalarObserver(GScalarStatsObserver):
    """G-Scalar statistics plus per-PC counters (``by_pc[pc][key]``) and PTX text."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.by_pc: dict = defaultdict(lambda: dict.fromkeys(_FIELDS, 0))
        self.text: dict[int, str] = {}

    def on_exec(self, ev) -> None:
        c = self.counts
        before = {k: getattr(c, f) for k, f in _FIELDS.items()}
        super().on_exec(ev)
        row = self.by_pc[ev.pc]
        for k, f in _FIELDS.items():
            row[k] += getattr(c, f) - before[k]
        if ev.pc not in self.text:
            self.text[ev.pc] = str(ev.inst) if ev.inst is not None else "?"


def pc_table(obs: PerPCGScalarObserver, top: int | None = None) -> list[dict]:
    """Rows ``{pc, ptx, insts, div, path_div, oracle, e_div}``, most divergent first."""
    rows = [{"pc": pc, "ptx": obs.text.get(pc, "?"), **cnt} for pc, cnt in obs.by_pc.items()]
    rows.sort(key=lambda r: (-r["div"], r["pc"]))
    return rows[:top] if top else rows
