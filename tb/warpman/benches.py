"""The :class:`tb.common.bench.StructureBench` of each WarpMan structure and the pytest
launchers shared by tb/warpman/test_workload_buffer.py and test_dispatch_check.py.

Real-kernel traces come from the WarpMan timing mechanism
(golden/mechanisms/warpman/mechanism.py) through
:func:`golden.mechanisms.warpman.trace.record_warpman_trace`. Set
``SIMTLAB_WARPMAN_TRACE_DIR`` to a folder of JSON-lines traces to replay every ``*.jsonl``
in it whose header names the bench's structure; without the variable that test is
skipped.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from golden.mechanisms.warpman.trace import record_warpman_trace
from golden.structures.warpman import STRUCTURES
from rtl.warpman.dispatch_check import DispatchCheck as DispatchCheckRTL
from rtl.warpman.workload_buffer import WorkloadBuffer as WorkloadBufferRTL
from tb.common import bench as common_bench
from tb.common.bench import StructureBench
from tb.warpman import stimulus as st

__all__ = ["BENCHES", "ENV_TRACE_DIR", "REAL_TRACES", "replay_kernel_traces",
           "replay_trace_dir"]

#: real kernels whose WarpMan traffic the benches record and replay (small inputs, SM 0,
#: first structure cycles) on gtx480_warpman shrunk to TRACE_OVERRIDES' 2 SMs, so the
#: small launches run several waves and SM 0 dispatches (partial) TBs as warps finish:
#: HS (register-limited 8-warp TBs with barriers and shared memory), RAY (6-warp TBs of
#: unequal warps) and NQU (shared-memory-limited: the warp-level check fails on shared
#: memory).
REAL_TRACES = {"warpman_wb": (("HS", "RAY"), 3000),
               "warpman_check": (("HS", "RAY", "NQU"), 3000)}
#: config overrides of the real-trace runs
TRACE_OVERRIDES = {"core.num_sms": 2}

#: Folder of real-kernel WarpMan traces to replay (optional).
ENV_TRACE_DIR = "SIMTLAB_WARPMAN_TRACE_DIR"


def _bench(name: str, rtl, prefix: str, env: str, comb: bool = False) -> StructureBench:
    return common_bench.make_bench(STRUCTURES[name], rtl, st, prefix, env, comb=comb,
                                   record_trace=partial(record_warpman_trace, name,
                                                       overrides=TRACE_OVERRIDES))


BENCHES = {
    "warpman_wb": _bench("warpman_wb", WorkloadBufferRTL, "wb", "SIMTLAB_WARPMAN_WB_TRACE_FILES"),
    "warpman_check": _bench("warpman_check", DispatchCheckRTL, "check",
                            "SIMTLAB_WARPMAN_CHECK_TRACE_FILES", comb=True),
}


def replay_kernel_traces(bench: StructureBench, tmp_path: Path, test_module: str) -> None:
    """Record SM 0's traffic of ``bench`` in timing runs of its REAL_TRACES kernels with the
    WarpMan mechanism, then replay the traces on the RTL."""
    workloads, cycles = REAL_TRACES[bench.name]
    common_bench.run_real_traces(bench, workloads, cycles, tmp_path, test_module)


def replay_trace_dir(bench: StructureBench, test_module: str) -> None:
    """Replay every trace of ``bench``'s structure under ``$SIMTLAB_WARPMAN_TRACE_DIR``
    (skip if the variable is unset or the folder holds none)."""
    common_bench.replay_trace_dir(bench, test_module, ENV_TRACE_DIR, "real-kernel WarpMan")
