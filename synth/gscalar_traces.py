"""Real-kernel operation traces of G-Scalar's compressor and decompressor (issue 69, item 3).

The G-Scalar bank bench replays register traces of real kernels
(:func:`golden.structures.gscalar.trace.record_register_trace`: every 32-bit register
write and read of one warp, with its lane values and the writer's active mask). This
module turns such a trace into the per-cycle inputs of the two combinational blocks that
sit beside the bank (seed 003 §3.1), so :mod:`synth.trace_energy` can price them on their
osu018 netlists like the other structures:

* **compressor**: one cycle per register write, ``values`` and ``active`` as written;
* **decompressor**: one cycle per register read: ``enc_groups`` / ``base_groups`` of the
  register's last write (compressed by the golden compressor with that write's mask),
  ``d`` set when that write was divergent (stored uncompressed), and ``stored`` = the
  lane values with the BVR-covered bytes zero (arrays that were not activated arrive as
  0, :mod:`golden.structures.gscalar.decompressor`).

The cycles are returned as a :class:`golden.structures.trace.Trace` (ops, outputs) list
whose outputs are the golden blocks' own, so a replay can be checked like any trace.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

#: the compressor / decompressor synthesis targets and their trace structure names
TARGETS = {"gscalar_compressor_32": "gscalar_compressor",
           "gscalar_decompressor_32": "gscalar_decompressor"}
#: register-trace events recorded per workload (the bank bench's workloads and warps)
EVENTS = 2000


def record(out: Path, events: int = EVENTS) -> list[Path]:
    """Register traces of the bank bench's workloads (:data:`tb.gscalar.stimulus.TRACE_WORKLOADS`)
    under ``out/gscalar`` (recorded when missing)."""
    from golden.structures.gscalar.trace import record_register_trace
    from tb.gscalar.stimulus import TRACE_WORKLOADS

    paths = []
    for workload, warp in TRACE_WORKLOADS:
        path = out / "gscalar" / f"{workload}_w{warp}_{events}.npz"
        if not path.is_file():
            record_register_trace(workload, warps=(warp,), max_events=events).save(path)
        paths.append(path)
    return paths


def _cover(enc: int) -> int:
    return sum(0xFF << (8 * b) for b in range(4) if enc >> b & 1)


def load(path: Path, structure: str, lanes: int = 32, groups: int = 1):
    """The ``structure`` cycles (:data:`TARGETS` values) of one register trace file."""
    from golden.structures.gscalar.compressor import Compressor, compressor_ops
    from golden.structures.gscalar.decompressor import Decompressor, DecompressorOps
    from golden.structures.gscalar.params import GScalarParams, pack_fields, pack_lanes
    from golden.structures.gscalar.trace import WRITE, RegisterTrace
    from golden.structures.trace import Trace

    params = GScalarParams(lanes=lanes, groups=groups)
    tr = RegisterTrace.load(path)
    comp, dec = Compressor(params), Decompressor(params)
    last: dict[int, tuple] = {}           # slot -> (enc_groups, base_groups, d) of its last write
    cycles = []
    for kind, slot, values, mask in zip(tr.kind, tr.slot, tr.values, tr.mask):
        vals = np.asarray(values, dtype=np.uint32)
        mask = int(mask)
        if kind == WRITE:
            c = comp.compress(vals, mask)
            d = int(mask != params.full_mask)
            last[int(slot)] = (c.enc_groups, c.base_groups, d)
            if structure == "gscalar_compressor":
                ops = compressor_ops(vals, mask)
                cycles.append((ops, comp.step(ops)))
        elif structure == "gscalar_decompressor" and int(slot) in last:
            enc_g, base_g, d = last[int(slot)]
            stored = vals.copy()
            if not d:
                for g, enc in enumerate(enc_g):
                    sl = slice(g * params.group_lanes, (g + 1) * params.group_lanes)
                    stored[sl] &= np.uint32(~_cover(enc) & 0xFFFFFFFF)
            ops = DecompressorOps(stored=pack_lanes(stored), enc_groups=pack_fields(enc_g, 4),
                                  base_groups=pack_fields(base_g, 32), d=d)
            cycles.append((ops, dec.step(ops)))
    return Trace(path=str(path), structure=structure, params=params,
                 meta={"workload": tr.workload}, cycles=cycles)
