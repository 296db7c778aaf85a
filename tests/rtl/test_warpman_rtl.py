# amaranth: UnusedElaboratable=no
"""WarpMan structures (seed 002 ch. 3): RTL vs golden in amaranth.sim (directed + random),
the workload buffer and the dispatch check."""

from __future__ import annotations

import itertools
import random

import pytest

from golden.structures.warpman import (DispatchCheck, DispatchCheckOps, DispatchCheckParams,
                                       WorkloadBuffer, WorkloadBufferParams)
from rtl.warpman.dispatch_check import DispatchCheck as CheckRTL
from rtl.warpman.workload_buffer import WorkloadBuffer as WorkloadBufferRTL
from stepsim import check_steps_against_golden, simulate_comb, step_types
from tb.warpman.stimulus import (check_directed, check_random_ops, wb_directed,
                                 wb_random_ops)

SEED = 20260302


def test_rtl_rejects_bad_parameters():
    with pytest.raises(TypeError):
        WorkloadBufferRTL(tb_slots=2.5)
    with pytest.raises(ValueError):
        WorkloadBufferRTL(l_tbid_bits=0)
    with pytest.raises(ValueError):
        CheckRTL(max_warps_per_tb=0)
    with pytest.raises(TypeError):
        CheckRTL(registers="32k")
    wb = WorkloadBufferRTL()
    assert (len(wb.p_tbid), len(wb.l_tbid), len(wb.wid)) == (3, 26, 5)
    c = CheckRTL()
    assert (len(c.free_warps), len(c.free_tbs), len(c.free_regs), len(c.free_shared),
            len(c.warps_per_tb), len(c.n_warps)) == (6, 4, 16, 16, 6, 6)


@pytest.mark.parametrize("params", [WorkloadBufferParams(),
                                    WorkloadBufferParams(tb_slots=3, max_warps_per_tb=6,
                                                         l_tbid_bits=4)],
                         ids=["paper", "small"])
def test_workload_buffer_rtl_matches_golden(params):
    print(f"seed {SEED}")
    runs = list(wb_directed(params))
    runs.append(("random", wb_random_ops(params, random.Random(SEED), 1500)))
    for name, ops in runs:
        check_steps_against_golden(WorkloadBufferRTL(**params.__dict__), WorkloadBuffer(params),
                                   ops, f"warpman_wb{params} {name}")


def _check_comb(params: DispatchCheckParams, ops_list) -> None:
    golden = DispatchCheck(params)
    got = simulate_comb(CheckRTL(**params.__dict__), ops_list, *step_types(golden))
    bad = [(i, ops) for i, (ops, out) in enumerate(zip(ops_list, got)) if out != golden.step(ops)]
    assert not bad, f"{len(bad)} of {len(ops_list)} vectors differ, first (index, ops) {bad[0]}"


@pytest.mark.parametrize("params", [DispatchCheckParams(),
                                    DispatchCheckParams(warp_slots=6, tb_slots=2, registers=200,
                                                        shared_bytes=100, max_warps_per_tb=5)],
                         ids=["gtx480_warpman", "tiny"])
def test_dispatch_check_rtl_matches_golden(params):
    print(f"seed {SEED}")
    ops_list = [op for _, seq in check_directed(params) for op in seq]
    _check_comb(params, ops_list + check_random_ops(params, random.Random(SEED), 800))


def test_dispatch_check_exhaustive_tiny():
    """Every input of a tiny SM (2 TB slots, 4 warps, 8 registers, 2 shared bytes)."""
    params = DispatchCheckParams(warp_slots=4, tb_slots=2, registers=8, shared_bytes=2,
                                 max_warps_per_tb=4)
    _check_comb(params, [
        DispatchCheckOps(free_warps=fw, free_tbs=ft, free_regs=fr, free_shared=fs,
                         warps_per_tb=w, regs_per_warp=r, shared_per_tb=s)
        for fw, ft, fr, fs, w, r, s in itertools.product(
            range(5), range(3), range(9), range(3), range(1, 5), range(9), range(3))])
