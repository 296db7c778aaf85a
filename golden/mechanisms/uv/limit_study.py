"""Limit study of uniform-vector redundancy (seed 002 ch. 2, §2.2, Fig. 2; paper-facts §2.1).

:class:`UniformRedundancyObserver` watches every executed warp instruction of a
functional run (values, not hardware state) and counts, with the chapter's rules:

* an instance is **intra-warp uniform** when its active mask is full (32 lanes) and every
  register or special-register source holds one value in all 32 lanes (immediates are
  uniform); it counts **31** redundant scalar operations;
* an intra-warp uniform instance is **inter-warp uniform** when an earlier instance of the
  same instruction (PC) by *another* warp of the same launch had the same scalar source
  values (so the same result); it counts **32** redundant operations alone, or **1** when
  combined with intra-warp counting (31 are already counted);
* branches, memory instructions (loads, stores, atomics), barriers, cross-lane operations
  and instructions without a register result are never counted (coalescing and MSHRs
  already merge memory work; golden/mechanisms/uv/decode.py ``NEVER``);
* counts are normalised to the run's dynamic scalar instructions (active lanes of every
  executed warp instruction, all kinds included).

``inter_tb`` counts only matches with a warp of the same thread block (warps of one TB
run close together, §2.2). "Earlier" is the functional executor's order (warps at the same PC run as a group, lower
warp first) with an unbounded history per launch: a limit, not what an 8-entry IRB sees.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from golden.mechanisms.uv.decode import NEVER


@dataclass
class UniformRedundancy:
    """Counts of one run (see module docstring)."""

    scalar_instructions: int = 0
    intra_instances: int = 0
    inter_instances: int = 0
    #: inter-warp instances whose earlier match was a warp of the same thread block
    inter_tb_instances: int = 0

    @property
    def intra(self) -> float:
        """Intra-warp redundant fraction: 31 per intra-uniform instance."""
        return 31 * self.intra_instances / self.scalar_instructions if self.scalar_instructions else 0.0

    @property
    def inter(self) -> float:
        """Inter-warp redundant fraction counted alone: 32 per inter-warp instance."""
        return 32 * self.inter_instances / self.scalar_instructions if self.scalar_instructions else 0.0

    @property
    def combined(self) -> float:
        """31 per intra-uniform instance + 1 per inter-warp instance."""
        n = self.scalar_instructions
        return (31 * self.intra_instances + self.inter_instances) / n if n else 0.0

    @property
    def inter_tb(self) -> float:
        """Inter-warp fraction (alone) when only warps of the same TB are compared."""
        n = self.scalar_instructions
        return 32 * self.inter_tb_instances / n if n else 0.0

    def to_dict(self) -> dict:
        return {**asdict(self), "intra": self.intra, "inter": self.inter,
                "inter_tb": self.inter_tb, "combined": self.combined}


class UniformRedundancyObserver:
    """Functional-mode observer computing :class:`UniformRedundancy` over every launch."""

    def __init__(self):
        self.counts = UniformRedundancy()
        self._seen: dict = {}
        self._seen_tb: dict = {}

    def on_launch_begin(self, launch) -> None:
        self._seen, self._seen_tb = {}, {}

    def on_launch_end(self, stats) -> None:
        self._seen, self._seen_tb = {}, {}

    def on_exec(self, ev) -> None:
        c = self.counts
        active = ev.active
        c.scalar_instructions += int(active.sum())
        inst = ev.inst
        if inst.opcode in NEVER or not ev.dsts:
            return
        uniform = active.all(axis=1)
        for _, v in ev.srcs:
            uniform &= (v == v[:, :1]).all(axis=1)
        rows = np.flatnonzero(uniform)
        if rows.size == 0:
            return
        c.intra_instances += int(rows.size)
        seen = self._seen
        for i in rows:
            key = (ev.pc, b"".join(np.ascontiguousarray(v[i, 0]).tobytes() for _, v in ev.srcs))
            warp = int(ev.warps[i])
            first = seen.setdefault(key, warp)
            if first != warp:
                c.inter_instances += 1
            if self._seen_tb.setdefault((int(ev.tbs[i]), key), warp) != warp:
                c.inter_tb_instances += 1


def study_workload(name: str, size: str = "small", seed: int = 0) -> dict:
    """Run workload ``name`` functionally with the observer; return the counts as a dict
    (plus ``outputs_match``)."""
    from golden.workloads.observed import run_observed
    obs = UniformRedundancyObserver()
    run = run_observed(name, [obs], size=size, seed=seed)
    return {**obs.counts.to_dict(), "outputs_match": not run.mismatches()}
