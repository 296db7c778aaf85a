# amaranth: UnusedElaboratable=no
"""DARSIE rename table, the paper's 21-bit organisation as the RTL's second configuration
(issue 69 item 4): RTL vs golden in amaranth.sim for both organisations."""

import random

import pytest

from golden.structures.darsie.rename_table import RenameOp, RenameTableOps, RenameTableParams
from rtl.darsie.rename_table import RenameTable as RenameTableRTL
from tb.darsie.amaranth_sim import check_against_golden
from tb.darsie.stimulus import directed_rename_table, random_rename_table

R1 = 1
W0, W1, W2 = 0, 1, 2


def test_rtl_rejects_non_bool_organisation():
    with pytest.raises(TypeError):
        RenameTableRTL(per_warp_versions=1)
    assert RenameTableRTL().per_warp_versions and not RenameTableRTL(
        per_warp_versions=False).per_warp_versions


@pytest.mark.parametrize("per_warp", [True, False], ids=["per-warp", "paper-21bit"])
def test_rtl_matches_golden_in_both_organisations(per_warp):
    """The RTL's second configuration follows the golden model cycle by cycle: the Fig. 5
    trace (whose golden answers differ, test above) plus directed and random stimulus."""
    params = RenameTableParams(warps=3, entries=4, reg_width=3, version_width=3,
                               per_warp_versions=per_warp)
    fig5 = [RenameTableOps(wr_op=RenameOp.SET, wr_warp=w, wr_reg=R1, wr_version=v,
                           rd_warp=r, rd_reg=R1)
            for w, v, r in ((W0, 1, W2), (W1, 1, W1), (W0, 2, W1), (W2, 1, W2),
                            (W2, 2, W0), (W1, 2, W1))]
    ops = fig5 + [RenameTableOps(clr_en=1, clr_warp=W2, rd_warp=W2, rd_reg=R1)]
    ops += [op for _, seq in directed_rename_table(params) for op in seq]
    ops += random_rename_table(params, random.Random(20261207), 200)
    check_against_golden("rename_table", params, ops, "fig5 + directed + random 20261207")


def test_skip_table_rtl_refuses_the_golden_only_82_bit_entry():
    from rtl.darsie.skip_table import SkipTable as SkipTableRTL
    with pytest.raises(ValueError, match="82-bit"):
        SkipTableRTL(tbs=1, entries=2, warps=3, pc_width=8, sync_bit=False)
