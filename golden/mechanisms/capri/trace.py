"""Record transaction traces of the CAPRI structures from timing runs of real kernels.

:func:`record_capri_trace` runs a workload in timing mode with the CAPRI mechanism
attached and records the first ``max_cycles`` structure cycles of one core's CAPT
(``capri_capt``) or warp compaction unit (``capri_wcu``). Traces are JSON lines
(golden/structures/trace.py format); the cocotb benches (tb/capri/) replay them on
the RTL. A prefix of a trace is itself a valid trace (it starts from reset).

Contract with the mechanisms
----------------------------
By default (``driver="mechanism"``) the structures are the ones the CAPRI timing
mechanism itself drives (:class:`golden.mechanisms.capri.mechanism.Capri` on dynamic
warps: its per-core CAPT and the WCU of the first CTA formed on the core), built as::

    Capri(CaptParams(entries=..., policy=...), recorder_factory=factory)

With ``driver="oracle"`` they are the passive CAPRI oracle's (static warps, WPDOM
execution; the recording before the timing mechanism existed)::

    CapriOracle(cfg, CapriOracleParams(**params), recorder_factory=factory)

where ``cfg`` is the loaded GPU config and ``params`` are this function's extra keyword
arguments (e.g. ``policy="2bit"``, ``entries=8``). ``factory(name, sm_id, params)`` -- the
same contract as the WarpMan, UV and ILP mechanisms -- returns a recorder (an object with
``record(ops, outputs)``) or None:

* ``name`` is ``"capri_capt"`` or ``"capri_wcu"`` (the keys of
  :data:`golden.structures.capri.STRUCTURES`), ``sm_id`` the core's id, ``params`` the
  :class:`~golden.structures.capri.CaptParams` /
  :class:`~golden.structures.capri.WcuParams` instance the structure is built with (it
  becomes the trace header, and the replay builds the RTL from it);
* the mechanism calls the factory once when it creates a core's structure and passes the
  result as ``recorder=`` to :class:`~golden.structures.capri.Capt` /
  :class:`~golden.structures.capri.Wcu`. Only the first instance created for core ``sm``
  records; a structure rebuilt per launch records its first launch only. The CAPT is one
  per core and lives across launches: ``CaptParams(entries=..., policy=...)`` from
  ``CapriOracleParams`` (32 entries, ``"1bL"`` by default; ``pc_bits`` 32). The WCU is one per
  core: ``WcuParams(warps=<warps per CTA of the launch>, lanes=cfg.core.warp_size)``
  (stateless, so it may be rebuilt per launch; sizing it to the launch keeps the replayed
  RTL small);
* every decision goes through the structures, so that each one is one recorded cycle
  (paper-facts §7.3):

  - ``Capt.lookup(branch_pc)`` (allocates on a miss) for each warp that **diverged** on
    conditional branch ``branch_pc``, once per warp and dynamic branch; ``adequate`` in
    the result: the warp stalls (UMask bit stays 1); otherwise it bypasses (its UMask bit
    is cleared). Warps that did not diverge do not access the CAPT (they bypass, UMask 0);
  - ``Wcu.compact(masks, umask)`` (or ``step(WcuOps(mask=Wcu.pack(masks), umask=...))``)
    once for every path whose CTA-wide mask is forwarded when TOS.WCnt reaches 0:
    ``masks`` are the CTA's warps' masks on that path in warp order (index = warp index
    within the CTA), ``umask`` bit w = warp w stalled for compaction. The result's warps
    (``warps``, thread-to-warp mapping ``src``) are the compacted warps and
    ``n_formed`` is added to the new TOS's WCnt;
  - ``Capt.update(branch_pc, adequate)`` once per dynamic branch instance, after the WCU
    evaluated both its paths (the oracle's verdict: compaction of both paths forms fewer
    warps than WPDOM runs; a per-path update with each path's verdict is the other
    reading of §3.3 step 6c; update returns False when the entry was evicted meanwhile);
  - ``Capt.reset()`` when a kernel completes on the core (the CAPT's kernel-end reset;
    the 1b-Sticky bits clear only here);
  - to look at the CAPT without a cycle use ``history_of(pc)`` / ``pc in capt`` /
    ``len(capt)``, not :meth:`~golden.structures.capri.Capt.step` with idle ops.
"""

from __future__ import annotations

from pathlib import Path

from golden.errors import SimtlabError
from golden.mechanisms.ilp.trace import _record

__all__ = ["STRUCTURES", "record_capri_trace"]

#: the structures the CAPRI mechanism records
STRUCTURES = ("capri_capt", "capri_wcu")


def record_capri_trace(structure: str, workload: str, path: str | Path, *,
                       config: str = "quadro_fx5800", size: str = "small", seed: int = 0,
                       sm: int = 0, max_cycles: int = 4000, overrides: dict | None = None,
                       driver: str = "mechanism", **params) -> Path:
    """Record core ``sm``'s ``structure`` (``"capri_capt"`` or ``"capri_wcu"``) during
    ``workload`` with the CAPRI mechanism on ``config`` (with config ``overrides``, e.g.
    ``{"core.num_sms": 2}`` so small inputs put many CTAs on core 0); extra keyword
    arguments go to ``CapriOracleParams``. Return the path.

    Raises SimtlabError for an unknown structure, when a run that ends before the cap
    gives outputs that differ from the reference, or when core ``sm`` recorded nothing
    (e.g. no warp ever diverged on it).
    """
    if structure not in STRUCTURES:
        raise SimtlabError(f"record_capri_trace: unknown structure {structure!r}; "
                           f"known: {', '.join(STRUCTURES)}")
    if driver not in ("mechanism", "oracle"):
        raise SimtlabError(f"record_capri_trace: driver must be mechanism or oracle, "
                           f"not {driver!r}")
    from golden.mechanisms.capri.oracle import CapriOracleParams

    cp = CapriOracleParams(**params)

    def only(factory):
        return lambda name, sm_id, p: factory(sm_id, p) if name == structure else None

    if driver == "oracle":
        from golden.mechanisms.capri.oracle import CapriOracle

        def mechs(cfg, factory):
            return [CapriOracle(cfg, cp, recorder_factory=only(factory))]
    else:
        from golden.mechanisms.capri.mechanism import Capri
        from golden.structures.capri.capt import CaptParams

        def mechs(cfg, factory):
            return [Capri(CaptParams(entries=cp.entries, policy=cp.policy),
                          recorder_factory=only(factory))]

    what = f"timing run, capri {driver}" + (f" {params}" if params else "")
    return _record(structure, mechs, workload, path, config=config, overrides=overrides,
                   size=size, seed=seed, sm=sm, max_cycles=max_cycles, source=what)
