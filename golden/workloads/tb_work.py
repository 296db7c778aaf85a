"""Work per thread block of a workload, from one functional run.

The ILP chapter (seed 002 §4.4, paper-facts §4.2) explains two of its results by how work
is spread over thread blocks: NQU's TB0 dominates the runtime (its ``if (idx <
total_conditions)`` test leaves the other TBs little to do), and NQU and STO hold about
16 KB of shared memory per TB, so each SM runs one TB. This module measures both for any
workload of the suite, with no timing run:

* :class:`TBWorkObserver` counts, per launch and per thread block, the warp instructions
  executed, the thread instructions (active lanes) and the branches (``bra``);
* :func:`tb_work` runs a workload functionally with that observer, and can size each
  launch on a GPU configuration (threads and shared memory per
  TB, TBs per SM and what limits them) exactly as the timing model sizes it
  (:func:`golden.workloads.occupancy.occupancy_of`).

A launch's summary (:func:`summarise`) gives TB0's share of the warp instructions, the
largest TB's share and its ratio to the mean TB (1.0 = perfectly balanced), and the
branch share of all instructions and of TB0's.
"""

from __future__ import annotations

from dataclasses import asdict

import numpy as np

from golden.workloads.observed import run_observed
from golden.workloads.occupancy import LaunchProbe, Probe, occupancy_of

__all__ = ["TBWorkObserver", "main_launch", "summarise", "tb_work"]

BRANCH_OPCODES = frozenset({"bra", "brx"})


class TBWorkObserver:
    """Per-TB warp instructions, thread instructions and branches of every launch.

    ``launches`` holds one dict per launch, in launch order: ``kernel``, ``num_tbs``, the
    arrays ``warp``, ``thread``, ``branch`` (one element per linear TB id), the
    :class:`~golden.simt.engine.FunctionalLaunch` (``launch``) and, once it has finished,
    the warp instructions its statistics count (``counted``).
    """

    def __init__(self):
        self.launches: list[dict] = []
        self._cur: dict | None = None

    def on_launch_begin(self, launch) -> None:
        n = launch.geo.num_tbs
        self._cur = {"kernel": launch.name, "num_tbs": n,
                     "warp": np.zeros(n, np.int64), "thread": np.zeros(n, np.int64),
                     "branch": np.zeros(n, np.int64), "launch": launch, "counted": None}
        self.launches.append(self._cur)

    def on_launch_end(self, stats) -> None:
        self._cur["counted"] = stats.warp_instructions
        self._cur = None

    def on_exec(self, ev) -> None:
        c = self._cur
        tbs = ev.tbs
        np.add.at(c["warp"], tbs, 1)
        np.add.at(c["thread"], tbs, ev.active.sum(axis=1))
        if ev.inst.opcode in BRANCH_OPCODES:
            np.add.at(c["branch"], tbs, 1)


def summarise(launch: dict) -> dict:
    """The numbers of one observed launch (see the module docstring)."""
    w, b = launch["warp"], launch["branch"]
    total = int(w.sum())
    n = launch["num_tbs"]
    top = int(np.argmax(w)) if n else 0
    mean = total / n if n else 0.0
    return {
        "kernel": launch["kernel"], "num_tbs": n, "warp_instructions": total,
        "thread_instructions": int(launch["thread"].sum()),
        "tb0_warp_instructions": int(w[0]) if n else 0,
        "tb0_share": float(w[0] / total) if total else 0.0,
        "largest_tb": top, "largest_tb_share": float(w[top] / total) if total else 0.0,
        "largest_over_mean": float(w[top] / mean) if mean else 0.0,
        "branch_share": float(b.sum() / total) if total else 0.0,
        "tb0_branch_share": float(b[0] / w[0]) if n and w[0] else 0.0,
    }


def tb_work(name: str, size: str = "small", seed: int = 0, config=None) -> dict:
    """Run workload ``name`` functionally and return its per-launch TB-work summaries
    (``launches``, :func:`summarise`), whether the outputs matched numpy
    (``outputs_match``) and, when ``config`` (a loaded GPU configuration) is given, every
    kernel sized on it (``occupancy``: :class:`~golden.workloads.occupancy.KernelRow`
    fields)."""
    obs = TBWorkObserver()
    run = run_observed(name, [obs], size=size, seed=seed)
    launches = [summarise(l) for l in obs.launches]
    for s, l in zip(launches, obs.launches):
        if s["warp_instructions"] != l["counted"]:
            raise RuntimeError(f"tb_work({name}): the observer saw {s['warp_instructions']} "
                               f"warp instructions of {s['kernel']}, its statistics count "
                               f"{l['counted']}")
    out = {"launches": launches, "outputs_match": not run.mismatches()}
    if config is not None:
        probes = [LaunchProbe(l["kernel"], l["launch"], l["counted"]) for l in obs.launches]
        probe = Probe(name, size, dict(run.params), probes, run.mismatches(), 0.0)
        occ = occupancy_of(probe, config)
        out["occupancy"] = {"config": occ.config, "num_sms": occ.num_sms,
                            "main_waves": occ.main_waves,
                            "kernels": [asdict(k) for k in occ.kernels]}
    return out


def main_launch(result: dict) -> dict | None:
    """The launch of ``tb_work``'s result that executed the most warp instructions."""
    ls = result.get("launches") or []
    return max(ls, key=lambda l: l["warp_instructions"]) if ls else None
