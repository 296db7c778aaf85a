"""Record transaction traces of the UV structures from timing runs of real kernels.

:func:`record_uv_trace` runs a workload in timing mode with the UV mechanism attached
and records the first ``max_cycles`` structure cycles of one SM's instruction reuse
buffer (``uv_irb``: every lookup by a uniform instruction and every fill or rewrite after
execution, with the kernel's real source and result values) or SRF rename map
(``uv_srf_map``: every source lookup, destination mapping, vector redefinition and free at
register death or warp exit) or uniform-detection logic (``uv_detect``: the source kinds,
uniform bits, active mask and destination state of every issued instruction with at most
three sources, guard included; the mechanism checks that the logic's verdict is its own). Traces are JSON lines (golden/structures/trace.py
format); the cocotb benches (tb/uv/) replay them on the RTL. A prefix of a trace is itself
a valid trace (it starts from reset).
"""

from __future__ import annotations

from pathlib import Path

from golden.errors import SimtlabError
from golden.mechanisms.ilp.trace import _record

__all__ = ["record_uv_trace"]

#: structure -> UV design whose mechanism drives it
_DESIGN = {"uv_irb": "token", "uv_srf_map": "srf", "uv_detect": "token"}


def record_uv_trace(structure: str, workload: str, path: str | Path, *,
                    config: str = "gtx285", size: str = "small", seed: int = 0, sm: int = 0,
                    max_cycles: int = 4000, overrides: dict | None = None, **params) -> Path:
    """Record SM ``sm``'s ``structure`` (``"uv_irb"``, ``"uv_srf_map"``, ``"uv_detect"``) during
    ``workload`` under the combined design (token for the IRB, SRF for the map) on
    ``config`` with config ``overrides`` (e.g. ``{"core.num_sms": 1}``); extra
    keyword arguments go to :class:`~golden.mechanisms.uv.mechanism.UVParams` (e.g.
    ``reliability=True`` for the IRB with parity). Return the path."""
    from golden.mechanisms.uv.mechanism import UVMechanism, UVParams

    if structure not in _DESIGN:
        raise SimtlabError(f"record_uv_trace: unknown structure {structure!r}; "
                           f"known: {', '.join(_DESIGN)}")
    uv = UVParams(design=_DESIGN[structure], mode="combined", **params)

    def mechs(cfg, factory):
        return [UVMechanism(cfg, uv, recorder_factory=lambda name, sm_id, p:
                            factory(sm_id, p) if name == structure else None)]

    return _record(structure, mechs, workload, path, config=config, overrides=overrides,
                   size=size, seed=seed, sm=sm, max_cycles=max_cycles,
                   source=f"timing run, uv-{uv.design} combined")
