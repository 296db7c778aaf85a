# amaranth: UnusedElaboratable=no
"""Amaranth-simulator unit tests of rtl.common.cam.CAM against golden.structures.cam.Cam.

Also checks the golden model itself on hand-worked cases, and the parameter checks of
both views. The cocotb testbench (tb/common/test_cam.py) does the long random runs;
this file replays its directed scenarios and a few hundred random cycles, quickly.
"""

from __future__ import annotations

import random

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.cam import Cam, CamOps, CamParams
from rtl.common.cam import CAM
from tb.common.test_cam import directed_cam_sequences, random_cam_ops

from stepsim import check_steps_against_golden

SEED = 20240611
RANDOM_CYCLES = 400


def check_against_golden(params: CamParams, ops_list: list[CamOps], label: str) -> None:
    """Replay *ops_list* on a fresh RTL instance and a fresh golden model of *params*."""
    dut = CAM(entries=params.entries, tag_width=params.tag_width)
    check_steps_against_golden(dut, Cam(params), ops_list, label)


# ---------------------------------------------------------------------------- golden model
def test_golden_fill_evict_lru_order():
    cam = Cam(CamParams(entries=4, tag_width=8))
    assert [cam.insert(t).index for t in (10, 11, 12, 13)] == [0, 1, 2, 3]
    assert cam.valid == 0b1111 and len(cam) == 4
    assert cam.lookup(10, touch=False).index == 0
    assert cam.lru_order == (0, 1, 2, 3)
    assert cam.lookup(10).hit                      # touch: 0 becomes MRU
    assert cam.lru_order == (1, 2, 3, 0)
    res = cam.insert(20)
    assert (res.index, res.hit, res.evicted, res.evicted_tag) == (1, False, True, 11)
    assert 11 not in cam and 20 in cam
    res = cam.insert(12)                          # already present: reused, touched
    assert (res.index, res.hit, res.evicted) == (2, True, False)
    assert cam.lru_order == (3, 0, 1, 2)


def test_golden_holes_and_invalidate():
    cam = Cam(CamParams(entries=4, tag_width=8))
    for t in (1, 2, 3, 4):
        cam.insert(t)
    cam.invalidate_index(2)
    assert cam.invalidate_tag(4) and not cam.invalidate_tag(4)
    assert cam.valid == 0b0011
    assert cam.insert(9).index == 2               # lowest hole, not the LRU entry 0
    assert cam.insert(8).index == 3
    assert cam.insert(7).evicted_tag == 1         # full again: LRU entry 0
    cam.flush()
    assert cam.valid == 0 and not cam.lookup(0).hit


def test_golden_step_order():
    params = CamParams(entries=4, tag_width=8)
    cam = Cam(params)
    for t in (1, 2, 3, 4):
        cam.insert(t)
    # Lookup sees the start-of-cycle contents even though flush and insert follow.
    out = cam.step(CamOps(lookup_tag=3, lookup_touch=1, flush=1, insert_en=1, insert_tag=4))
    assert (out.hit, out.hit_index) == (1, 2)
    assert (out.insert_index, out.insert_hit, out.insert_evict) == (0, 0, 0)
    assert out.valid == 0b1111 and cam.valid == 0b0001 and cam.entry(0) == 4
    # Invalidate by index first, so the tag invalidation of the same entry misses.
    out = cam.step(CamOps(inv_index_en=1, inv_index=0, inv_tag_en=1, inv_tag=4))
    assert out.inv_tag_hit == 0 and cam.valid == 0


def test_golden_rejects_bad_arguments():
    with pytest.raises(ConfigError):
        CamParams(entries=1, tag_width=8)
    with pytest.raises(ConfigError):
        CamParams(entries=4, tag_width=0)
    cam = Cam(CamParams(entries=6, tag_width=4))
    with pytest.raises(SimtlabError):
        cam.insert(16)
    with pytest.raises(SimtlabError):
        cam.invalidate_index(8)
    cam.invalidate_index(7)                       # fits the 3-bit port: no effect
    assert cam.valid == 0


# ---------------------------------------------------------------------------- RTL
def test_rtl_rejects_bad_parameters():
    with pytest.raises(TypeError):
        CAM(entries=4.0, tag_width=8)
    with pytest.raises(TypeError):
        CAM(entries=4, tag_width=True)
    with pytest.raises(ValueError):
        CAM(entries=1, tag_width=8)
    with pytest.raises(ValueError):
        CAM(entries=4, tag_width=0)
    cam = CAM(entries=6, tag_width=10)
    assert (cam.entries, cam.tag_width) == (6, 10)
    assert len(cam.hit_index) == 3 and len(cam.valid) == 6 and len(cam.insert_evict_tag) == 10


@pytest.mark.parametrize(("entries", "tag_width"), [(4, 8), (6, 10)])
def test_rtl_directed_matches_golden(entries, tag_width):
    params = CamParams(entries=entries, tag_width=tag_width)
    for name, seq in directed_cam_sequences(params):
        check_against_golden(params, seq, name)


@pytest.mark.parametrize(("entries", "tag_width"), [(4, 8), (8, 16), (6, 10)])
def test_rtl_random_matches_golden(entries, tag_width):
    params = CamParams(entries=entries, tag_width=tag_width)
    seed = SEED + entries * 100 + tag_width
    print(f"seed {seed}")
    ops_list = random_cam_ops(params, random.Random(seed), RANDOM_CYCLES)
    check_against_golden(params, ops_list, f"random seed {seed}")
    # The stimulus must reach the interesting cases even in this short run.
    golden = Cam(params)
    outs = [golden.step(ops) for ops in ops_list]
    assert sum(o.insert_evict for o in outs) > 10
    assert sum(o.hit for o in outs) > 30
    assert sum(o.insert_hit for o in outs) > 5
    assert sum(o.valid == (1 << entries) - 1 for o in outs) > 30
