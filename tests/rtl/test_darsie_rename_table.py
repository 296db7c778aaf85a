# amaranth: UnusedElaboratable=no
"""DARSIE rename table: golden model on hand-worked cases (Fig. 5), RTL vs golden in amaranth.sim."""

from __future__ import annotations

import random

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.darsie.rename_table import (RenameOp, RenameTable, RenameTableOps,
                                                   RenameTableParams, RenameWrite)
from rtl.darsie.rename_table import RenameTable as RenameTableRTL
from tb.darsie.amaranth_sim import check_against_golden
from tb.darsie.stimulus import directed_rename_table, random_rename_table

SEED = 20240703
SMALL = RenameTableParams(warps=4, entries=4, reg_width=4, version_width=3)


def test_defaults_and_storage():
    p = RenameTableParams()
    assert (p.warps, p.entries, p.reg_width, p.version_width) == (32, 32, 8, 5)
    assert p.storage_bits == 32 * (8 + 32 * 6) == 6400


def test_fig5_versions():
    t = RenameTable(SMALL)
    R1 = 1
    assert t.set(0, R1, 1) == RenameWrite(full=False, old_valid=False, old_version=0,
                                          old_shared=False)   # T1: W0 leads PC0 -> R1(v1)
    t.set(1, R1, 1)                                   # T2: W1 skips PC0 -> R1(v1)
    w = t.set(0, R1, 2)                               # T3: W0 leads PC2 -> R1(v2)
    assert w.old_valid and w.old_version == 1 and w.old_shared   # W1 still reads v1
    assert t.lookup(1, R1) == 1 and t.lookup(0, R1) == 2
    assert t.lookup(2, R1) is None                    # W2 has not skipped PC0 yet
    w = t.set(1, R1, 2)                               # T5: W1 skips PC2
    assert w.old_version == 1 and not w.old_shared    # nobody renamed reads v1 any more
    assert t.holders(R1, 2) == 0b0011


def test_full_drop_clear_flush():
    t = RenameTable(SMALL)
    for r in range(4):
        assert not t.set(0, r, 1).full
    assert t.set(0, 9, 1).full and t.lookup(0, 9) is None
    t.drop(0, 2)
    assert t.valid == 0b1011
    assert not t.set(1, 9, 3).full and t.lookup(1, 9) == 3
    t.clear_warp(0)
    assert t.mapping(0) == {} and t.mapping(1) == {9: 3}
    t.flush()
    assert t.valid == 0


def test_golden_rejects_bad_arguments():
    with pytest.raises(ConfigError):
        RenameTableParams(entries=0)
    t = RenameTable(SMALL)
    with pytest.raises(SimtlabError):
        t.set(0, 16, 1)
    with pytest.raises(SimtlabError):
        t.step(RenameTableOps(wr_op=RenameOp.SET, wr_version=8))


def test_rtl_rejects_bad_parameters():
    with pytest.raises(TypeError):
        RenameTableRTL(warps=None)
    with pytest.raises(ValueError):
        RenameTableRTL(version_width=0)
    dut = RenameTableRTL(warps=3, entries=5, reg_width=6, version_width=2)
    assert len(dut.rd_warp) == 2 and len(dut.valid) == 5 and len(dut.rd_version) == 2


@pytest.mark.parametrize("params", [SMALL, RenameTableParams(warps=3, entries=3, reg_width=3,
                                                             version_width=2)],
                         ids=["small", "odd"])
def test_rtl_matches_golden(params):
    print(f"seed {SEED}")
    ops = [op for _, seq in directed_rename_table(params) for op in seq]
    ops += random_rename_table(params, random.Random(SEED), 250)
    check_against_golden("rename_table", params, ops, f"directed + random seed {SEED}")
