"""Golden uniform detection and copy-on-write trigger (seed 002 ch. 2, §2.3, §2.4)."""

import itertools

import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.uv import DetectOps, DetectParams, SrcKind, UniformDetect

FULL = (1 << 32) - 1


def test_uniform_needs_eligible_full_mask_and_uniform_sources():
    d = UniformDetect()
    R, U, T = SrcKind.REGISTER, SrcKind.UNIFORM, SrcKind.THREAD
    assert d.detect((R, U), (1, 0), FULL).uniform == 1            # reg with token + imm
    assert d.detect((R, R), (1, 0), FULL).uniform == 0            # a vector source
    assert d.detect((T,), (1,), FULL).uniform == 0                # %tid never uniform
    assert d.detect((R, U), (1, 0), FULL ^ 4).uniform == 0        # divergent
    assert d.detect((R,), (1,), FULL, eligible=False).uniform == 0
    assert d.detect((), (), FULL).uniform == 1                    # no source at all


def test_every_kind_combination_against_the_rule():
    d = UniformDetect()
    for kinds in itertools.product(range(4), repeat=3):
        for unis in itertools.product((0, 1), repeat=3):
            out = d.detect(kinds, unis, FULL)
            ok = all(k in (0, 1) or (k == 3 and u) for k, u in zip(kinds, unis))
            assert out.uniform == int(ok)
            assert out.n_reg_sources_uniform == sum(k == 3 and u for k, u in zip(kinds, unis))


def test_copy_on_write_on_every_divergent_write_of_a_uniform_register():
    d = UniformDetect()
    # the safe rule: the destination need not be a source, and eligibility does not matter
    assert d.detect((SrcKind.UNIFORM,), (0,), FULL ^ 1, dst=True, dst_uniform=True).cow == 1
    assert d.detect((), (), 1, dst=True, dst_uniform=True, eligible=False).cow == 1
    assert d.detect((), (), FULL, dst=True, dst_uniform=True).cow == 0
    assert d.detect((), (), 1, dst=True, dst_uniform=False).cow == 0
    assert d.detect((), (), 1, dst=False, dst_uniform=True).cow == 0


def test_other_widths():
    d = UniformDetect(DetectParams(sources=1, warp_size=4))
    assert d.step(DetectOps(src_kind0=1, active_mask=0xF, eligible=1)).uniform == 1
    with pytest.raises(SimtlabError):
        d.step(DetectOps(src_kind1=1))
    with pytest.raises(SimtlabError):
        d.step(DetectOps(active_mask=0x10))


@pytest.mark.parametrize("ops", [DetectOps(src_kind0=4), DetectOps(src_uniform1=2),
                                 DetectOps(active_mask=1 << 32), DetectOps(eligible=2)])
def test_out_of_range_inputs_are_errors(ops):
    with pytest.raises(SimtlabError):
        UniformDetect().step(ops)


def test_bad_parameters_are_errors():
    with pytest.raises(ConfigError):
        DetectParams(sources=0)
    with pytest.raises(ConfigError):
        DetectParams(warp_size=0)
    with pytest.raises(SimtlabError):
        UniformDetect().detect((1, 1, 1, 1), (), FULL)
