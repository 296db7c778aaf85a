"""Record transaction traces of the ILP structures from timing runs of real kernels.

:func:`record_scoreboard_trace` runs a workload in timing mode with ``ilp-sc`` attached
and records the first ``max_cycles`` structure cycles of one SM's shared scoreboard (every
allocation with its lookups, writeback and commit the mechanism performed, with the
kernel's real result values); :func:`record_gshare_trace` does the same for one SM's
gshare predictor under the chapter's branch-prediction study (BP+SC, branch latency 1,
``ilp-bp-gshare``): every prediction at fetch and every update at issue. Traces are
JSON lines (golden/structures/trace.py format); the cocotb benches
(tb/ilp/test_scoreboard.py, tb/ilp/test_gshare.py) replay them on the RTL. A prefix of a
trace is itself a valid trace (it starts from reset), so the cap only shortens the replay.

Every recorder here (also the CAPRI, UV and WarpMan ones, which share :func:`_record`)
stops the timing run as soon as the trace holds its ``max_cycles`` cycles: the rest of the
run cannot change the recorded prefix, and the workloads' full runs cost tens of seconds
each. A run that ends before the cap is checked against the workload's numpy reference;
a stopped run is not (the mechanisms' output tests check those runs end to end).
"""

from __future__ import annotations

from pathlib import Path

from golden.errors import SimtlabError
from golden.structures.trace import TraceRecorder

__all__ = ["record_gshare_trace", "record_scoreboard_trace"]

#: config overrides of the chapter's branch-prediction study (§4.4.4)
BP_STUDY = {"pipelines.bypass": True, "pipelines.control_latency": 1}


class _TraceFull(Exception):
    """Raised by :class:`_Capped` at the first cycle past its limit: ends the run early."""


class _Capped:
    """Forwards the first ``limit`` cycles to a recorder; the next cycle raises
    :class:`_TraceFull`, which :func:`_record` catches to end the timing run."""

    def __init__(self, rec: TraceRecorder, limit: int):
        self.rec, self.limit = rec, limit

    def record(self, ops, outputs) -> None:
        if self.rec.cycles >= self.limit:
            raise _TraceFull
        self.rec.record(ops, outputs)


def _record(structure: str, make_mechs, workload: str, path, *, config: str, overrides,
            size: str, seed: int, sm: int, max_cycles: int, source: str) -> Path:
    """Run ``workload`` with the mechanisms ``make_mechs(cfg, factory)`` builds, recording
    SM ``sm``'s ``structure`` through ``factory(sm_id, params)``."""
    from golden.configs import load_config
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry

    cfg = load_config(config, overrides or None)
    recs: list = []
    path = Path(path)

    def factory(sm_id, params):
        if sm_id != sm or recs:
            return None
        r = TraceRecorder.open(path, structure, params,
                               meta={"workload": workload, "config": config, "size": size,
                                     "seed": seed, "sm": sm, "source": source})
        recs.append(r)
        return _Capped(r, max_cycles)

    dev = TimingDevice(cfg, mechanisms=make_mechs(cfg, factory), echo_printf=False)
    try:
        run = registry.run_workload(registry.get(workload), size=size, seed=seed, device=dev)
    except _TraceFull:
        run = None                      # the trace is full: the rest of the run is not needed
    finally:
        for r in recs:
            r.close()
    if run is not None and run.mismatches():
        raise SimtlabError(f"{structure} trace of {workload}: outputs differ from the "
                           f"reference: {run.mismatches()[0]}")
    if not recs or recs[0].cycles == 0:
        raise SimtlabError(f"{structure} trace of {workload}: SM {sm} recorded nothing")
    return path


def record_scoreboard_trace(workload: str, path: str | Path, *, config: str = "gtx280",
                            size: str = "small", seed: int = 0, sm: int = 0,
                            max_cycles: int = 2000, overrides: dict | None = None) -> Path:
    """Record SM ``sm``'s scoreboard during ``workload`` (on ``config`` with config
    ``overrides``, e.g. ``{"core.num_sms": 1}`` so SM 0 runs every thread block and the
    trace fills early); return the path.

    Raises SimtlabError when a run that ends before the cap gives outputs that differ from
    the reference, or when nothing was recorded (e.g. the SM got no thread block).
    """
    from golden.mechanisms.ilp.scoreboard import ILPScoreboardMechanism

    return _record("ilp_scoreboard",
                   lambda cfg, f: [ILPScoreboardMechanism(cfg, recorder_factory=f)],
                   workload, path, config=config, overrides=overrides, size=size, seed=seed,
                   sm=sm, max_cycles=max_cycles, source="timing run, ilp-sc")


def record_gshare_trace(workload: str, path: str | Path, *, config: str = "gtx280",
                        size: str = "small", seed: int = 0, sm: int = 0,
                        max_cycles: int = 4000, histories: int = 1,
                        overrides: dict | None = None) -> Path:
    """Record SM ``sm``'s gshare predictor during ``workload`` in the branch-prediction
    study (``ilp-sc`` + ``ilp-bp-gshare``, bypass on, branch latency 1); return the path.
    ``histories`` > 1 records the per-warp-history variant (``ilp-bp-gshare-warp``); config
    ``overrides`` go on top of the study's."""
    from golden.mechanisms.ilp.branch import BranchPredictionMechanism
    from golden.mechanisms.ilp.scoreboard import ILPScoreboardMechanism
    from golden.structures.ilp import GshareParams

    def mechs(cfg, f):
        return [ILPScoreboardMechanism(cfg),
                BranchPredictionMechanism(cfg, "gshare", GshareParams(histories=histories),
                                          recorder_factory=f)]

    return _record("ilp_gshare", mechs, workload, path, config=config,
                   overrides={**BP_STUDY, **(overrides or {})},
                   size=size, seed=seed, sm=sm, max_cycles=max_cycles,
                   source="timing run, ilp-sc + ilp-bp-gshare, bypass, control_latency 1")
