# amaranth: UnusedElaboratable=no
"""Amaranth-simulator unit tests of rtl.common.freelist.FreeList against the golden model.

Also checks golden.structures.freelist.FreeList itself on hand-worked cases and the
parameter checks of both views. Long random runs live in tb/common/test_freelist.py.
"""

from __future__ import annotations

import random

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.freelist import FreeList, FreeListOps, FreeListParams
from rtl.common.freelist import FreeList as FreeListRTL
from tb.common.test_freelist import directed_freelist_sequences, random_freelist_ops

from stepsim import check_steps_against_golden

SEED = 20240612
RANDOM_CYCLES = 400


def check_against_golden(params: FreeListParams, ops_list: list[FreeListOps], label: str) -> None:
    """Replay *ops_list* on a fresh RTL instance and a fresh golden model of *params*."""
    dut = FreeListRTL(entries=params.entries, index_width=params.index_width)
    check_steps_against_golden(dut, FreeList(params), ops_list, label)


# ---------------------------------------------------------------------------- golden model
def test_golden_alloc_order_and_empty():
    fl = FreeList(FreeListParams(entries=4))
    assert fl.full and fl.free_count == 4 and fl.params.index_width == 2
    assert [fl.alloc() for _ in range(5)] == [0, 1, 2, 3, None]
    assert fl.empty and fl.free_count == 0
    assert fl.free(2) and fl.free(0)
    assert fl.next_index == 0 and fl.alloc() == 0 and fl.alloc() == 2


def test_golden_errors_leave_state_unchanged():
    fl = FreeList(FreeListParams(entries=5, index_width=4))
    fl.alloc()
    before = fl.free_bitmap
    assert not fl.free(1)          # double free
    assert not fl.free(5)          # out of range
    assert not fl.free(15)
    assert fl.free_bitmap == before
    with pytest.raises(SimtlabError):
        fl.free(16)                # does not fit the 4-bit port


def test_golden_step_same_cycle_alloc_free():
    fl = FreeList(FreeListParams(entries=2))
    fl.step(FreeListOps(alloc=1))
    fl.step(FreeListOps(alloc=1))
    # Empty: the freed index is not bypassed to the alloc of the same cycle.
    out = fl.step(FreeListOps(alloc=1, free=1, free_index=1))
    assert (out.empty, out.error, out.alloc_index, out.free_count) == (1, 0, 0, 0)
    out = fl.step(FreeListOps(alloc=1, free=1, free_index=1))   # 1 is free at cycle start
    assert (out.empty, out.error, out.alloc_index, out.free_count) == (0, 1, 1, 1)
    assert fl.empty


def test_golden_rejects_bad_parameters():
    for bad in (dict(entries=0), dict(entries=True), dict(entries=8, index_width=2),
                dict(entries=8, index_width=3.0)):
        with pytest.raises(ConfigError):
            FreeListParams(**bad)


# ---------------------------------------------------------------------------- RTL
def test_rtl_rejects_bad_parameters():
    with pytest.raises(TypeError):
        FreeListRTL(entries="8")
    with pytest.raises(TypeError):
        FreeListRTL(entries=8, index_width=4.0)
    with pytest.raises(ValueError):
        FreeListRTL(entries=0)
    with pytest.raises(ValueError):
        FreeListRTL(entries=9, index_width=3)
    fl = FreeListRTL(entries=9)
    assert (fl.entries, fl.index_width) == (9, 4)
    assert len(fl.free_count) == 4 and len(fl.alloc_index) == 4


@pytest.mark.parametrize(("entries", "index_width"), [(1, None), (6, None), (8, 4)])
def test_rtl_directed_matches_golden(entries, index_width):
    params = FreeListParams(entries=entries, index_width=index_width)
    for name, seq in directed_freelist_sequences(params):
        check_against_golden(params, seq, name)


@pytest.mark.parametrize(("entries", "index_width"), [(8, 4), (6, None), (32, 6)])
def test_rtl_random_matches_golden(entries, index_width):
    params = FreeListParams(entries=entries, index_width=index_width)
    seed = SEED + entries
    print(f"seed {seed}")
    ops_list = random_freelist_ops(params, random.Random(seed), RANDOM_CYCLES)
    check_against_golden(params, ops_list, f"random seed {seed}")
    golden = FreeList(params)
    outs = [golden.step(ops) for ops in ops_list]
    assert sum(o.error for o in outs) > 10
    assert sum(o.empty for o in outs) > (5 if entries <= 8 else 0)
    assert sum(o.free_count == entries for o in outs) > 0
