# amaranth: UnusedElaboratable=no
"""DARSIE version table: golden model on hand-worked cases, RTL vs golden in amaranth.sim."""

from __future__ import annotations

import random

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.darsie.version_table import VersionTable, VersionTableParams
from rtl.darsie.version_table import VersionTable as VersionTableRTL
from tb.darsie.amaranth_sim import check_against_golden
from tb.darsie.stimulus import directed_version_table, random_version_table

SEED = 20240704
SMALL = VersionTableParams(entries=4, reg_width=3, version_width=2, phys_width=4)


def test_defaults_are_the_paper_21_bit_entry():
    p = VersionTableParams()
    assert p.bits_per_entry == 21 and 21 * p.entries * 32 == 21504 == 2688 * 8


def test_insert_lookup_remove():
    t = VersionTable(SMALL)
    assert t.insert(1, 1, 5).ins_index == 0
    t.insert(1, 2, 6)
    assert t.lookup(1, 1) == 5 and t.lookup(1, 2) == 6 and t.lookup(2, 1) is None
    assert (1, 2) in t and len(t) == 2
    out = t.insert(1, 1, 7)                           # overwrite in place
    assert out.ins_hit and t.lookup(1, 1) == 7
    assert t.remove(1, 1) == 7 and t.remove(1, 1) is None
    for r in range(4):
        t.insert(2, r, r)
    out = t.insert(3, 0, 1)                           # 4 entries in use: refused
    assert out.ins_full and (3, 0) not in t and t.valid == 0b1111
    t.flush()
    assert len(t) == 0


def test_golden_rejects_bad_arguments():
    with pytest.raises(ConfigError):
        VersionTableParams(entries=0)
    with pytest.raises(SimtlabError):
        VersionTable(SMALL).insert(8, 0, 0)


def test_rtl_rejects_bad_parameters():
    with pytest.raises(ValueError):
        VersionTableRTL(entries=0)
    assert len(VersionTableRTL(entries=3, phys_width=5).rd_phys) == 5


@pytest.mark.parametrize("params", [SMALL, VersionTableParams(entries=3, reg_width=2,
                                                              version_width=1, phys_width=3)],
                         ids=["small", "odd"])
def test_rtl_matches_golden(params):
    print(f"seed {SEED}")
    ops = [op for _, seq in directed_version_table(params) for op in seq]
    ops += random_version_table(params, random.Random(SEED), 250)
    check_against_golden("version_table", params, ops, f"directed + random seed {SEED}")
