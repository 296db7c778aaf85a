"""The DARSIE marking is sound on every workload of the suite (small size): every
execution of a PC marked DR, within a group of warps of one TB on the same control-flow
path with full masks, sees identical operands and produces identical results. Also the
limit study's qualitative findings (DARSIE §2, Fig. 2) on the suite."""

import pytest

from golden.mechanisms.darsie.limit_study import study_workload
from golden.workloads import registry

NAMES = sorted(registry.all_workloads())


@pytest.fixture(scope="module")
def suite():
    """Limit study of every workload at small size (about 20-30 s on one core)."""
    return {n: study_workload(n, size="small", seed=0) for n in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_marking_is_sound_and_outputs_unchanged(suite, name):
    r = suite[name]
    c = r.counts
    assert r.outputs_match
    assert c.violations == 0, r.violation_notes
    assert c.warp_instructions > 0
    assert c.marked_dr_tb_redundant <= c.marked_dr
    # exclusive classes partition the executed instructions
    assert c.excl_grid + c.excl_tb + c.excl_warp + c.excl_none == c.warp_instructions
    assert c.tb_uniform + c.tb_affine + c.tb_unstructured == c.tb
    # skippable executions never exceed the value-based upper bound
    assert c.skippable <= c.tb_removable


def test_multi_dimensional_tbs_promote_and_skip(suite):
    for r in suite.values():
        if r.dims >= 2 and r.tb_dims[0] <= 32:
            assert all(lr.marking.decision.promote for lr in r.launches), r.workload
            assert r.counts.skippable > 0, r.workload
        if r.dims == 1:
            assert not any(lr.marking.decision.promote for lr in r.launches), r.workload


def test_affine_and_unstructured_redundancy_come_from_2d_tbs(suite):
    """Fig. 2: non-uniform TB redundancy is pervasive in 2D TBs and largely absent in 1D."""
    def mean(rs, field):
        return sum(r.counts.fraction(field) for r in rs) / len(rs)

    one = [r for r in suite.values() if r.dims == 1]
    two = [r for r in suite.values() if r.dims == 2]
    non_uniform_2d = mean(two, "tb_affine") + mean(two, "tb_unstructured")
    non_uniform_1d = mean(one, "tb_affine") + mean(one, "tb_unstructured")
    assert non_uniform_2d > 0.10
    assert non_uniform_1d < 0.02
    # nearly none in 1D TBs: RS (radix sort's per-warp count scan) is the one 1D workload
    # with some (0.9% of its instructions), a mean of 0.03% over the 1D workloads
    assert mean(one, "tb_affine") < 0.002
