"""The :class:`tb.common.bench.StructureBench` of each uniform-vector structure and the
pytest launchers shared by tb/uv/test_irb.py, test_srf_map.py and test_detect.py.

Real-kernel traces: set ``SIMTLAB_UV_TRACE_DIR`` to a folder of JSON-lines traces
(golden/structures/trace.py format, e.g. written by the UV mechanism's recorders
under build/traces/); each bench replays every ``*.jsonl`` in it whose header names its
structure. Without the variable those tests are skipped.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from golden.structures.uv import STRUCTURES
from rtl.uv.detect import UniformDetect as DetectRTL
from rtl.uv.irb import IRB as IRBRTL
from rtl.uv.srf_map import SRFMap as SRFMapRTL
from tb.common import bench as common_bench
from tb.common.bench import StructureBench
from tb.uv import stimulus as st

__all__ = ["BENCHES", "ENV_TRACE_DIR", "REAL_TRACES", "replay_random_trace", "replay_trace_dir"]

#: real kernels whose UV traffic every ``make test`` records and replays (small inputs, SM 0
#: of a one-SM gtx285 so the trace fills and the recording run stops early, first structure
#: cycles): MT and HS reuse most (IRB), VA and MM have few registers (the SRF map's vregs =
#: 32 warps x the kernel's PTX registers), HT diverges (copy-on-write)
REAL_TRACES = {"uv_irb": (("MT", "HS", "SP"), 1500), "uv_srf_map": (("VA", "MM"), 2000),
               "uv_detect": (("HT", "MM"), 2000)}
#: config overrides of the real-trace runs
TRACE_OVERRIDES = {"core.num_sms": 1}

#: Folder of real-kernel UV traces to replay (optional).
ENV_TRACE_DIR = "SIMTLAB_UV_TRACE_DIR"


def _bench(name: str, rtl, prefix: str, env: str, comb: bool = False) -> StructureBench:
    from golden.mechanisms.uv.trace import record_uv_trace
    return common_bench.make_bench(STRUCTURES[name], rtl, st, prefix, env, comb=comb,
                                   record_trace=partial(record_uv_trace, name,
                                                       overrides=TRACE_OVERRIDES))


BENCHES = {
    "uv_irb": _bench("uv_irb", IRBRTL, "irb", "SIMTLAB_UV_IRB_TRACE_FILES"),
    "uv_srf_map": _bench("uv_srf_map", SRFMapRTL, "srf", "SIMTLAB_UV_SRF_MAP_TRACE_FILES"),
    "uv_detect": _bench("uv_detect", DetectRTL, "detect", "SIMTLAB_UV_DETECT_TRACE_FILES",
                        comb=True),
}


def replay_random_trace(bench: StructureBench, params, tmp_path: Path, test_module: str) -> None:
    """Record a trace by driving the golden model with the seeded random stimulus through
    a TraceRecorder, then replay the file on the RTL."""
    common_bench.replay_random_trace(bench, params, tmp_path, test_module)


def replay_trace_dir(bench: StructureBench, test_module: str) -> None:
    """Replay every trace of ``bench``'s structure under ``$SIMTLAB_UV_TRACE_DIR`` (skip if
    the variable is unset or the folder holds none)."""
    common_bench.replay_trace_dir(bench, test_module, ENV_TRACE_DIR, "real-kernel UV")
