"""Warp 31 and entries past 31 in the DARSIE structures: their masks are Python ints, in the
reference structures and in their typed twins, also when the twins run compiled as
extension types (golden/native), where a C integer argument would overflow ``1 << 31``."""

from __future__ import annotations

import pytest

from golden.structures.darsie.rename_table import RenameTable, RenameTableParams
from golden.structures.darsie.rename_table_fast import RenameTableFast
from golden.structures.darsie.skip_table import SkipTable, SkipTableParams
from golden.structures.darsie.skip_table_fast import SkipTableFast


@pytest.mark.parametrize("make", [SkipTable, SkipTableFast], ids=["reference", "twin"])
def test_skip_table_arrival_of_warp_31_sets_bit_31(make):
    t = make(SkipTableParams(tbs=2, entries=8, warps=32, pc_width=48))
    out = t.alloc(0, 16, 31)
    r = t.probe(0, 16)
    assert r.hit and r.mask == 1 << 31
    mask, done = t.arrive(0, out.alloc_index, 0)
    assert (mask, done) == ((1 << 31) | 1, False)
    assert t.probe(0, 16).mask == (1 << 31) | 1


@pytest.mark.parametrize("make", [RenameTable, RenameTableFast], ids=["reference", "twin"])
def test_rename_table_warp_31_and_entries_past_31(make):
    t = make(RenameTableParams(warps=32, entries=64, reg_width=8, version_width=5))
    for reg in range(40):                     # fills entries 0..39
        assert not t.set(31, reg, 1).full
    assert t.holders(39, 1) == 1 << 31 and t.lookup(31, 39) == 1
    assert t.valid == (1 << 40) - 1
    t.drop(31, 35)                            # frees entry 35 alone
    assert t.valid == ((1 << 40) - 1) & ~(1 << 35)
    assert t.lookup(31, 35) is None and t.lookup(31, 36) == 1
