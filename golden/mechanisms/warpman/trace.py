"""Record transaction traces of the WarpMan structures from timing runs of real kernels.

:func:`record_warpman_trace` runs a workload in timing mode with the WarpMan mechanism
attached and records the first ``max_cycles`` structure cycles of one SM's workload buffer
(``warpman_wb``) or dispatch check (``warpman_check``). Traces are JSON lines
(golden/structures/trace.py format); the cocotb benches (tb/warpman/) replay them
on the RTL. A prefix of a trace is itself a valid trace (it starts from reset).

Contract with the mechanism (golden/mechanisms/warpman/mechanism.py)
--------------------------------------------------------------------
This module imports, lazily, ``WarpManMechanism`` and ``WarpManParams`` from
:mod:`golden.mechanisms.warpman.mechanism` and builds::

    WarpManMechanism(cfg, WarpManParams(**params), recorder_factory=factory)

where ``cfg`` is the loaded GPU config and ``params`` are this function's extra keyword
arguments. ``factory(name, sm_id, params)`` -- the same contract as the UV and ILP
mechanisms -- returns a recorder (an object with ``record(ops, outputs)``) or None:

* ``name`` is ``"warpman_wb"`` or ``"warpman_check"`` (the keys of
  :data:`golden.structures.warpman.STRUCTURES`), ``sm_id`` the SM's id, ``params`` the
  :class:`~golden.structures.warpman.WorkloadBufferParams` /
  :class:`~golden.structures.warpman.DispatchCheckParams` instance the structure is built
  with (it becomes the trace header, and the replay builds the RTL from it);
* the mechanism calls the factory once when it creates an SM's structure and passes the
  result as ``recorder=`` to :class:`~golden.structures.warpman.WorkloadBuffer` /
  :class:`~golden.structures.warpman.DispatchCheck`. Only the first instance created for
  SM ``sm`` records; a structure rebuilt per launch records its first launch only;
* every decision goes through the structure, so that each one is one recorded cycle:

  - ``DispatchCheck.check(...)`` (or ``step``) for every TB-level / warp-level check of
    the SM (kernel launch, every resource release), using its ``tb_ok``, ``warp_ok`` and
    ``n_warps`` (or asserting they equal the mechanism's own verdict);
  - ``WorkloadBuffer.load(p_tbid, l_tbid, start_wid, end_wid)`` when a partial TB is
    dispatched (end_wid inclusive: the last unissued warp; load raises if the buffer is
    already valid -- WarpMan holds at most one partial TB per SM);
  - ``WorkloadBuffer.issue()`` when a warp of the SM finishes and the buffer may give its
    resources to the next unissued warp (returns ``(p_tbid, l_tbid, wid)`` or None);
  - to look at the buffer without a cycle use the attributes ``valid`` / ``next_warp`` /
    ``unissued``, not :meth:`~golden.structures.warpman.WorkloadBuffer.read` (a recorded
    idle cycle).

  ``p_tbid`` is the TB's slot in the SM (< ``max_tbs_per_sm``), ``l_tbid`` its linear id
  in the grid: build the buffer with
  :meth:`WorkloadBufferParams.for_launch(num_tbs, tb_slots=..., max_warps_per_tb=...)
  <golden.structures.warpman.WorkloadBufferParams.for_launch>` so the 26-bit L_TBid grows
  for a launch of more than 2^26 TBs, and the check with
  :meth:`DispatchCheckParams.from_config(cfg)
  <golden.structures.warpman.DispatchCheckParams.from_config>`.
"""

from __future__ import annotations

from pathlib import Path

from golden.errors import SimtlabError
from golden.mechanisms.ilp.trace import _record

__all__ = ["STRUCTURES", "record_warpman_trace"]

#: the structures the WarpMan mechanism records
STRUCTURES = ("warpman_wb", "warpman_check")


def record_warpman_trace(structure: str, workload: str, path: str | Path, *,
                         config: str = "gtx480_warpman", size: str = "small", seed: int = 0,
                         sm: int = 0, max_cycles: int = 4000, overrides: dict | None = None,
                         **params) -> Path:
    """Record SM ``sm``'s ``structure`` (``"warpman_wb"`` or ``"warpman_check"``) during
    ``workload`` with the WarpMan mechanism on ``config`` (with config ``overrides``, e.g.
    ``{"core.num_sms": 2}`` so small inputs run several waves); extra keyword arguments
    go to ``WarpManParams``. Return the path.

    Raises SimtlabError for an unknown structure, when the run's outputs differ from the
    reference, or when SM ``sm`` recorded nothing (e.g. no partial TB ever went to it).
    """
    if structure not in STRUCTURES:
        raise SimtlabError(f"record_warpman_trace: unknown structure {structure!r}; "
                           f"known: {', '.join(STRUCTURES)}")
    from golden.mechanisms.warpman.mechanism import WarpManMechanism, WarpManParams

    wm = WarpManParams(**params)

    def mechs(cfg, factory):
        return [WarpManMechanism(cfg, wm, recorder_factory=lambda name, sm_id, p:
                                 factory(sm_id, p) if name == structure else None)]

    return _record(structure, mechs, workload, path, config=config, overrides=overrides,
                   size=size, seed=seed, sm=sm, max_cycles=max_cycles,
                   source=f"timing run, warpman {params}" if params else "timing run, warpman")
