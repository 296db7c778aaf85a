# amaranth: UnusedElaboratable=no
"""CAPRI structures (seed 004): RTL vs golden in amaranth.sim (directed + random), the
CAPT under each history policy and the WCU with its adequacy evaluator."""

from __future__ import annotations

import itertools
import random

import pytest

from golden.structures.capri import Capt, CaptParams, Wcu, WcuOps, WcuParams
from rtl.capri.capt import Capt as CaptRTL
from rtl.capri.wcu import Wcu as WcuRTL
from stepsim import check_steps_against_golden, simulate_comb, step_types
from tb.capri.stimulus import (capt_directed, capt_random_ops, fig7_ops, wcu_directed,
                               wcu_random_ops)

SEED = 20260304


def test_rtl_rejects_bad_parameters():
    with pytest.raises(TypeError):
        CaptRTL(entries=2.5)
    with pytest.raises(ValueError):
        CaptRTL(entries=1)
    with pytest.raises(ValueError):
        CaptRTL(policy="3bit")
    with pytest.raises(ValueError):
        WcuRTL(warps=0)
    with pytest.raises(TypeError):
        WcuRTL(lanes="32")
    c = CaptRTL()
    assert (len(c.lookup_pc), len(c.hit_history), len(c.evict_pc)) == (32, 1, 32)
    assert len(CaptRTL(policy="2bit").hit_history) == 2
    w = WcuRTL()
    assert (len(w.mask), len(w.umask), len(w.formed), len(w.src), len(w.n_formed),
            len(w.max_lane_count), len(w.n_active_warps)) == (256, 8, 256, 768, 4, 4, 4)


CAPT_PARAMS = [CaptParams(entries=8), CaptParams(entries=4, policy="2bit", pc_bits=12),
               CaptParams(entries=3, policy="1bS", pc_bits=10),
               CaptParams(entries=2, policy="1bL", pc_bits=8)]


@pytest.mark.parametrize("params", CAPT_PARAMS, ids=["paper8_1bL", "e4_2bit", "e3_1bS", "e2"])
def test_capt_rtl_matches_golden(params):
    print(f"seed {SEED}")
    runs = list(capt_directed(params))
    runs.append(("random", capt_random_ops(params, random.Random(SEED), 1200)))
    for name, ops in runs:
        check_steps_against_golden(CaptRTL(**params.__dict__), Capt(params), ops,
                                   f"capri_capt{params} {name}")


def _check_wcu(params: WcuParams, ops_list) -> None:
    golden = Wcu(params)
    got = simulate_comb(WcuRTL(**params.__dict__), ops_list, *step_types(golden))
    bad = [(i, ops) for i, (ops, out) in enumerate(zip(ops_list, got)) if out != golden.step(ops)]
    assert not bad, f"{len(bad)} of {len(ops_list)} vectors differ, first (index, ops) {bad[0]}"


def test_wcu_rtl_fig7_8():
    """paper-facts §7.3: W0 = 0123 bypasses, W1 = 4xx7 and W2 = 89xx are compacted into
    49x7 and 8xxx; max lane count 3 = 3 active warps: inadequate."""
    params = WcuParams(warps=3, lanes=4)
    ops = fig7_ops(params)
    (out,) = simulate_comb(WcuRTL(warps=3, lanes=4), [ops], *step_types(Wcu(params)))
    assert (out.n_formed, out.max_lane_count, out.n_active_warps, out.adequate) == (2, 3, 3, 0)
    res = Wcu(params).unpack(out)
    assert res.warps == (0b1011, 0b0001)
    assert res.src == ((1, 2, None, 1), (2, None, None, None))


@pytest.mark.parametrize("params", [WcuParams(), WcuParams(warps=3, lanes=4),
                                    WcuParams(warps=5, lanes=7), WcuParams(warps=1, lanes=4)],
                         ids=["w8_l32", "fig7", "w5_l7", "w1"])
def test_wcu_rtl_matches_golden(params):
    print(f"seed {SEED}")
    ops_list = [op for _, seq in wcu_directed(params) for op in seq]
    _check_wcu(params, ops_list + wcu_random_ops(params, random.Random(SEED), 300))


def test_wcu_exhaustive_tiny():
    """Every mask and UMask of a 3-warp x 2-lane WCU."""
    params = WcuParams(warps=3, lanes=2)
    _check_wcu(params, [WcuOps(mask=m, umask=u)
                        for m, u in itertools.product(range(1 << 6), range(1 << 3))])
