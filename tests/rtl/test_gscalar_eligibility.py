# amaranth: UnusedElaboratable=no
"""G-Scalar scalar-eligibility check (seed 003 §4.1, §4.2): the golden structure agrees with
the timing mechanism's decisions on real kernels, and the RTL with the golden structure in
amaranth.sim on random vectors and on those decisions."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from golden.structures.gscalar.eligibility import (
    EligibilityOps, EligibilityOutputs, EligibilityParams, ScalarEligibility,
)
from rtl.gscalar.eligibility import ScalarEligibility as EligibilityRTL
from tb.gscalar.eligibility_stimulus import (
    ELIGIBILITY_GOALS, TRACE_SOURCES, RecordedDecisions, eligibility_coverage, random_eligibility_ops,
    record_eligibility_decisions,
)

from test_gscalar_rtl import check_comb_against_golden


def test_rule_on_hand_made_cases():
    g = ScalarEligibility(EligibilityParams(sources=2, lanes=4))
    full = 0b1111
    base = dict(src_en=0b11, src_enc=0xFF, active=full, full=full, class_ok=1)
    assert g.step(EligibilityOps(**base)) == EligibilityOutputs(1, 0)            # §4.1
    assert g.step(EligibilityOps(**{**base, "src_enc": 0xEF})) == EligibilityOutputs(0, 0)
    assert g.step(EligibilityOps(**{**base, "src_d": 0b01})) == EligibilityOutputs(0, 0)
    div = {**base, "active": 0b0101}
    assert g.step(EligibilityOps(**div)) == EligibilityOutputs(0, 1)             # §4.2
    same = {**div, "src_d": 0b10, "src_mask": 0b0101 << 4}
    assert g.step(EligibilityOps(**same)) == EligibilityOutputs(0, 1)           # D, same mask
    assert g.step(EligibilityOps(**{**same, "src_mask": 0b0111 << 4})) == EligibilityOutputs(0, 0)
    assert g.step(EligibilityOps(**{**base, "uniform": 0})) == EligibilityOutputs(0, 0)
    assert g.step(EligibilityOps(**{**base, "src_en": 0, "src_enc": 0})) == EligibilityOutputs(1, 0)
    nodiv = ScalarEligibility(EligibilityParams(sources=2, lanes=4, divergent=False))
    assert nodiv.step(EligibilityOps(**div)) == EligibilityOutputs(0, 0)


@pytest.mark.parametrize("workload", ["BFS", "HS", "NQU"])
def test_golden_check_reproduces_the_mechanism_on_real_kernels(workload):
    rows = record_eligibility_decisions(workload, limit=1500)
    golden = ScalarEligibility(EligibilityParams(sources=TRACE_SOURCES))
    wrong = [(i, ops, out) for i, (ops, out) in enumerate(rows) if golden.step(ops) != out]
    assert not wrong, wrong[:3]
    assert sum(o.scalar for _, o in rows) > 0


@pytest.mark.parametrize("params", [EligibilityParams(), EligibilityParams(sources=3, lanes=6, divergent=False)])
def test_rtl_matches_golden_on_random_vectors(params):
    ops = random_eligibility_ops(params, random.Random(7), 600)
    check_comb_against_golden(EligibilityRTL(**params.__dict__), ScalarEligibility(params), ops,
                              f"eligibility {params}")
    cov: Counter = Counter()
    golden = ScalarEligibility(params)
    for o in ops:
        eligibility_coverage(golden.step(o), o, params, cov)
    for key in ELIGIBILITY_GOALS:
        if params.divergent or "div_scalar" not in key:
            assert cov[key] > 0, (key, dict(cov))


def test_rtl_matches_the_mechanism_on_bfs_decisions():
    rows = record_eligibility_decisions("BFS", limit=600)
    params = EligibilityParams(sources=TRACE_SOURCES)
    check_comb_against_golden(EligibilityRTL(**params.__dict__),
                              RecordedDecisions(out for _, out in rows), [o for o, _ in rows],
                              "eligibility BFS decisions")


def test_rtl_rejects_bad_parameters():
    with pytest.raises(TypeError):
        EligibilityRTL(sources=2.0)
    with pytest.raises(ValueError):
        EligibilityRTL(lanes=0)
    with pytest.raises(TypeError):
        EligibilityRTL(divergent=1)
