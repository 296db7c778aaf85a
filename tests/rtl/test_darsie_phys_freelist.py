# amaranth: UnusedElaboratable=no
"""DARSIE physical register freelist: golden model and RTL vs golden in amaranth.sim."""

from __future__ import annotations

import random

import pytest

from golden.errors import ConfigError
from golden.structures.darsie.phys_freelist import PhysFreeListParams, PhysRegFreeList
from rtl.darsie.phys_freelist import PhysRegFreeList as PhysRegFreeListRTL
from tb.darsie.amaranth_sim import check_against_golden
from tb.darsie.stimulus import directed_phys_freelist, random_phys_freelist

SEED = 20240705
SMALL = PhysFreeListParams(entries=6, tag_width=4, banks=4)


def test_alloc_last_and_strided_banks():
    fl = PhysRegFreeList(PhysFreeListParams(entries=4, tag_width=8, banks=2))
    got = [fl.alloc() for _ in range(5)]
    # The 4th allocation empties the list: a TB synchronisation point (§4.3.5).
    assert got == [(0, False), (1, False), (2, False), (3, True), None]
    assert [fl.bank_of(i) for i in range(4)] == [0, 1, 0, 1]
    assert fl.free(2) and not fl.free(2) and not fl.free(200)
    assert fl.alloc() == (2, True)


def test_params_checked():
    with pytest.raises(ConfigError):
        PhysFreeListParams(banks=3)
    with pytest.raises(ConfigError):
        PhysFreeListParams(entries=32, tag_width=4)
    with pytest.raises(ValueError):
        PhysRegFreeListRTL(banks=6)


@pytest.mark.parametrize("params", [SMALL, PhysFreeListParams(entries=5, tag_width=3, banks=8)],
                         ids=["small", "odd"])
def test_rtl_matches_golden(params):
    print(f"seed {SEED}")
    ops = [op for _, seq in directed_phys_freelist(params) for op in seq]
    ops += random_phys_freelist(params, random.Random(SEED), 250)
    check_against_golden("phys_freelist", params, ops, f"directed + random seed {SEED}")
