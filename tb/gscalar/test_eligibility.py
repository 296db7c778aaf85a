"""cocotb testbench: rtl.gscalar.eligibility.ScalarEligibility vs the golden check (seed 003
§4.1, §4.2).

* ``run_random``: seeded random vectors (full and divergent masks, compressed and D-set
  sources, stored masks equal to the active mask), every output scored, coverage goals.
* ``run_traces``: the decisions the ``gscalar`` timing mechanism made on real kernels
  (BFS, HS, NQU; recorded by the pytest wrapper), each scored against the recorded
  decision and the golden model.
"""

from __future__ import annotations

import os
import random

import cocotb
import pytest

from golden.structures.gscalar.eligibility import (
    EligibilityOps, EligibilityOutputs, EligibilityParams, ScalarEligibility,
)
from rtl.gscalar.eligibility import ScalarEligibility as EligibilityRTL
from tb.gscalar.comb import play_comb
from tb.gscalar.eligibility_stimulus import (
    ELIGIBILITY_GOALS, TRACE_SOURCES, RecordedDecisions, eligibility_coverage, load_decisions,
    random_eligibility_ops, record_eligibility_decisions, save_decisions,
)
from tb.runner import REPO_ROOT, Scoreboard, run_cocotb, tb_params, tb_seed

RANDOM_VECTORS = 2000
ENV_TRACES = "SIMTLAB_ELIGIBILITY_TRACES"
TRACE_WORKLOADS = ("BFS", "HS", "NQU")


def _params() -> EligibilityParams:
    return EligibilityParams(**tb_params())


@cocotb.test()
async def run_random(dut):
    params = _params()
    seed = tb_seed()
    ops = random_eligibility_ops(params, random.Random(seed), RANDOM_VECTORS)
    board = Scoreboard(f"eligibility {params} random", log=dut._log)
    await play_comb(dut, ScalarEligibility(params), ops, EligibilityOps, EligibilityOutputs, board,
                    "random", lambda e, o, cov: eligibility_coverage(e, o, params, cov),
                    ELIGIBILITY_GOALS if params.divergent else
                    {k: v for k, v in ELIGIBILITY_GOALS.items() if "div_scalar" not in k})


@cocotb.test()
async def run_traces(dut):
    params = _params()
    paths = [p for p in os.environ.get(ENV_TRACES, "").split(os.pathsep) if p]
    assert len(paths) >= 3, f"{ENV_TRACES} must name at least three decision files, got {paths}"
    for path in paths:
        head, rows = load_decisions(path)
        board = Scoreboard(f"eligibility trace {head['workload']}", log=dut._log)
        recorded = [out for _, out in rows]
        await play_comb(dut, RecordedDecisions(recorded), [ops for ops, _ in rows], EligibilityOps,
                        EligibilityOutputs, board, head["workload"])
        board2 = Scoreboard(f"eligibility golden {head['workload']}", log=dut._log)
        golden = ScalarEligibility(params)
        for i, (ops, out) in enumerate(rows):
            board2.check(f"{head['workload']} decision {i}", out, golden.step(ops))
        board2.finish()
        dut._log.info("trace %s: %d decisions (%d scalar, %d divergent scalar), all matched",
                      head["workload"], len(rows), sum(o.scalar for o in recorded),
                      sum(o.div_scalar for o in recorded))


@pytest.mark.parametrize("params", [EligibilityParams(), EligibilityParams(sources=2, lanes=8, divergent=False)],
                         ids=["paper", "s2_l8_nodiv"])
def test_eligibility_random_cocotb(params):
    run_cocotb(EligibilityRTL, params.__dict__, test_module=__name__, toplevel="eligibility",
               testcase="run_random")


def test_eligibility_traces_cocotb():
    paths = []
    for w in TRACE_WORKLOADS:
        path = REPO_ROOT / "build" / "traces" / f"eligibility_{w}.jsonl"
        paths.append(save_decisions(path, w, record_eligibility_decisions(w)))
    run_cocotb(EligibilityRTL, {"sources": TRACE_SOURCES, "lanes": 32, "divergent": True},
               test_module=__name__, toplevel="eligibility", testcase="run_traces",
               extra_env={ENV_TRACES: os.pathsep.join(str(p) for p in paths)})
