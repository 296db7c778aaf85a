"""The warp re-formation cost ablations and counters of thread block compaction
(golden/mechanisms/capri/tbc.py: ``compact``, ``refetch``, ``breakdown``; issue 67 item 2)."""

import numpy as np
import pytest

from golden.mechanisms.capri.mechanism import Capri
from golden.mechanisms.capri.tbc import Tbc
from test_tbc import _expected, _run_comp   # (pytest puts this folder on sys.path)

NEW_COUNTERS = ("tbc.slot_releases", "tbc.ibuf_flushed", "tbc.formed_assigned",
                "tbc.slot_wait_cycles", "tbc.first_issue_cycles")


@pytest.mark.parametrize("switch", [{"compact": False}, {"refetch": False},
                                    {"breakdown": True},
                                    {"compact": False, "refetch": False}],
                         ids=["nocompact", "norefetch", "breakdown", "both"])
@pytest.mark.parametrize("mech", [Tbc, Capri], ids=["tbc", "capri"])
def test_each_reformation_switch_leaves_outputs_bit_identical(tmp_path, switch, mech):
    base, _ = _run_comp(tmp_path, [])
    out, _ = _run_comp(tmp_path, [mech(check=True, **switch)])
    assert np.array_equal(base, _expected(base.size, 20))
    assert np.array_equal(out, base)


def test_breakdown_counts_without_changing_the_timing(tmp_path):
    _, t = _run_comp(tmp_path, [Tbc(pass_unconditional=True)])
    _, tb = _run_comp(tmp_path, [Tbc(pass_unconditional=True, breakdown=True)])
    m, mb = dict(t.mechanism), dict(tb.mechanism)
    new = {k: mb.pop(k) for k in NEW_COUNTERS}
    assert m == mb and t.cycles == tb.cycles
    assert t.instructions_issued == tb.instructions_issued
    # default runs do not carry the new counters (the statistics fixtures stay identical)
    assert not set(NEW_COUNTERS) & set(t.mechanism)
    # per TB of 2 warps: 2 warps formed at launch, 1 compacted warp for the loop path and
    # 2 at the reconvergence point; both warps give up their slots at the divergent branch,
    # the loop warp at the RPC (the loop's back edge keeps it: the path goes one way)
    assert new["tbc.formed_assigned"] == 6 * 5
    assert new["tbc.slot_releases"] == 6 * 3
    assert new["tbc.first_issue_cycles"] > 0
    assert 0 <= new["tbc.ibuf_flushed"] <= 2 * new["tbc.slot_releases"]


def test_static_grouping_runs_the_static_warps_instructions(tmp_path):
    """compact=false forms one warp per static warp with threads on the path: the CTA
    still synchronises and re-forms, but issues exactly the static warps' instructions."""
    _, base = _run_comp(tmp_path, [])
    _, t = _run_comp(tmp_path, [Tbc(pass_unconditional=True, compact=False)])
    _, tc = _run_comp(tmp_path, [Tbc(pass_unconditional=True)])
    m = t.mechanism
    assert m["tbc.warps_formed"] == m["tbc.warps_before"]
    assert t.instructions_issued == base.instructions_issued
    assert tc.instructions_issued < t.instructions_issued


def test_prefilled_ibuffers_skip_the_refetch(tmp_path):
    """refetch=false: formed warps start with a full I-buffer, so fewer instructions are
    fetched and the first issue after a formation comes sooner."""
    _, t = _run_comp(tmp_path, [Tbc(pass_unconditional=True, breakdown=True)])
    _, tn = _run_comp(tmp_path, [Tbc(pass_unconditional=True, breakdown=True, refetch=False)])
    assert tn.instructions_fetched < t.instructions_fetched
    m, mn = t.mechanism, tn.mechanism
    assert mn["tbc.formed_assigned"] == m["tbc.formed_assigned"]
    assert (mn["tbc.first_issue_cycles"] / mn["tbc.formed_assigned"]
            < m["tbc.first_issue_cycles"] / m["tbc.formed_assigned"])
