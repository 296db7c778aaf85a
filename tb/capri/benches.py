"""The :class:`tb.common.bench.StructureBench` of each CAPRI structure and the pytest
launchers shared by tb/capri/test_capt.py and test_wcu.py.

Real-kernel traces come from the CAPRI timing mechanism on dynamic warps
(golden/mechanisms/capri/mechanism.py: its CAPT, and the WCU of the first CTA it forms on
core 0) through
:func:`golden.mechanisms.capri.trace.record_capri_trace`. Set
``SIMTLAB_CAPRI_TRACE_DIR`` to a folder of JSON-lines traces to replay every ``*.jsonl``
in it whose header names the bench's structure; without the variable that test is
skipped.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from golden.mechanisms.capri.trace import record_capri_trace
from golden.structures.capri import STRUCTURES
from rtl.capri.capt import Capt as CaptRTL
from rtl.capri.wcu import Wcu as WcuRTL
from tb.capri import stimulus as st
from tb.common import bench as common_bench
from tb.common.bench import StructureBench

__all__ = ["BENCHES", "ENV_TRACE_DIR", "REAL_TRACES", "replay_kernel_traces",
           "replay_trace_dir"]

#: real kernels whose CAPRI traffic the benches record and replay (small inputs, core 0,
#: first structure cycles) on quadro_fx5800 shrunk to TRACE_OVERRIDES' 2 cores so core 0
#: runs many CTAs: the divergent benchmarks of CAPRI Table 2 -- BFS (irregular frontier
#: divergence), MUM (tree walks of unequal length) and TPACF (per-thread bin search), and
#: BP (BACKP's ``if (tx == 0)`` divergence, compaction-inadequate) for the CAPT.
REAL_TRACES = {"capri_capt": (("BFS", "MUM", "BP"), 3000),
               "capri_wcu": (("BFS", "TPACF"), 1000)}
#: config overrides of the real-trace runs
TRACE_OVERRIDES = {"core.num_sms": 2}

#: Folder of real-kernel CAPRI traces to replay (optional).
ENV_TRACE_DIR = "SIMTLAB_CAPRI_TRACE_DIR"


def _bench(name: str, rtl, prefix: str, env: str, comb: bool = False) -> StructureBench:
    return common_bench.make_bench(STRUCTURES[name], rtl, st, prefix, env, comb=comb,
                                   record_trace=partial(record_capri_trace, name,
                                                       overrides=TRACE_OVERRIDES))


BENCHES = {
    "capri_capt": _bench("capri_capt", CaptRTL, "capt", "SIMTLAB_CAPRI_CAPT_TRACE_FILES"),
    "capri_wcu": _bench("capri_wcu", WcuRTL, "wcu", "SIMTLAB_CAPRI_WCU_TRACE_FILES",
                        comb=True),
}


def replay_kernel_traces(bench: StructureBench, tmp_path: Path, test_module: str) -> None:
    """Record core 0's traffic of ``bench`` in timing runs of its REAL_TRACES kernels with
    the CAPRI mechanism, then replay the traces on the RTL."""
    workloads, cycles = REAL_TRACES[bench.name]
    common_bench.run_real_traces(bench, workloads, cycles, tmp_path, test_module)


def replay_trace_dir(bench: StructureBench, test_module: str) -> None:
    """Replay every trace of ``bench``'s structure under ``$SIMTLAB_CAPRI_TRACE_DIR``
    (skip if the variable is unset or the folder holds none)."""
    common_bench.replay_trace_dir(bench, test_module, ENV_TRACE_DIR, "real-kernel CAPRI")
