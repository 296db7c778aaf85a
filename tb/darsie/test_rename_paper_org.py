"""cocotb (Icarus) directed test: the Fig. 5 warp-pace trace (seed 000 §4.3.5) on the
rename-table RTL in both organisations (issue 69 item 4, docs/darsie-state-budget.md).

The answers are checked against hand-worked values, not against the golden model: with
``per_warp_versions=True`` every warp reads the version it must read; with the paper's
21-bit organisation (``per_warp_versions=False``) W1, W2 and W0 each read a wrong version
and W1's skip of PC2 reports old version v2 (not v1), shared: v1 is never reported dead.
"""

from __future__ import annotations

from dataclasses import asdict

import cocotb
import pytest

from golden.structures.darsie import RenameTableParams
from golden.structures.darsie.rename_table import RenameOp, RenameTableOps, RenameTableOutputs
from rtl.darsie.rename_table import RenameTable as RenameTableRTL
from tb.runner import run_cocotb, tb_params
from tb.stepper import StepTB

R1 = 1
W0, W1, W2 = 0, 1, 2


async def _read(tb, warp):
    out = await tb.cycle(RenameTableOps(rd_warp=warp, rd_reg=R1))
    return out.rd_version if out.rd_hit else None


async def _set(tb, warp, version):
    return await tb.cycle(RenameTableOps(wr_op=RenameOp.SET, wr_warp=warp, wr_reg=R1,
                                         wr_version=version))


@cocotb.test()
async def run_fig5(dut):
    """T1 W0 leads PC0 (v1); T2 W1 skips PC0; T3 W0 leads PC2 (v2); T4 W2 skips PC0 and
    PC2; T5 W1 skips PC2."""
    per_warp = tb_params()["per_warp_versions"]
    tb = StepTB(dut, RenameTableOps, RenameTableOutputs)
    tb.start()
    await tb.restart()
    await _set(tb, W0, 1)
    await _set(tb, W1, 1)
    await _set(tb, W0, 2)
    got = [await _read(tb, W1), await _read(tb, W2)]
    assert got == ([1, None] if per_warp else [2, 2]), got
    await _set(tb, W2, 1)
    got = [await _read(tb, W2), await _read(tb, W0)]
    assert got == ([1, 2] if per_warp else [1, 1]), got
    await _set(tb, W2, 2)
    last = await _set(tb, W1, 2)                     # T5: is v1 dead now?
    # per-warp: W1's old version v1, now read by nobody; paper: the one version is already
    # v2 (W2's set overwrote it), so v1's register is never named, let alone freed
    assert (last.wr_old_valid, last.wr_old_version, last.wr_old_shared) == (
        (1, 1, 0) if per_warp else (1, 2, 1)), last


@pytest.mark.parametrize("per_warp", [True, False], ids=["per-warp", "paper-21bit"])
def test_rename_fig5_cocotb(per_warp):
    params = RenameTableParams(warps=3, entries=4, reg_width=3, version_width=3,
                               per_warp_versions=per_warp)
    run_cocotb(RenameTableRTL, asdict(params), test_module=__name__, toplevel="rename_table",
               testcase="run_fig5")
