"""Record transaction traces of the ILP scoreboard from timing runs of real kernels.

:func:`record_scoreboard_trace` runs a workload in timing mode with ``ilp-sc`` attached
and records the first ``max_cycles`` structure cycles of one SM's shared scoreboard (every
allocation with its lookups, writeback and commit the mechanism performed, with the
kernel's real result values) into a JSON-lines trace (golden/structures/darsie/trace.py
format). The cocotb bench (tb/ilp/test_scoreboard.py) replays such traces on the RTL. A
prefix of a trace is itself a valid trace (it starts from reset), so the cap only
shortens the replay.
"""

from __future__ import annotations

from pathlib import Path

from golden.errors import SimtlabError
from golden.structures.darsie.trace import TraceRecorder

__all__ = ["record_scoreboard_trace"]


class _Capped:
    """Forwards the first ``limit`` cycles to a recorder, then ignores the rest."""

    def __init__(self, rec: TraceRecorder, limit: int):
        self.rec, self.limit = rec, limit

    def record(self, ops, outputs) -> None:
        if self.rec.cycles < self.limit:
            self.rec.record(ops, outputs)


def record_scoreboard_trace(workload: str, path: str | Path, *, config: str = "gtx280",
                            size: str = "small", seed: int = 0, sm: int = 0,
                            max_cycles: int = 2000) -> Path:
    """Record SM ``sm``'s scoreboard during the first launch of ``workload``; return the path.

    Raises SimtlabError when the run's outputs differ from the reference or nothing was
    recorded (e.g. the SM got no thread block).
    """
    from golden.configs import load_config
    from golden.mechanisms.ilp.scoreboard import ILPScoreboardMechanism
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry

    cfg = load_config(config)
    recs: list = []
    path = Path(path)

    def factory(sm_id, params):
        if sm_id != sm or recs:
            return None
        r = TraceRecorder.open(path, "ilp_scoreboard", params,
                               meta={"workload": workload, "config": config, "size": size,
                                     "seed": seed, "sm": sm, "source": "timing run, ilp-sc"})
        recs.append(r)
        return _Capped(r, max_cycles)

    mech = ILPScoreboardMechanism(cfg, recorder_factory=factory)
    dev = TimingDevice(cfg, mechanisms=[mech], echo_printf=False)
    try:
        run = registry.run_workload(registry.get(workload), size=size, seed=seed, device=dev)
    finally:
        for r in recs:
            r.close()
    if run.mismatches():
        raise SimtlabError(f"ilp scoreboard trace of {workload}: outputs differ from the "
                           f"reference: {run.mismatches()[0]}")
    if not recs or recs[0].cycles == 0:
        raise SimtlabError(f"ilp scoreboard trace of {workload}: SM {sm} recorded nothing")
    return path
