"""Deferred register-only execution (FunctionalLaunch.defer_registers, issue 12 item 2)
leaves every statistic and every output of the timing model unchanged."""

import numpy as np
import pytest

from golden.report.runner import TimingJob, run_job
from golden.timing.gpu import GPU

# regular, divergent, predicated, atomic, multi-launch and carry-flag (64-bit division
# through libdevice) workloads on four GPUs
CASES = [("MM", "pascal"), ("BFS", "pascal"), ("NQU", "gtx480"), ("MUM", "fx5800"),
         ("SP", "gtx285"), ("KMEANS", "pascal"), ("LBM", "gtx480"), ("STO", "gtx280")]


def _strip(r):
    return {k: v for k, v in r.items() if k not in ("wall_seconds", "cpu_seconds")}


@pytest.mark.parametrize("workload,config", CASES)
def test_deferral_changes_no_statistic(workload, config, monkeypatch):
    job = TimingJob(workload, config, size="small")
    lazy = run_job(job)
    monkeypatch.setattr(GPU, "defer_registers", False)
    eager = run_job(job)
    assert lazy["outputs_match"] and eager["outputs_match"]
    assert _strip(lazy) == _strip(eager)
